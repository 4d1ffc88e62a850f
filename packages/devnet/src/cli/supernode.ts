import { rmSync } from "node:fs";
import { join } from "node:path";
import { type LogLevel, type Supernode, startSupernode } from "supernode";
import type { Address, Logger } from "supernode/core";
import { type Devnet, startDevnet } from "../devnet.js";
import {
  DEVNET_MESSAGE_EXPIRY_WINDOW,
  type DevnetInteropOptions,
  startInteropTraffic,
  withInterop,
  writeDependencySet,
} from "../interop-devnet.js";
import type { InteropTraffic } from "../interop-traffic.js";
import type { Fork } from "supernode/protocol";
import { DEVNET_P2P_ARGS, prepareSequencerP2P } from "./p2p.js";

/**
 * `supernode-devnet` composition: the embedded devnet (anvil L1, one simulated execution client per chain, one
 * batcher per chain) plus a supernode sequencing every chain, configured exactly as an operator would (through the
 * same option loader), with admin RPC and metrics on loopback.
 */
export interface DevnetSupernodeOptions {
  readonly dir: string;
  readonly chains: ReadonlyArray<{
    readonly chainId: bigint;
    readonly variant: "a" | "b";
    /** The EL's rule for a forkchoice update to a canonical ancestor (default: it reorgs back). */
    readonly ancestorForkchoice?: "reorg" | "keep-head";
  }>;
  readonly rpcPort: number;
  readonly metricsPort: number;
  /** Fixed execution-client ports from this base (`--el.port`, el-ports.ts); default 0 = free ports. */
  readonly elPortBase?: number;
  /** L1 finality distance (anvil `--slots-in-an-epoch`; finalized = head − 2·n); default 2. */
  readonly l1SlotsInAnEpoch?: number;
  readonly l1BlockTimeSec?: number;
  readonly l2BlockTimeSec?: number;
  readonly dataMode?: "calldata" | "blobs";
  /** Fork schedule of every chain as seconds after L2 genesis (default: Regolith … Jovian at genesis). */
  readonly forkOffsets?: Partial<Record<Fork, number | undefined>>;
  readonly logLevel?: LogLevel;
  /**
   * P2P on loopback with a block-signing key set as every chain's unsafe-block signer (devnet-p2p.ts), so that
   * followers can peer with the sequencer; default off (`--disable-p2p`).
   */
  readonly p2p?: boolean;
  /**
   * With `p2p`: blocks are signed by a remote signer signing for this address (its `--vn.all.signer.*` options go in
   * `extraArgs`); the address is set as every chain's unsafe-block signer and no key is made.
   */
  readonly remoteSigner?: Address;
  /** Interop on every chain (one dependency set, Interop at genesis unless `forkOffsets` says) and its traffic. */
  readonly interop?: DevnetInteropOptions;
  /** Extra supernode arguments appended to the generated ones (e.g. `--pprof.enabled`). */
  readonly extraArgs?: readonly string[];
}

export interface DevnetSupernode {
  readonly devnet: Devnet;
  readonly supernode: Supernode;
  /** The cross-chain message traffic (`interop` with traffic). */
  readonly traffic?: InteropTraffic;
  /** The supernode arguments used (no secrets: the JWT is a file path). */
  readonly args: readonly string[];
  stop(): Promise<void>;
}

/** A recipient on L2 for the demo deposit. */
export const DEMO_DEPOSIT_RECIPIENT: Address = "0x00000000000000000000000000000000000d3b05";

export function supernodeArgsFor(devnet: Devnet, opts: DevnetSupernodeOptions): string[] {
  const args = [
    ...devnetProcessArgs(devnet, {
      dir: opts.dir,
      dataDir: join(opts.dir, "supernode"),
      rpcPort: opts.rpcPort,
      metricsPort: opts.metricsPort,
      logLevel: opts.logLevel ?? "warn",
    }),
    ...(opts.p2p === true ? DEVNET_P2P_ARGS : ["--disable-p2p"]),
    "--rpc.enable-admin",
    "--vn.all.sequencer.enabled",
  ];
  for (const c of devnet.chains) args.push(...devnetChainArgs(c, c.el.authUrl, c.jwtSecretPath));
  return [...args, ...(opts.extraArgs ?? [])];
}

/**
 * What every supernode process of a devnet is given (the sequencing one and each follower): the chains, the L1
 * and its beacon, the data directory, RPC and metrics on loopback, the log level, and the dependency set when
 * Interop is scheduled.
 */
