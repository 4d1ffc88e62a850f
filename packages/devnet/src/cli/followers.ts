import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Logger, systemClock } from "supernode/core";
import { writeJwtSecret } from "../config.js";
import type { DevnetChain } from "../devnet.js";
import { SimulatedExecutionClient } from "../el/index.js";
import { freePort, supernodeBin } from "./child.js";
import { rpcCall } from "../rpc-call.js";
import { DEVNET_P2P_ARGS, loopbackAddr, waitForP2PSelf } from "./p2p.js";
import { devnetChainArgs, devnetProcessArgs } from "./supernode.js";

/**
 * `supernode-devnet --followers N`: N more supernodes, each a verifier of every devnet chain in a process of its
 * own (`bin/supernode.js`, its own process group) with its own simulated execution clients (run in this process,
 * started from the same genesis as the chain's) and its own data directory `<dir>/follower-<k>`. Each follower's
 * host of a chain has the sequencing supernode's host of that chain as a static peer over loopback, so unsafe blocks
 * arrive by gossip (and gaps are filled by req-resp) long before their batches land on L1.
 * Follower k serves its RPC on `rpc.port + k` and its metrics on `metrics.port + k` (a free port when the base is 0).
 */
/**
 * What a follower needs to know of the devnet it follows: L1's URLs and, per chain, its genesis and rollup config.
 * A `Devnet` is one; a process that does not host the devnet builds one from the devnet's description (the `p2p`
 * benchmark runs the followers' execution clients in a process of their own).
 */
export interface FollowedDevnet {
  readonly l1: { readonly rpcUrl: string; readonly beaconUrl: string };
  readonly chains: ReadonlyArray<FollowedChain>;
}

export type FollowedChain = Pick<DevnetChain, "chainId" | "variant" | "elGenesis" | "rollupConfigPath"> & {
  readonly rollupConfig: { readonly lagoon_time?: number | undefined };
  readonly client: { readonly genesisHash: string };
};

/** A follower's execution client of one chain, wherever it runs. */
export interface FollowerEl {
  readonly httpUrl: string;
  readonly authUrl: string;
  readonly genesisHash: string;
  stop(): Promise<void>;
}

/**
 * Starts follower `k`'s execution client of `chain` from the chain's genesis, with `jwtSecret` on its Engine API.
 * The default runs a simulated execution client in this process; the `p2p` benchmark runs each in a process of its
 * own, as an operator runs one execution client per chain.
 */
export type StartFollowerEl = (chain: FollowedChain, jwtSecret: Uint8Array, k: number) => Promise<FollowerEl>;

const inProcessEl = (c: FollowedChain, jwtSecret: Uint8Array, logger: Logger): Promise<FollowerEl> =>
  SimulatedExecutionClient.start(
    {
      variant: c.variant,
      chainId: c.chainId,
      genesis: c.elGenesis,
      http: { port: 0, api: ["eth", "net", "web3", "txpool", "debug"] },
      authrpc: { port: 0, jwtSecret },
    },
    { logger, clock: systemClock },
  );

export interface FollowersOptions {
  readonly count: number;
  readonly dir: string;
  /** The sequencing supernode's RPC (its `stackp2p_self` gives the addresses to peer with). */
  readonly sequencerRpcUrl: string;
  readonly rpcPort: number;
  readonly metricsPort: number;
  readonly logLevel: string;
  /** Give up when a follower does not answer `stackp2p_self` within this time (default 120 s). */
  readonly readyTimeoutMs?: number;
  /** Stop waiting (and stop what was started) when this aborts, e.g. on Ctrl-C. */
  readonly signal?: AbortSignal;
  /** Extra Node.js arguments for the follower processes (the benchmark's profiling hooks). */
  readonly nodeArgs?: readonly string[];
  /** Where each follower's execution clients run (default: simulated ones in this process). */
  readonly startEl?: StartFollowerEl;
}

export interface Follower {
  readonly index: number;
  readonly pid: number;
  readonly process: ChildProcess;
  readonly rpcUrl: string;
  readonly metricsUrl: string;
  /** Per chain: the follower's peer ID and its execution client (in this process). */
  readonly chains: ReadonlyArray<{
    readonly chainId: bigint;
    readonly peerId: string;
    readonly el: FollowerEl;
  }>;
}

export interface Followers {
  readonly list: readonly Follower[];
  /** One line per follower and chain: unsafe and safe heads and connected peers. */
  statusLines(): Promise<string[]>;
  /** Stops every follower process (SIGTERM by PID, SIGKILL after 15 s), then their execution clients. */
  stop(): Promise<void>;
}

interface Launched {
  readonly index: number;
  readonly child: ChildProcess;
  readonly rpcUrl: string;
  readonly metricsUrl: string;
  readonly els: Map<bigint, FollowerEl>;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(force);
}

