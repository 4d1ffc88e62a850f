/**
 * op-node on a devnet (test/reference/): the two op-geth of a case (the supernode's and op-node's, from the devnet's
 * L2 genesis, with the rollup config rewritten to op-geth's genesis hash), and op-node with the flags every case
 * shares (the devnet's L1 and rollup config, its op-geth through the Engine API, RPC on loopback) plus the case's
 * own, started and asked until its RPC answers; and the supernode in this process on the first op-geth.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Hash } from "../../src/core/types/primitives.js";
import type { Fork, RollupConfig } from "../../src/protocol/rollup-config.js";
import { buildChainRuntimes } from "../../src/app/chain-factory.js";
import { protocolHashing } from "../../src/app/hashing.js";
import { Supernode } from "../../src/app/supernode.js";
import { formatIssues } from "../../src/config/issues.js";
import type { LogLevel } from "../../src/config/types.js";
import { loadConfig } from "../../src/config/load.js";
import { createLogger } from "../../src/observability/logger.js";
import { type Devnet, devnetProcessArgs, startDevnet } from "supernode-devnet";
import { Batcher, type DataMode } from "supernode-devnet/batcher/batcher";
import type { BatchType } from "supernode-devnet/batcher/channel-builder";
import { rollupConfigJson } from "supernode-devnet/config";
import { batcherAccountIndex } from "supernode-devnet/l1/dev-accounts";
import {
  freePort,
  jsonRpc,
  type OpGeth,
  referenceBinary,
  type RefProcess,
  startOpGeth,
  startReferenceBinary,
  until,
} from "./reference.js";

export type OpNode = RefProcess & { readonly url: string };

export interface OpGethPair {
  readonly ours: OpGeth;
  readonly theirs: OpGeth;
  /** The devnet chain's rollup config with op-geth's genesis hash, and the file op-node and the supernode read. */
  readonly cfg: RollupConfig;
  readonly rollupPath: string;
  readonly jwtPath: string;
  /** One more op-geth from the same genesis (datadir `<dir>/<name>`; its `stop` pushed onto `stops`). */
  el(name: string, opts?: OpGethOptions): Promise<OpGeth>;
}

/** Devp2p peers (`peers`, see connectOpGeth); `ports`: the HTTP and Engine API ports it had before a restart. */
export type OpGethOptions = { readonly peers?: number; readonly ports?: { http: number; auth: number } };

/**
 * Starts the supernode's and op-node's op-geth of `chainId` (each `stop` pushed onto `stops`); with `peers`, each
 * may have that many devp2p peers (connectOpGeth).
 */
export async function startOpGethPair(
  devnet: Devnet,
  chainId: bigint,
  dir: string,
  stops: Array<() => Promise<void>>,
  peers?: number,
): Promise<OpGethPair> {
  const chain = devnet.chain(chainId);
  const jwtPath = chain.jwtSecretPath;
  const el = async (name: string, opts: OpGethOptions = {}): Promise<OpGeth> => {
    const geth = referenceBinary("geth") as string;
    const p = await startOpGeth({
      geth,
      datadir: join(dir, name),
      genesisPath: chain.l2GenesisPath,
      jwtPath,
      logDir: dir,
      name,
      ...(peers === undefined ? {} : { peers }),
      ...opts,
    });
    stops.push(() => p.stop());
    return p;
  };
  const ours = await el("geth-ours");
  // op-geth computes the genesis hash of the devnet's genesis.json; both rollup nodes get a rollup config with it.
  const g0 = await jsonRpc<{ hash: Hash }>(ours.httpUrl, "eth_getBlockByNumber", ["0x0", false]);
  const checked = async (name: string, opts: OpGethOptions = {}): Promise<OpGeth> => {
    const p = await el(name, opts);
    const g = await jsonRpc<{ hash: Hash }>(p.httpUrl, "eth_getBlockByNumber", ["0x0", false]);
    if (g.hash !== g0.hash) throw new Error(`two op-geth disagree on the genesis: ${g0.hash} / ${g.hash} (${name})`);
    return p;
  };
  const theirs = await checked("geth-op-node");
  const cfg: RollupConfig = {
    ...chain.rollupConfig,
    genesis: { ...chain.rollupConfig.genesis, l2: { hash: g0.hash, number: 0 } },
  };
  const rollupPath = join(dir, "rollup-op-geth.json");
  writeFileSync(rollupPath, rollupConfigJson(cfg));
  return { ours, theirs, cfg, rollupPath, jwtPath, el: checked };
}

