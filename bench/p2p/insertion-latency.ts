/**
 * Gossip latency to the follower's execution client, end to end on loopback, measured as an operator would run it:
 * every part in a process of its own, none in this (the measuring) process.
 *
 * - `seq-proc.ts`: the sequencing side's devnet — anvil (its own process), N simulated execution clients and N
 *   batchers — and the sequencing supernode in a child process of its own (P2P on, blocks signed; 1 s L2 blocks).
 * - `el-proc.ts`: the follower's execution clients, one process per chain (`P2P_BENCH_EL_PROCS=one`: all in one).
 * - the follower supernode in a process of its own (`startFollowers`: a verifier of every chain with the
 *   sequencer's hosts as static peers and `syncmode.req-resp`), preloaded with `hook.mjs` (its event-loop delay and
 *   CPU per 1-ms tick over the window; optionally a CPU profile).
 *
 * The execution-client host processes time each head change on the machine's monotonic clock (`machineMs`, the same
 * clock in every process) and report it over IPC, so a block is timed from becoming the head of the sequencer's
 * execution client (just before the sequencer publishes it) to becoming the head of the follower's (gossip →
 * validation → the follower node's unsafe queue → `engine_newPayload` + `engine_forkchoiceUpdated`). Only blocks
 * built inside the window count, once every follower chain is within two blocks of its sequencer.
 *
 * Controls in the same run: a `stack_syncStatus` round trip to the follower every 100 ms, and the event-loop delay
 * of the EL host processes (a busy host delays the Engine API answers, or the sequencer's head change itself).
 * `P2P_BENCH_CPU_PROF=<prefix>` writes the follower supernode's CPU profile of the window to `<prefix>-<N>.cpuprofile`;
 * `P2P_BENCH_DUMP=<prefix>` writes each measured block (hash, chain, number, both head times) to `<prefix>-<N>.txt`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type FollowedDevnet,
  type Followers,
  type StartFollowerEl,
  startFollowers,
} from "supernode-devnet/cli/followers";
import { rpcCall } from "supernode-devnet/rpc-call";
import { silentLogger } from "supernode/core";
import { note } from "../harness.js";
import type { StartEl, StartedEl } from "./el-proc.js";
import { fromJson, type HeadReport, type LoopReport, machineMs, ready, stopChild, toJson } from "./procs.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

/** Event-loop delay of a process over the window (ms beyond its sampling interval). */
export interface LoopFigures {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Only the follower supernode: process CPU between two 1-ms timer ticks (p99, max). */
  readonly cpuP99?: number;
  readonly cpuMax?: number;
}

export interface InsertionLatency {
  readonly samples: number[];
  readonly control: number[];
  readonly blocksBuilt: number;
  /** Chains whose blocks did not reach the follower by gossip when the window opened (see the settle rule). */
  readonly notFollowing: number;
  readonly seqHostLoop: LoopFigures;
  readonly followerHostLoop: LoopFigures;
  readonly followerLoop: LoopFigures | undefined;
}

const WARMUP_S = 5;
const LIVE_MS = 1_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function host(script: string, args: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--conditions=supernode-source", "--import", "tsx", join(here, script), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit", "ipc"],
    ...(env === undefined ? {} : { env }),
  });
}

function askLoop(child: ChildProcess): Promise<LoopReport> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if ((m as LoopReport).kind !== "loop") return;
      child.off("message", on);
      resolve(m as LoopReport);
    };
    child.on("message", on);
    child.send("loop");
  });
}

