/**
 * Devnet orchestration: one anvil L1 with the rollup contracts of every chain, one simulated execution client per
 * chain (variant A or B), the files a rollup node needs (rollup.json, L1 chain config, JWT secret) and one batcher
 * per chain (started on demand). The `supernode-devnet` command composes this with the supernode itself.
 *
 * Layout of `dir`:
 *   l1-chain-config.json
 *   devnet.json                      summary: URLs (execution clients' HTTP and WebSocket), chain ids, file paths,
 *                                    the dev accounts with their keys
 *   chain-<id>/rollup.json
 *   chain-<id>/genesis.json          the L2 genesis in the go-ethereum format, for an OP execution client (op-geth)
 *   chain-<id>/jwt.hex
 */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TransactionReceipt } from "viem";
import { type Address, type Clock, type Hash, type Logger, silentLogger, systemClock } from "supernode/core";
import { FORKS, type Fork, type RollupConfig } from "supernode/protocol";
import { Batcher, type DataMode } from "./batcher/batcher.js";
import { warmUpAnvilKzg } from "./l1/kzg-warm-up.js";
import type { BatchType } from "./batcher/channel-builder.js";
import { DEFAULT_DEVNET_FORKS, writeJwtSecret, writeL1ChainConfig, writeRollupConfig } from "./config.js";
import { l2GenesisJson } from "./l2-genesis.js";
import { forksFromRollupConfig, type SimulatedElOptions, SimulatedExecutionClient } from "./el/index.js";
import { elPorts, startOnPorts } from "./el-ports.js";
import {
  ANVIL_ACCOUNT_COUNT,
  devAccountsSummary,
  batcherAccountIndex,
  DERIVED_ACCOUNT_BALANCE_WEI,
  devAccount,
  fundedByAnvil,
} from "./l1/dev-accounts.js";
import { type DepositRequest, DevnetL1, type L1ChainContracts } from "./l1/l1.js";

/** What each devnet execution client serves over HTTP and WebSocket (trace_* on variant A only). */
const DEVNET_EL_API = ["eth", "net", "web3", "txpool", "debug", "trace"];

export interface DevnetChainSpec {
  readonly chainId: bigint | number;
  readonly variant: "a" | "b";
  /** Fork activation as seconds after L2 genesis (default: `DEFAULT_DEVNET_FORKS` at 0); `undefined` = never. */
  readonly forkOffsets?: Partial<Record<Fork, number | undefined>>;
  /** Sequencing window in L1 blocks (default 3600); small values let tests reach forced empty batches quickly. */
  readonly seqWindowSize?: number;
  /** Overrides the devnet-wide data mode / batch type for this chain's batcher. */
  readonly dataMode?: DataMode;
  readonly batchType?: BatchType;
  /** Fixed loopback ports of this chain's execution client (default: from `DevnetOptions.elPortBase`). */
  readonly httpPort?: number;
  readonly authPort?: number;
  readonly wsPort?: number;
  /** What the chain's EL does on a forkchoice update to a canonical ancestor (`SimulatedElOptions`; default reorg). */
  readonly ancestorForkchoice?: "reorg" | "keep-head";
}

