import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import type { Logger } from "supernode/core";
import { type Devnet, startDevnet } from "../devnet.js";
import type { Fork } from "supernode/protocol";
import { rpcCall } from "../rpc-call.js";
import { prepareSequencerP2P } from "./p2p.js";
import { type DevnetInteropOptions, startInteropTraffic } from "../interop-devnet.js";
import type { InteropTraffic } from "../interop-traffic.js";
import { writeExternalSupernodeFile } from "./external.js";
import { devnetForkSchedule, supernodeArgsFor, writeDevnetDependencySet } from "./supernode.js";

/**
 * `supernode-devnet --supernode-process child`: the devnet (anvil, the simulated execution clients, the batchers)
 * runs in this process and the supernode in a child process of its own (`bin/supernode.js` with the generated
 * arguments), so that none of the devnet's work shows in the supernode's CPU, memory or latency. Used for many
 * chains (`--chains 128`) and for measuring. `--supernode-process external`: the same devnet, and no supernode
 * process at all (`external`).
 */
export interface ChildDevnetOptions {
  readonly dir: string;
  readonly chains: ReadonlyArray<{ readonly chainId: bigint; readonly variant: "a" | "b" }>;
  readonly rpcPort: number;
  readonly metricsPort: number;
  /** Fixed execution-client ports from this base (`--el.port`, el-ports.ts); default 0 = free ports. */
  readonly elPortBase?: number;
  /** L1 finality distance (anvil `--slots-in-an-epoch`; finalized = head − 2·n); default 2. */
  readonly l1SlotsInAnEpoch?: number;
  readonly l1BlockTimeSec: number;
  readonly l2BlockTimeSec: number;
  readonly dataMode: "calldata" | "blobs";
  readonly forkOffsets?: Partial<Record<Fork, number | undefined>>;
  readonly logLevel: string;
  /** P2P on loopback with a block-signing key (see `DevnetSupernodeOptions.p2p`). */
  readonly p2p?: boolean;
  readonly interop?: DevnetInteropOptions;
  /**
   * No supernode process: the arguments go to `<dir>/supernode.json` for one started elsewhere (external.ts).
   * Without `p2p` (the sequencer's P2P key would travel as an environment variable).
   */
  readonly external?: boolean;
}

export interface ChildDevnet {
  readonly devnet: Devnet;
  /** The supernode's process; none with `external`. */
  readonly supernode?: ChildProcess;
  /** With `external`: the file telling a supernode started elsewhere how to run (external.ts). */
  readonly externalFile?: string;
  readonly traffic?: InteropTraffic;
  readonly rpcUrl: string;
  readonly metricsUrl: string;
  stop(): Promise<void>;
}

/** A loopback port free right now (the child's ports must be known here when the caller asked for 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a !== null ? a.port : 0));
    });
  });
}

/** The product's `supernode` binary (its package.json `bin`), found through the installed `supernode` package. */
export function supernodeBin(): string {
  const pkgJson = createRequire(import.meta.url).resolve("supernode/package.json");
  const { bin } = JSON.parse(readFileSync(pkgJson, "utf8")) as { bin: { supernode: string } };
  return join(dirname(pkgJson), bin.supernode);
}