export function devnetProcessArgs(
  devnet: {
    readonly l1: { readonly rpcUrl: string; readonly beaconUrl: string };
    readonly chains: ReadonlyArray<{
      readonly chainId: bigint;
      readonly rollupConfig: { readonly lagoon_time?: number | undefined };
    }>;
  },
  o: { dir: string; dataDir: string; rpcPort: number; metricsPort: number; logLevel: string },
): string[] {
  const args = [
    "--chains",
    devnet.chains.map((c) => c.chainId.toString(10)).join(","),
    "--l1",
    devnet.l1.rpcUrl,
    "--l1.beacon",
    devnet.l1.beaconUrl,
    "--l1.http-poll-interval",
    "1s",
    "--data-dir",
    o.dataDir,
    "--rpc.addr",
    "127.0.0.1",
    "--rpc.port",
    String(o.rpcPort),
    "--metrics.enabled",
    "--metrics.addr",
    "127.0.0.1",
    "--metrics.port",
    String(o.metricsPort),
    "--log.level",
    o.logLevel,
  ];
  if (devnet.chains[0]?.rollupConfig.lagoon_time !== undefined) args.push("--dependency-set", dependencySetPath(o.dir));
  return args;
}

/** One devnet chain's execution client (Engine API URL and JWT file), rollup config and engine kind. */
export function devnetChainArgs(
  c: Pick<Devnet["chains"][number], "chainId" | "rollupConfigPath" | "variant">,
  authUrl: string,
  jwtPath: string,
): string[] {
  const id = c.chainId.toString(10);
  return [
    `--vn.${id}.l2`,
    authUrl,
    `--vn.${id}.l2.jwt-secret`,
    jwtPath,
    `--vn.${id}.rollup.config`,
    c.rollupConfigPath,
    `--vn.${id}.l2.enginekind`,
    c.variant === "a" ? "variant_a" : "variant_b",
  ];
}

/** Where the devnet writes its dependency set when Interop is scheduled. */
export function dependencySetPath(dir: string): string {
  return join(dir, "dependency-set.json");
}

/** The fork schedule of a devnet with these options (Interop added with `interop`). */
export function devnetForkSchedule(opts: Pick<DevnetSupernodeOptions, "forkOffsets" | "interop">) {
  return opts.interop === undefined ? opts.forkOffsets : withInterop(opts.forkOffsets);
}

/** Writes the dependency set of an interop devnet (every chain; the devnet's expiry window). */
export async function writeDevnetDependencySet(
  devnet: Devnet,
  opts: Pick<DevnetSupernodeOptions, "dir" | "interop">,
): Promise<void> {
  if (devnet.chains[0]?.rollupConfig.lagoon_time === undefined) return;
  const window = opts.interop?.messageExpiryWindowSec ?? DEVNET_MESSAGE_EXPIRY_WINDOW;
  await writeDependencySet(
    dependencySetPath(opts.dir),
    devnet.chains.map((c) => c.chainId),
    window,
  );
}

export async function startDevnetSupernode(
  opts: DevnetSupernodeOptions,
  deps: { logger: Logger; devnetLogger?: Logger },
): Promise<DevnetSupernode> {
  const forkOffsets = devnetForkSchedule(opts);
  const devnet = await startDevnet(
    {
      dir: opts.dir,
      chains: opts.chains.map((c) => ({
        chainId: c.chainId,
        variant: c.variant,
        ...(forkOffsets === undefined ? {} : { forkOffsets }),
        ...(c.ancestorForkchoice === undefined ? {} : { ancestorForkchoice: c.ancestorForkchoice }),
      })),
      l1BlockTimeSec: opts.l1BlockTimeSec ?? 2,
      ...(opts.l1SlotsInAnEpoch === undefined ? {} : { l1SlotsInAnEpoch: opts.l1SlotsInAnEpoch }),
      l2BlockTimeSec: opts.l2BlockTimeSec ?? 2,
      ...(opts.dataMode === undefined ? {} : { dataMode: opts.dataMode }),
      ...(opts.elPortBase === undefined ? {} : { elPortBase: opts.elPortBase }),
    },
    { logger: deps.devnetLogger ?? deps.logger },
  );
  try {
    // The devnet's L1 is new on every start, so state derived from an earlier devnet would not match it.
    rmSync(join(opts.dir, "supernode"), { recursive: true, force: true });
    await writeDevnetDependencySet(devnet, opts);
    const args = supernodeArgsFor(devnet, opts);
    const seqP2P = opts.p2p === true ? await prepareSequencerP2P(devnet, opts.remoteSigner) : undefined;
    const supernode = await startSupernode(args, seqP2P?.env ?? {}, { logger: deps.logger });
    devnet.startBatchers();
    const traffic =
      opts.interop !== undefined && opts.interop.traffic !== false
        ? startInteropTraffic(devnet, opts.interop, { logger: deps.devnetLogger ?? deps.logger })
        : undefined;
    let stopping: Promise<void> | undefined;
    return {
      devnet,
      supernode,
      ...(traffic === undefined ? {} : { traffic }),
      args,
      stop() {
        stopping ??= (async () => {
          await traffic?.stop();
          await supernode.stop();
          await devnet.stop();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await devnet.stop().catch(() => {});
    throw err;
  }
}