export async function startFollowers(
  devnet: FollowedDevnet,
  opts: FollowersOptions,
  logger: Logger,
): Promise<Followers> {
  const log = logger.child({ component: "followers" });
  const launched: Launched[] = [];
  const killAll = () => {
    for (const l of launched) l.child.kill("SIGKILL");
  };
  process.once("exit", killAll);
  const stop = async (): Promise<void> => {
    await Promise.all(launched.map((l) => stopChild(l.child)));
    process.off("exit", killAll);
    for (const l of launched) for (const el of l.els.values()) await el.stop().catch(() => {});
  };
  try {
    const timeout = AbortSignal.timeout(opts.readyTimeoutMs ?? 120_000);
    const ready = opts.signal === undefined ? timeout : AbortSignal.any([timeout, opts.signal]);
    const seqAddrs = new Map<bigint, string>();
    for (const c of devnet.chains) {
      seqAddrs.set(c.chainId, loopbackAddr(await waitForP2PSelf(opts.sequencerRpcUrl, c.chainId, ready)));
    }
    for (let k = 1; k <= opts.count; k++) launched.push(await launch(devnet, opts, k, seqAddrs, log));
    const list: Follower[] = [];
    for (const l of launched) {
      const exited = new Promise<never>((_, reject) =>
        l.child.once("exit", (code, sig) => reject(new Error(`follower ${l.index} exited (${code ?? sig})`))),
      );
      exited.catch(() => {});
      const chains = [];
      for (const c of devnet.chains) {
        const self = await Promise.race([waitForP2PSelf(l.rpcUrl, c.chainId, ready), exited]);
        const el = l.els.get(c.chainId);
        if (el !== undefined) chains.push({ chainId: c.chainId, peerId: self.peerID, el });
      }
      list.push({
        index: l.index,
        pid: l.child.pid ?? 0,
        process: l.child,
        rpcUrl: l.rpcUrl,
        metricsUrl: l.metricsUrl,
        chains,
      });
    }
    return { list, stop, statusLines: () => statusLines(list) };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Starts follower `k`'s execution clients and its supernode process. */
async function launch(
  devnet: FollowedDevnet,
  opts: FollowersOptions,
  k: number,
  seqAddrs: ReadonlyMap<bigint, string>,
  log: Logger,
): Promise<Launched> {
  const dir = join(opts.dir, `follower-${k}`);
  rmSync(dir, { recursive: true, force: true });
  const rpcPort = opts.rpcPort === 0 ? await freePort() : opts.rpcPort + k;
  const metricsPort = opts.metricsPort === 0 ? await freePort() : opts.metricsPort + k;
  const els = new Map<bigint, FollowerEl>();
  const args = [
    ...devnetProcessArgs(devnet, {
      dir: opts.dir,
      dataDir: join(dir, "supernode"),
      rpcPort,
      metricsPort,
      logLevel: opts.logLevel,
    }),
    ...DEVNET_P2P_ARGS,
    "--vn.all.syncmode.req-resp",
  ];
  try {
    for (const c of devnet.chains) {
      const chainDir = join(dir, `chain-${c.chainId}`);
      mkdirSync(chainDir, { recursive: true });
      const jwtSecret = new Uint8Array(randomBytes(32));
      const jwtPath = await writeJwtSecret(chainDir, jwtSecret);
      const el = await (opts.startEl?.(c, jwtSecret, k) ?? inProcessEl(c, jwtSecret, log));
      els.set(c.chainId, el);
      if (el.genesisHash !== c.client.genesisHash) {
        throw new Error(`follower ${k}: chain ${c.chainId} genesis ${el.genesisHash} ≠ ${c.client.genesisHash}`);
      }
      args.push(
        ...devnetChainArgs(c, el.authUrl, jwtPath),
        `--vn.${c.chainId}.p2p.static`,
        seqAddrs.get(c.chainId) ?? "",
      );
    }
  } catch (err) {
    for (const el of els.values()) await el.stop().catch(() => {});
    throw err;
  }
  // Its own process group: a Ctrl-C in the terminal reaches only the devnet command, which stops it by PID.
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), supernodeBin(), ...args], {
    // the IPC channel ties it to this process: it stops when this one ends, however it ends (endWithParent)
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    detached: true,
  });
  log.info({ follower: k, pid: child.pid, rpcPort }, "follower started");
  return {
    index: k,
    child,
    rpcUrl: `http://127.0.0.1:${rpcPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    els,
  };
}

async function statusLines(list: readonly Follower[]): Promise<string[]> {
  const lines: string[] = [];
  for (const f of list) {
    for (const c of f.chains) {
      const url = `${f.rpcUrl}/${c.chainId}/`;
      try {
        const [st, stats] = await Promise.all([
          rpcCall<Record<string, { number?: number }>>(url, "stack_syncStatus", [], 2_000),
          rpcCall<{ connected?: number }>(url, "stackp2p_peerStats", [], 2_000),
        ]);
        lines.push(
          `follower ${f.index} chain ${c.chainId}  unsafe ${st.unsafe_l2?.number ?? "-"}  safe ${st.safe_l2?.number ?? "-"}  peers ${stats.connected ?? 0}`,
        );
      } catch {
        lines.push(`follower ${f.index} chain ${c.chainId}  not answering`);
      }
    }
  }
  return lines;
}

/** The banner's follower lines: RPC, metrics and PID, then each chain's peer ID and execution client. */
export function describeFollowers(f: Followers, out: (s: string) => void): void {
  for (const x of f.list) {
    out(`follower ${x.index}        pid ${x.pid}, RPC ${x.rpcUrl}/<chain id>/   metrics ${x.metricsUrl}`);
    for (const c of x.chains) out(`  chain ${c.chainId}       peer ID ${c.peerId}   execution client ${c.el.httpUrl}`);
  }
}