export async function startChildDevnet(opts: ChildDevnetOptions, logger: Logger): Promise<ChildDevnet> {
  const forkOffsets = devnetForkSchedule(opts);
  const devnet = await startDevnet(
    {
      dir: opts.dir,
      chains: opts.chains.map((c) => ({
        chainId: c.chainId,
        variant: c.variant,
        ...(forkOffsets === undefined ? {} : { forkOffsets }),
      })),
      l1BlockTimeSec: opts.l1BlockTimeSec,
      ...(opts.l1SlotsInAnEpoch === undefined ? {} : { l1SlotsInAnEpoch: opts.l1SlotsInAnEpoch }),
      l2BlockTimeSec: opts.l2BlockTimeSec,
      dataMode: opts.dataMode,
      ...(opts.elPortBase === undefined ? {} : { elPortBase: opts.elPortBase }),
      // one batcher poll per L2 block keeps the devnet's own CPU modest with many chains
      batcherPollIntervalMs: Math.max(1000, opts.l2BlockTimeSec * 1000),
    },
    { logger },
  );
  rmSync(join(opts.dir, "supernode"), { recursive: true, force: true });
  const rpcPort = opts.rpcPort === 0 ? await freePort() : opts.rpcPort;
  const metricsPort = opts.metricsPort === 0 ? await freePort() : opts.metricsPort;
  await writeDevnetDependencySet(devnet, opts);
  const args = supernodeArgsFor(devnet, {
    dir: opts.dir,
    chains: opts.chains,
    rpcPort,
    metricsPort,
    logLevel: opts.logLevel as never,
    ...(opts.p2p === undefined ? {} : { p2p: opts.p2p }),
  });
  const ports = { rpc: rpcPort, metrics: metricsPort };
  const externalFile = opts.external === true ? writeExternalSupernodeFile(opts.dir, devnet, args, ports) : undefined;
  const child =
    externalFile === undefined
      ? spawnSupernode(args, opts.p2p === true ? (await prepareSequencerP2P(devnet)).env : {})
      : undefined;
  devnet.startBatchers();
  const traffic =
    opts.interop !== undefined && opts.interop.traffic !== false
      ? startInteropTraffic(devnet, opts.interop, { logger })
      : undefined;
  let stopping: Promise<void> | undefined;
  return {
    devnet,
    ...(child === undefined ? {} : { supernode: child.process }),
    ...(externalFile === undefined ? {} : { externalFile }),
    ...(traffic === undefined ? {} : { traffic }),
    rpcUrl: `http://127.0.0.1:${rpcPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    stop() {
      stopping ??= (async () => {
        await traffic?.stop();
        await child?.stop();
        await devnet.stop();
      })();
      return stopping;
    },
  };
}

/**
 * The supernode in a process group of its own: a Ctrl-C in the terminal reaches only this process, which stops the
 * supernode once (a second signal would force it out); if this process dies the supernode goes with it.
 */
function spawnSupernode(args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [supernodeBin(), ...args], {
    // the IPC channel ties it to this process: it stops when this one ends, however it ends (endWithParent)
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    detached: true,
    env: { ...process.env, ...env },
  });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  return {
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((r) => child.once("exit", () => r()));
        child.kill("SIGTERM");
        const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(force);
      }
      process.off("exit", killOnExit);
    },
  };
}

/** One line per `intervalMs`: how many chains are serving, and the lowest and highest unsafe / safe heads. */
export async function reportChildDevnet(
  cd: ChildDevnet,
  signal: AbortSignal,
  out: (s: string) => void,
  intervalMs = 4_000,
  extraLines?: () => Promise<string[]>,
): Promise<void> {
  const ids = cd.devnet.chains.map((c) => c.chainId);
  while (!signal.aborted && (cd.supernode?.exitCode ?? null) === null) {
    const heads = await Promise.all(
      ids.map(async (id) => {
        try {
          const st = await rpcCall<Record<string, { number?: number }> | null>(
            `${cd.rpcUrl}/${id}/`,
            "stack_syncStatus",
            [],
            2_000,
          );
          return st === null ? undefined : { unsafe: st.unsafe_l2?.number ?? 0, safe: st.safe_l2?.number ?? 0 };
        } catch {
          return undefined;
        }
      }),
    );
    const up = heads.filter((h): h is { unsafe: number; safe: number } => h !== undefined);
    const range = (xs: number[]) => (xs.length === 0 ? "-" : `${Math.min(...xs)}…${Math.max(...xs)}`);
    out(
      `${up.length}/${ids.length} chains serving  unsafe ${range(up.map((h) => h.unsafe))}  safe ${range(up.map((h) => h.safe))}`,
    );
    for (const line of (await extraLines?.()) ?? []) out(line);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, intervalMs);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
  }
}