/**
 * op-node as the chain's sequencer: L1 confirmations 0 for its sequencer and its own derivation (the supernode's
 * verifier default), so both follow the newest L1 blocks.
 */
export const OP_NODE_SEQUENCER_ARGS: readonly string[] = [
  "--sequencer.enabled",
  "--sequencer.l1-confs",
  "0",
  "--verifier.l1-confs",
  "0",
];

/**
 * The devnet of an op-node case (its `stop` pushed onto `stops`): chain `chainId` (variant B, one-second L1 and L2
 * blocks, `forkOffsets` or every fork at genesis, `seqWindowSize` or the devnet's), batches in `dataMode` (the
 * devnet's own batcher is not started), the beacon API op-node's beacon client needs (config/spec and blobs by slot, which anvil's own endpoint lacks);
 * and the chain's op-geth pair.
 */
export async function startOpNodeDevnet(
  dir: string,
  stops: Array<() => Promise<void>>,
  o: {
    chainId: bigint;
    dataMode: DataMode;
    forkOffsets?: Partial<Record<Fork, number | undefined>> | undefined;
    seqWindowSize?: number | undefined;
  },
): Promise<{ devnet: Devnet; pair: OpGethPair }> {
  const devnet = await startDevnet({
    dir,
    chains: [
      {
        chainId: o.chainId,
        variant: "b",
        ...(o.forkOffsets === undefined ? {} : { forkOffsets: o.forkOffsets }),
        ...(o.seqWindowSize === undefined ? {} : { seqWindowSize: o.seqWindowSize }),
      },
    ],
    l1BlockTimeSec: 1,
    l2BlockTimeSec: 1,
    dataMode: o.dataMode,
    l1BeaconApi: true,
  });
  stops.push(() => devnet.stop());
  return { devnet, pair: await startOpGethPair(devnet, o.chainId, dir, stops) };
}

/**
 * op-node's flags every case shares: it trusts L1 (`--l1.trustrpc`: no header or transactions-root checks) and
 * fetches receipts per transaction (`--l1.rpckind basic`). With `asSupernode` it does the work our verifier does, for
 * the CPU comparison: every L1 answer checked and receipts by `eth_getBlockReceipts` (op-node's own defaults), L1's
 * safe and finalized blocks read at every L1 poll (`--l1.epoch-poll-interval`, default 6m24s, set to the 1 s poll
 * interval: the supernode's shared L1 client reads the three labels together, and both then finalize as L1 does),
 * and metrics on (the devnet's supernode arguments turn them on).
 */