export interface DevnetOptions {
  /** Directory for configs and secrets (created). */
  readonly dir: string;
  readonly chains: readonly DevnetChainSpec[];
  readonly l1ChainId?: number;
  /** Serve the L1 beacon API as a consensus client does (DevnetL1Options.beaconApi). Default false. */
  readonly l1BeaconApi?: boolean;
  /** L1 block time; 0 = mine on every transaction. Default 2. */
  readonly l1BlockTimeSec?: number;
  /**
   * Hold L1 interval mining from the L1 genesis until `resumeL1Mining()`, so that nothing is mined while the
   * devnet starts and a test can place the next L1 blocks at chosen timestamps (fork-activation tests). Default false.
   */
  readonly holdL1AtGenesis?: boolean;
  readonly l2BlockTimeSec?: number;
  /** Anvil slots per epoch (safe = head − n, finalized = head − 2n). Default 2. */
  readonly l1SlotsInAnEpoch?: number;
  readonly dataMode?: DataMode;
  readonly batchType?: BatchType;
  readonly batcherPollIntervalMs?: number;
  /** A batcher transaction still unmined after this long counts as dropped and is posted again (default 12 s). */
  readonly batcherPendingTimeoutMs?: number;
  /** Close a batcher channel after this many L1 blocks (default 0: every poll posts what it has). */
  readonly maxChannelDurationL1Blocks?: number;
  /** Namespaces served on each EL's HTTP port (default eth, net, web3, txpool, debug, trace; trace on variant A). */
  readonly elHttpApi?: readonly string[];
  /**
   * Fixed execution-client ports from this base (el-ports.ts: chain #k on base + 10·k, WebSocket + 1, Engine API
   * + 2; taken ports fall back to free ones); default 0 = free ports (tests).
   */
  readonly elPortBase?: number;
  /** Balance of each anvil dev account on every L2 at genesis (default 10_000 ETH). */
  readonly l2DevBalanceWei?: bigint;
}

export interface DevnetDeps {
  readonly logger?: Logger;
  readonly clock?: Clock;
}

export interface DevnetChain {
  readonly chainId: bigint;
  readonly variant: "a" | "b";
  readonly el: { readonly httpUrl: string; readonly authUrl: string; readonly wsUrl: string | undefined };
  readonly client: SimulatedExecutionClient;
  /** The genesis the chain's execution client started from (another client of the chain starts from the same). */
  readonly elGenesis: SimulatedElOptions["genesis"];
  readonly jwtSecret: Uint8Array;
  readonly jwtSecretPath: string;
  readonly rollupConfig: RollupConfig;
  readonly rollupConfigPath: string;
  /**
   * The chain's L2 genesis for an OP execution client (`geth init`); such a client's genesis hash differs from the
   * simulated one's, so a rollup config for it takes `genesis.l2.hash` from that client.
   */
  readonly l2GenesisPath: string;
  readonly contracts: L1ChainContracts;
  readonly batcherAddress: Address;
  readonly batcher: Batcher;
}

export interface Devnet {
  readonly l1: {
    readonly rpcUrl: string;
    readonly beaconUrl: string;
    readonly chainId: number;
    readonly chainConfigPath: string;
    readonly genesis: { readonly hash: Hash; readonly number: number; readonly timestamp: number };
  };
  readonly l1Node: DevnetL1;
  readonly chains: readonly DevnetChain[];
  chain(chainId: bigint | number): DevnetChain;
  startBatchers(): void;
  /** Resumes L1 interval mining after `holdL1AtGenesis` (no-op otherwise, or when the L1 block time is 0). */
  resumeL1Mining(): Promise<void>;
  deposit(chainId: bigint | number, req: DepositRequest): Promise<TransactionReceipt>;
  stop(): Promise<void>;
}

