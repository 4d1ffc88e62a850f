/**
 * Gossip latency to the follower's execution client, end to end on loopback, measured as an operator would: every
 * part in a process of its own, none in this (the measuring) process.
 *
 * - `seq-proc.ts`: the sequencing side's devnet — anvil (its own process), N simulated execution clients and N
 *   batchers — and the sequencing supernode in a child process of its own (P2P on, blocks signed; 1 s L2 blocks).
 * - `follower-proc.ts`: the follower's N execution clients, and the follower supernode in a child process of its
 *   own (a verifier of every chain, the sequencer's hosts as static peers, `syncmode.req-resp`), preloaded with
 *   `hook.mjs` (its event-loop delay and CPU per loop tick over the window; optionally a CPU profile).
 *
 * Both EL host processes time each head change of their execution clients on the machine's monotonic clock
 * (`machineMs`, the same clock in every process) and report it over IPC, so a block is timed from becoming the
 * head of the sequencer's execution client (just before the sequencer publishes it) to becoming the head of the
 * follower's (gossip → validation → the follower node's unsafe queue → `engine_newPayload` +
 * `engine_forkchoiceUpdated`). Only blocks built inside the window count, once every follower chain is within two
 * blocks of its sequencer.
 *
 * Controls in the same run: a `stack_syncStatus` round trip to the follower every 100 ms, and the event-loop delay
 * of both EL host processes (a busy host delays the Engine API answers, or the sequencer's head change itself).
 * `P2P_BENCH_CPU_PROF=<prefix>` writes the follower supernode's CPU profile of the window to `<prefix>-<N>.cpuprofile`;
 * `P2P_BENCH_DUMP=<prefix>` writes each measured block (hash, chain, number, both head times) to `<prefix>-<N>.txt`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rpcCall } from "../../src/cli/commands/devnet-p2p.js";
import { note } from "../harness.js";
import { type HeadReport, type LoopReport, ready, stopChild } from "./procs.js";

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
  readonly seqHostLoop: LoopFigures;
  readonly followerHostLoop: LoopFigures;
  readonly followerLoop: LoopFigures | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function host(script: string, args: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", join(here, script), ...args], {
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
  let fol: ChildProcess | undefined;
  let followerPid: number | undefined;
  try {
    seq = host("seq-proc.ts", [String(n), dir]);
    const seqHeads: HeadReport[] = [];
    seq.on("message", (m) => {
      if ((m as HeadReport).kind === "head") seqHeads.push(m as HeadReport);
    });
    const s = JSON.parse(await ready(seq, "sequencer side", 600_000)) as { rpcUrl: string; devnet: unknown };
    const devnetFile = join(dir, "followed-devnet.json");
    // the description keeps its bigints as {"$n": …}: written as received
    writeFileSync(devnetFile, JSON.stringify(s.devnet));
    const hookOut = join(dir, "follower-hook.json");
    const prof = process.env.P2P_BENCH_CPU_PROF;
    fol = host("follower-proc.ts", [dir, s.rpcUrl, devnetFile, JSON.stringify(["--import", join(here, "hook.mjs")])], {
      ...process.env,
      P2P_BENCH_HOOK_OUT: hookOut,
      ...(prof === undefined ? {} : { P2P_BENCH_CPU_PROF: `${prof}-${n}.cpuprofile` }),
    });
    const folHeads: HeadReport[] = [];
    fol.on("message", (m) => {
      if ((m as HeadReport).kind === "head") folHeads.push(m as HeadReport);
    });
    const f = JSON.parse(await ready(fol, "follower side", 300_000)) as { rpcUrl: string; pid: number };
    followerPid = f.pid;
    // Every follower chain following by gossip: within two blocks of its sequencer, past block 3.
    const settle = Date.now() + 180_000;
    for (;;) {
      const top = (xs: HeadReport[]) => {
        const m = new Map<number, number>();
        for (const x of xs) m.set(x.chain, Math.max(m.get(x.chain) ?? 0, x.number));
        return m;
      };
      const [st, ft] = [top(seqHeads), top(folHeads)];
      let behind = 0;
      for (let i = 0; i < n; i++) {
        const id = 901 + i;
        if ((ft.get(id) ?? 0) < Math.max(3, (st.get(id) ?? 0) - 2)) behind++;
      }
      if (behind === 0) break;
      if (Date.now() > settle) throw new Error(`${behind} of ${n} follower chains never caught up`);
      await sleep(200);
    }
    note(`p2p: ${n} chains, follower caught up; measuring ${windowMs / 1000} s`);
    await Promise.all([askLoop(seq), askLoop(fol)]);
    process.kill(f.pid, "SIGUSR2");
    const from = seqHeads.length;
    const control: number[] = [];
    const url = `${f.rpcUrl}/901/`;
    const end = Date.now() + windowMs;
    while (Date.now() < end) {
      const t0 = performance.now();
      await rpcCall(url, "stack_syncStatus", [], 5_000).catch(() => undefined);
      control.push(performance.now() - t0);
      await sleep(100);
    }
    const to = seqHeads.length;
    const [seqHostLoop, followerHostLoop] = await Promise.all([askLoop(seq), askLoop(fol)]);
    process.kill(f.pid, "SIGUSR2");
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
    return {
      samples,
      control,
      blocksBuilt: to - from,
      seqHostLoop: strip(seqHostLoop),
      followerHostLoop: strip(followerHostLoop),
      followerLoop,
    };
  } finally {
    await Promise.all([stopChild(fol), stopChild(seq)]);
    if (followerPid !== undefined) {
      try {
        process.kill(followerPid, "SIGKILL"); // gone already unless its host died without stopping it
      } catch {
        /* exited */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function strip(r: LoopReport): LoopFigures {
  return { p50: r.p50, p99: r.p99, max: r.max };
}