export async function startOpNode(
  devnet: Devnet,
  dir: string,
  el: OpGeth,
  o: {
    readonly jwtPath: string;
    readonly rollupPath: string;
    readonly logLevel: string;
    readonly asSupernode?: boolean;
  },
  extra: readonly string[],
): Promise<OpNode> {
  const port = await freePort();
  const work =
    o.asSupernode === true
      ? ["--l1.epoch-poll-interval", "1s", "--metrics.enabled", "--metrics.addr", "127.0.0.1"]
      : ["--l1.rpckind", "basic", "--l1.trustrpc"];
  if (o.asSupernode === true) work.push("--metrics.port", String(await freePort()));
  const args = [
    ...["--l1", devnet.l1.rpcUrl, "--l1.beacon", devnet.l1.beaconUrl, ...work],
    ...["--l1.http-poll-interval", "1s", "--l2", el.authUrl, "--l2.jwt-secret", o.jwtPath, "--l2.enginekind", "geth"],
    ...["--rollup.config", o.rollupPath, "--rollup.l1-chain-config", devnet.l1.chainConfigPath],
    ...["--rpc.addr", "127.0.0.1", "--rpc.port", String(port), "--syncmode", "consensus-layer"],
    ...["--safedb.path", join(dir, "op-node-safedb"), "--log.level", o.logLevel, ...extra],
  ];
  const p = startReferenceBinary("op-node", args, dir);
  const url = `http://127.0.0.1:${port}`;
  try {
    await until("op-node's RPC", () => jsonRpc(url, "optimism_version"), 60_000);
  } catch (err) {
    await p.stop();
    throw err;
  }
  return { ...p, url };
}

/** How the supernode of a case runs: `name` names its data dir and log (default "supernode"). */
export type SupernodeRunOptions = {
  readonly jwtPath: string;
  readonly rollupPath: string;
  readonly logLevel: LogLevel;
  readonly name?: string;
};

/** The supernode's arguments for chain `chainId` on `el` (variant B, the pair's rollup config) plus `extra`. */
export function supernodeArgsOn(
  devnet: Devnet,
  dir: string,
  chainId: bigint,
  el: OpGeth,
  o: SupernodeRunOptions,
  extra: readonly string[],
  ports: { readonly rpc: number; readonly metrics: number } = { rpc: 0, metrics: 0 },
): string[] {
  return [
    ...devnetProcessArgs(devnet, {
      dir,
      dataDir: join(dir, o.name ?? "supernode"),
      rpcPort: ports.rpc,
      metricsPort: ports.metrics,
      logLevel: o.logLevel,
    }),
    ...[`--vn.${chainId}.l2`, el.authUrl, `--vn.${chainId}.l2.jwt-secret`, o.jwtPath],
    ...[`--vn.${chainId}.rollup.config`, o.rollupPath, `--vn.${chainId}.l2.enginekind`, "variant_b"],
    ...extra,
  ];
}

/**
 * The supernode of chain `chainId` on `el` in this process, RPC on a free loopback port, its log in
 * `<dir>/<name>.log`; `extra` arguments and `env` (e.g. a sequencer key) are the case's.
 */
export async function startSupernodeOn(
  devnet: Devnet,
  dir: string,
  chainId: bigint,
  el: OpGeth,
  o: SupernodeRunOptions,
  extra: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<Supernode> {
  const loaded = loadConfig(supernodeArgsOn(devnet, dir, chainId, el, o, extra), env);
  if (!loaded.ok) throw new Error(formatIssues(loaded.issues));
  const logPath = join(dir, `${o.name ?? "supernode"}.log`);
  const logger = createLogger({
    level: o.logLevel,
    format: "logfmt",
    color: false,
    destination: { write: (line: string) => appendFileSync(logPath, line) },
  });
  return Supernode.start(loaded.config, { logger, buildChains: buildChainRuntimes, hashing: protocolHashing });
}

/** The devnet's batcher posting `el`'s blocks to L1 (its `stop` pushed onto `stops`). */
export function startBatcher(
  devnet: Devnet,
  el: OpGeth,
  cfg: RollupConfig,
  o: { readonly mode: DataMode; readonly batchType: BatchType },
  stops: Array<() => Promise<void>>,
): void {
  const batcher = new Batcher({
    rollupConfig: cfg,
    l2RpcUrl: el.httpUrl,
    l1: devnet.l1Node.client,
    accountIndex: batcherAccountIndex(0),
    mode: o.mode,
    batchType: o.batchType,
    pollIntervalMs: 1000,
  });
  batcher.start();
  stops.push(() => batcher.stop());
}