export async function startDevnet(opts: DevnetOptions, deps: DevnetDeps = {}): Promise<Devnet> {
  const log = (deps.logger ?? silentLogger).child({ component: "devnet" });
  const clock = deps.clock ?? systemClock;
  if (opts.chains.length === 0) throw new Error("a devnet needs at least one chain");
  const batcherIndices = opts.chains.map((_, i) => batcherAccountIndex(i));
  const ids = opts.chains.map((c) => BigInt(c.chainId));
  if (new Set(ids).size !== ids.length) throw new Error("devnet chain ids must be distinct");
  await mkdir(opts.dir, { recursive: true });
  const l1ChainId = opts.l1ChainId ?? 900;
  const l1 = await DevnetL1.start({
    chainId: l1ChainId,
    blockTimeSec: opts.l1BlockTimeSec ?? 2,
    slotsInAnEpoch: opts.l1SlotsInAnEpoch ?? 2,
    chainIds: ids,
    logger: log,
    ...(opts.l1BeaconApi === true ? { beaconApi: true } : {}),
  });
  const chains: DevnetChain[] = [];
  const stopAll = async (): Promise<void> => {
    for (const c of chains) await c.batcher.stop().catch(() => {});
    for (const c of chains) await c.client.stop().catch(() => {});
    await l1.stop();
  };
  try {
    // batcher accounts past anvil's ten funded ones
    for (const idx of batcherIndices) {
      if (!fundedByAnvil(idx)) await l1.anvil.setBalance(devAccount(idx).address, DERIVED_ACCOUNT_BALANCE_WEI);
    }
    if (opts.chains.some((c) => (c.dataMode ?? opts.dataMode) === "blobs")) {
      // Anvil loads its KZG setup on the first blob transaction and answers nothing meanwhile: do it now, before
      // any client polls the L1.
      const t0 = clock.nowMs();
      await warmUpAnvilKzg(l1.anvil);
      log.info({ ms: clock.nowMs() - t0 }, "anvil loaded its KZG setup (blob data mode)");
    }
    const l1BlockTimeSec = opts.l1BlockTimeSec ?? 2;
    const holdL1 = opts.holdL1AtGenesis === true && l1BlockTimeSec > 0;
    if (holdL1) await l1.anvil.setIntervalMining(0);
    const head = await l1.anvil.getBlock("latest");
    const l1Genesis = {
      hash: head.hash,
      number: Number(BigInt(head.number)),
      timestamp: Number(BigInt(head.timestamp)),
    };
    const chainConfigPath = join(opts.dir, "l1-chain-config.json");
    await writeL1ChainConfig(chainConfigPath, l1ChainId, "prague");
    const alloc: Record<string, bigint> = {};
    // the dev accounts of devAccountsSummary(): funded on every L2 at genesis
    for (let i = 0; i < ANVIL_ACCOUNT_COUNT; i++) alloc[devAccount(i).address] = opts.l2DevBalanceWei ?? 10n ** 22n;

    for (const [i, spec] of opts.chains.entries()) {
      const chainId = BigInt(spec.chainId);
      const chainDir = join(opts.dir, `chain-${chainId}`);
      await mkdir(chainDir, { recursive: true });
      const l2Time = l1Genesis.timestamp;
      const forks: Partial<Record<Fork, number>> = {};
      const offsets = spec.forkOffsets ?? Object.fromEntries(DEFAULT_DEVNET_FORKS.map((f) => [f, 0]));
      for (const f of FORKS) {
        const off = offsets[f];
        // Interop at genesis is the genesis time itself: its activation timestamp is what the message rules use.
        if (off !== undefined) forks[f] = off === 0 && f !== "lagoon" ? 0 : l2Time + off;
      }
      const jwtSecret = new Uint8Array(randomBytes(32));
      const jwtSecretPath = await writeJwtSecret(chainDir, jwtSecret);
      const gasLimit = 30_000_000n;
      const batcherIdx = batcherIndices[i] as number;
      // The EL's fork schedule comes from the same table as the rollup config.
      const provisional = await writeRollupConfig(join(chainDir, "rollup.json"), {
        l2ChainId: chainId,
        l1ChainId,
        l1Genesis,
        l2Genesis: { hash: `0x${"00".repeat(32)}`, timestamp: l2Time },
        batcher: devAccount(batcherIdx).address,
        blockTimeSec: opts.l2BlockTimeSec ?? 2,
        gasLimit,
        forks,
        ...(spec.seqWindowSize === undefined ? {} : { seqWindowSize: spec.seqWindowSize }),
      });
      const elGenesis = { timestamp: l2Time, gasLimit, forks: forksFromRollupConfig(provisional), alloc };
      const base = elPorts(opts.elPortBase ?? 0, i);
      const ports = { http: spec.httpPort ?? base.http, ws: spec.wsPort ?? base.ws, auth: spec.authPort ?? base.auth };
      const client = await startOnPorts(
        ports,
        (p) =>
          SimulatedExecutionClient.start(
            {
              variant: spec.variant,
              chainId,
              genesis: elGenesis,
              http: { port: p.http, api: opts.elHttpApi ?? DEVNET_EL_API, corsDomain: ["*"] },
              ws: { port: p.ws },
              authrpc: { port: p.auth, jwtSecret },
              ...(spec.ancestorForkchoice === undefined ? {} : { ancestorForkchoice: spec.ancestorForkchoice }),
            },
            { logger: log, clock },
          ),
        (err) =>
          log.warn(
            { chain: Number(chainId), ports, err: err.message },
            "execution client ports taken: free ports used",
          ),
      );
      const rollupConfigPath = join(chainDir, "rollup.json");
      const rollupConfig = await writeRollupConfig(rollupConfigPath, {
        l2ChainId: chainId,
        l1ChainId,
        l1Genesis,
        l2Genesis: { hash: client.genesisHash, timestamp: client.genesisBlock.timestamp },
        batcher: devAccount(batcherIdx).address,
        blockTimeSec: opts.l2BlockTimeSec ?? 2,
        gasLimit,
        forks,
        ...(spec.seqWindowSize === undefined ? {} : { seqWindowSize: spec.seqWindowSize }),
      });
      const l2GenesisPath = join(chainDir, "genesis.json");
      await writeFile(l2GenesisPath, `${JSON.stringify(l2GenesisJson(rollupConfig, alloc), null, 2)}\n`);
      const batcher = new Batcher({
        rollupConfig,
        l2RpcUrl: client.httpUrl,
        l1: l1.client,
        accountIndex: batcherIdx,
        mode: spec.dataMode ?? opts.dataMode ?? "calldata",
        batchType: spec.batchType ?? opts.batchType ?? "singular",
        maxChannelDurationL1Blocks: opts.maxChannelDurationL1Blocks ?? 0,
        pollIntervalMs: opts.batcherPollIntervalMs ?? 1000,
        ...(opts.batcherPendingTimeoutMs === undefined ? {} : { pendingTimeoutMs: opts.batcherPendingTimeoutMs }),
        logger: log,
      });
      chains.push({
        chainId,
        variant: spec.variant,
        el: { httpUrl: client.httpUrl, authUrl: client.authUrl, wsUrl: client.wsUrl },
        client,
        elGenesis,
        jwtSecret,
        jwtSecretPath,
        rollupConfig,
        rollupConfigPath,
        l2GenesisPath,
        contracts: l1.chain(chainId),
        batcherAddress: devAccount(batcherIdx).address,
        batcher,
      });
    }
    const summary = {
      l1: {
        rpcUrl: l1.rpcUrl,
        beaconUrl: l1.beaconUrl,
        chainId: l1ChainId,
        chainConfig: chainConfigPath,
        genesis: l1Genesis,
      },
      chains: chains.map((c) => ({
        chainId: Number(c.chainId),
        variant: c.variant,
        el: c.el,
        jwtSecret: c.jwtSecretPath,
        rollupConfig: c.rollupConfigPath,
        batcher: c.batcherAddress,
        depositContract: c.contracts.depositContract,
        systemConfig: c.contracts.systemConfig,
      })),
    };
    const devAccounts = devAccountsSummary(opts.l2DevBalanceWei ?? 10n ** 22n);
    await writeFile(join(opts.dir, "devnet.json"), `${JSON.stringify({ ...summary, devAccounts }, null, 2)}\n`);
    log.info({ l1: l1.rpcUrl, chains: chains.map((c) => Number(c.chainId)) }, "devnet started");
    let batchersStarted = false;
    let l1Held = holdL1;
    return {
      l1: { rpcUrl: l1.rpcUrl, beaconUrl: l1.beaconUrl, chainId: l1ChainId, chainConfigPath, genesis: l1Genesis },
      l1Node: l1,
      chains,
      chain(chainId) {
        const c = chains.find((x) => x.chainId === BigInt(chainId));
        if (c === undefined) throw new Error(`no devnet chain ${chainId}`);
        return c;
      },
      startBatchers() {
        if (batchersStarted) return;
        batchersStarted = true;
        for (const c of chains) c.batcher.start();
      },
      async resumeL1Mining() {
        if (!l1Held) return;
        l1Held = false;
        await l1.anvil.setIntervalMining(l1BlockTimeSec);
      },
      deposit(chainId, req) {
        return l1.chain(chainId).deposit(req);
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