export async function insertionLatency(n: number, windowMs: number): Promise<InsertionLatency> {
  const dir = mkdtempSync(join(tmpdir(), "sn-bench-p2p-"));
  let seq: ChildProcess | undefined;
  let f: Followers | undefined;
  const elHosts: ChildProcess[] = [];
  const saved = { out: process.env.P2P_BENCH_HOOK_OUT, prof: process.env.P2P_BENCH_HOOK_PROF };
  try {
    seq = host("seq-proc.ts", [String(n), dir]);
    const seqHeads: HeadReport[] = [];
    seq.on("message", (m) => {
      if ((m as HeadReport).kind === "head") seqHeads.push(m as HeadReport);
    });
    const s = fromJson<{ rpcUrl: string; devnet: FollowedDevnet }>(await ready(seq, "sequencer side", 600_000));
    const folHeads: HeadReport[] = [];
    const newElHost = async (): Promise<ChildProcess> => {
      const c = host("el-proc.ts", []);
      elHosts.push(c);
      c.on("message", (m) => {
        if ((m as HeadReport).kind === "head") folHeads.push(m as HeadReport);
      });
      await ready(c, "EL host", 120_000);
      return c;
    };
    const shared = process.env.P2P_BENCH_EL_PROCS === "one" ? await newElHost() : undefined;
    const startEl: StartFollowerEl = async (chain, jwtSecret) => {
      const c = shared ?? (await newElHost());
      const id = chain.chainId.toString(10);
      const started = new Promise<StartedEl>((resolve) => {
        const on = (m: unknown) => {
          const r = m as StartedEl;
          if (r.kind !== "started" || r.chainId !== id) return;
          c.off("message", on);
          resolve(r);
        };
        c.on("message", on);
      });
      const jwtHex = Buffer.from(jwtSecret).toString("hex");
      const spec = { chainId: chain.chainId, variant: chain.variant, genesis: chain.elGenesis, jwtHex };
      c.send({ kind: "start", json: toJson(spec) } satisfies StartEl);
      const r = await started;
      if (r.httpUrl === undefined || r.authUrl === undefined || r.genesisHash === undefined)
        throw new Error(`follower EL of chain ${id}: ${r.error ?? "not started"}`);
      return {
        httpUrl: r.httpUrl,
        authUrl: r.authUrl,
        genesisHash: r.genesisHash,
        stop: async () => {
          if (shared === undefined) await stopChild(c);
        },
      };
    };
    // the follower supernode (spawned with this environment) preloads hook.mjs
    const hookOut = join(dir, "follower-hook.json");
    process.env.P2P_BENCH_HOOK_OUT = hookOut;
    const prof = process.env.P2P_BENCH_CPU_PROF;
    if (prof !== undefined) process.env.P2P_BENCH_HOOK_PROF = `${prof}-${n}.cpuprofile`;
    f = await startFollowers(
      s.devnet,
      {
        count: 1,
        dir,
        sequencerRpcUrl: s.rpcUrl,
        rpcPort: 0,
        metricsPort: 0,
        logLevel: "error",
        nodeArgs: ["--import", join(here, "hook.mjs")],
        startEl,
      },
      silentLogger,
    );
    const follower = f.list[0];
    if (follower === undefined) throw new Error("no follower");
    // Every follower chain following by gossip: each of its last three blocks built at least 1.5 s ago (number ≥ 3)
    // reached the follower's execution client within 1.5 s. Blocks that come only from L1 (derivation) or a late
    // req-resp fill take longer, so a chain whose P2P link is not up yet (a static peer dialled again later) keeps
    // the window closed.
    const settle = Date.now() + 150_000;
    let notFollowing = 0;
    for (;;) {
      const folAt = new Map(folHeads.map((h) => [h.hash, h.t]));
      const now = machineMs();
      let behind = 0;
      for (let i = 0; i < n; i++) {
        const recent = seqHeads.filter((h) => h.chain === 901 + i && h.number >= 3 && now - h.t >= LIVE_MS).slice(-3);
        const live =
          recent.length === 3 && recent.every((h) => (folAt.get(h.hash) ?? Number.POSITIVE_INFINITY) - h.t < LIVE_MS);
        if (!live) behind++;
      }
      notFollowing = behind;
      if (behind === 0) break;
      if (Date.now() > settle) {
        // Measured anyway (their blocks then arrive from L1 or req-resp, seconds late): the figure says so.
        note(`p2p: ${behind} of ${n} follower chains still not following by gossip; measuring anyway`);
        break;
      }
      await sleep(500);
    }
    // Then a few seconds of steady state (the sequencer may still be making up slots it missed while starting):
    // the window opens once every chain produced one block per slot (± 1 over WARMUP_S seconds) for WARMUP_S.
    for (let i = 0; i < 12; i++) {
      const before = seqHeads.length;
      await sleep(WARMUP_S * 1000);
      const per = new Map<number, number>();
      for (const h of seqHeads.slice(before)) per.set(h.chain, (per.get(h.chain) ?? 0) + 1);
      let steady = per.size === n;
      for (const c of per.values()) if (c < WARMUP_S - 1 || c > WARMUP_S + 1) steady = false;
      if (steady) break;
    }
    note(
      `p2p: ${n} chains (${elHosts.length} follower EL host processes), follower caught up; measuring ${windowMs / 1000} s`,
    );
    const hosts = [seq, ...elHosts];
    await Promise.all(hosts.map(askLoop));
    process.kill(follower.pid, "SIGUSR2");
    const from = seqHeads.length;
    const control: number[] = [];
    const url = `${follower.rpcUrl}/901/`;
    const end = Date.now() + windowMs;
    while (Date.now() < end) {
      const t0 = performance.now();
      await rpcCall(url, "stack_syncStatus", [], 5_000).catch(() => undefined);
      control.push(performance.now() - t0);
      await sleep(100);
    }
    const to = seqHeads.length;
    const [seqHostLoop, ...elLoops] = await Promise.all(hosts.map(askLoop));
    process.kill(follower.pid, "SIGUSR2");
    await sleep(2_000); // blocks still in flight
    const built = new Map(seqHeads.slice(from, to).map((h) => [h.hash, h.t]));
    const samples: number[] = [];
    const rows: string[] = [];
    for (const h of folHeads) {
      const t = built.get(h.hash);
      if (t !== undefined) {
        samples.push(h.t - t);
        rows.push(`${h.hash} ${h.chain} ${h.number} ${t} ${h.t}`);
        built.delete(h.hash);
      }
    }
    const dump = process.env.P2P_BENCH_DUMP;
    if (dump !== undefined) writeFileSync(`${dump}-${n}.txt`, `${rows.join("\n")}\n`);
    let followerLoop: LoopFigures | undefined;
    for (let i = 0; i < 50 && !existsSync(hookOut); i++) await sleep(100);
    if (existsSync(hookOut)) followerLoop = JSON.parse(readFileSync(hookOut, "utf8")) as LoopFigures;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    return {
      samples,
      control,
      blocksBuilt: to - from,
      notFollowing,
      seqHostLoop: strip(seqHostLoop as LoopReport),
      // over the follower's EL host processes: the median p50, the worst p99 and max
      followerHostLoop: {
        p50: median(elLoops.map((l) => l.p50)),
        p99: Math.max(...elLoops.map((l) => l.p99)),
        max: Math.max(...elLoops.map((l) => l.max)),
      },
      followerLoop,
    };
  } finally {
    await f?.stop().catch(() => {});
    await Promise.all([...elHosts.map((c) => stopChild(c)), stopChild(seq)]);
    process.env.P2P_BENCH_HOOK_OUT = saved.out;
    process.env.P2P_BENCH_HOOK_PROF = saved.prof;
    if (saved.out === undefined) delete process.env.P2P_BENCH_HOOK_OUT;
    if (saved.prof === undefined) delete process.env.P2P_BENCH_HOOK_PROF;
    rmSync(dir, { recursive: true, force: true });
  }
}

function strip(r: LoopReport): LoopFigures {
  return { p50: r.p50, p99: r.p99, max: r.max };
}
