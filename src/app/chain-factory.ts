import { outputV0ByHash } from "../node/output.js";
import { join } from "node:path";
import type { ChainBlockAt } from "../activities/ports.js";
import type { ChainConfig, SupernodeConfig } from "../config/types.js";
import { loadNutBundlesFor } from "../config/nut-bundles.js";
import { staggerOffsetMs } from "../core/async/stagger.js";
import { FairTurns, type Turns } from "../core/async/turns.js";
import type { BlockId, L2BlockRef } from "../core/types/block-ref.js";
import { ZERO_HASH } from "../core/types/primitives.js";
import { DenyList } from "../io/db/deny-list.js";
import { SafeDB } from "../io/db/safe-db.js";
import { EngineRpcClient } from "../io/engine/engine-rpc-client.js";
import { L1Client } from "../io/l1/l1-client.js";
import { createBeaconMetrics } from "../io/beacon/metrics.js";
import { createL1Metrics } from "../io/l1/metrics.js";
import { BeaconClient } from "../io/beacon/beacon-client.js";
import { responseTooLargeCounter } from "../io/common/response-limit.js";
import type { ChainNode } from "../node/chain-node.js";
import { createChainNode } from "../node/create.js";
import type { NutBundles } from "../protocol/l2/nut-bundle.js";
import { createChainMetrics, payloadIdPredictionCounter } from "./chain-metrics.js";
import type { BlobSource, SafeDbPort } from "../node/ports.js";
import { fileSequencerStateStore } from "../io/sequencer-state-file.js";
import { InvalidParamsError } from "../rpc/errors.js";
import { type MethodTable, mergeMethodTables } from "../rpc/method-table.js";
import { createChainRpcMethods } from "../rpc/namespaces/stack.js";
import { createUpstreamShapeMethods, withUpstreamNames } from "../rpc/namespaces/upstream.js";
import type { ChainInteropAccess, ChainService, ChainServiceFactory } from "./chain-service.js";
import type { ChainP2PRuntime, L1StateSource } from "./p2p-wiring.js";
import { UnsafePayloadInbox } from "./unsafe-inbox.js";
import { builtinMethods } from "./root-methods.js";
import type { ChainBuildContext, ChainRuntimes } from "./supernode.js";

/**
 * The real chain composition: one shared L1 client (and beacon client) for every chain; per chain, an Engine API
 * client to its execution client and its SafeDB under `<data-dir>/chain-<id>/`, wired into a fresh `ChainNode`
 * on every (re)start.
 */
export interface SharedResources {
  readonly l1: L1StateSource;
  readonly blobs: BlobSource | undefined;
}

export interface BuildChainsOptions {
  /** Override the shared resources (tests); default: an L1Client on `config.l1`. */
  readonly shared?: SharedResources;
  /** Driver idle poll (ms); default the node's own. */
  readonly idlePollMs?: number;
}

export function buildChainRuntimesWith(opts: BuildChainsOptions = {}) {
  return async (config: SupernodeConfig, ctx: ChainBuildContext): Promise<ChainRuntimes> => {
    let l1Client: L1Client | undefined;
    let shared = opts.shared;
    // One event loop for every chain: steps and I/O completions take fair turns of it (docs/performance.md).
    const turns = new FairTurns();
    if (shared === undefined) {
      l1Client = L1Client.create(
        {
          url: config.l1,
          pollIntervalMs: config.l1HttpPollIntervalMs,
          maxConcurrency: 10,
          cacheSize: 1000,
          ...(config.l1MaxResponseBytes === undefined ? {} : { maxResponseBytes: config.l1MaxResponseBytes }),
        },
        {
          clock: ctx.clock,
          logger: ctx.logger.child({ module: "l1" }),
          metrics: createL1Metrics(ctx.metrics.registry),
          turns,
        },
      );
      l1Client.start();
      const beaconTooLarge = responseTooLargeCounter(ctx.metrics.registry).labels({
        upstream: "beacon",
        chain_id: "supernode",
      });
      const beaconMetrics = config.l1Beacon === undefined ? undefined : createBeaconMetrics(ctx.metrics.registry);
      const blobs =
        config.l1Beacon === undefined
          ? undefined
          : BeaconClient.create(
              {
                url: config.l1Beacon,
                fallbacks: config.l1BeaconFallbacks,
                ...(config.l1BeaconMaxResponseBytes === undefined
                  ? {}
                  : { maxResponseBytes: config.l1BeaconMaxResponseBytes }),
              },
              {
                clock: ctx.clock,
                logger: ctx.logger.child({ module: "beacon" }),
                onResponseTooLarge: () => beaconTooLarge.inc(),
                ...(beaconMetrics === undefined ? {} : { onError: beaconMetrics.onError }),
              },
            );
      if (blobs === undefined)
        ctx.logger.info({}, "no beacon endpoint configured; blob-carried batches cannot be read");
      shared = { l1: l1Client, blobs };
    }
    const factories = new Map<bigint, ChainServiceFactory>();
    const p2pHosts: Promise<ChainP2PRuntime>[] = [];
    const count = config.chainConfigs.length;
    // Karst / Lagoon NUT bundles: read and checked once, at start (a missing or altered bundle stops the start).
    const nutBundles = loadNutBundlesFor(config.chainConfigs.map((c) => c.rollup));
    for (const [index, chain] of config.chainConfigs.entries()) {
      factories.set(
        chain.chainId,
        chainServiceFactory(chain, shared, {
          ...ctx,
          // Chains seal (and so derive and write) at staggered moments of their slot, not all at once (docs/performance.md).
          sealingStaggerMs: staggerOffsetMs(index, count, chain.rollup.block_time * 1000),
          enableAdmin: config.rpc.enableAdmin,
          idlePollMs: opts.idlePollMs,
          dependencySetSize: config.dependencySet?.chainIds.length ?? config.chains.length,
          nutBundles,
          // the chain's own lane of the shared turns: urgent while it inserts a gossiped block
          turns: turns.lane(),
          p2pHosts,
        }),
      );
    }
    return {
      factories,
      l1: shared.l1,
      close: async () => {
        await Promise.allSettled(p2pHosts.map(async (h) => (await h).stop()));
        await l1Client?.stop();
      },
    };
  };
}

/** The production builder. */
export const buildChainRuntimes = buildChainRuntimesWith();

interface ChainCtx extends ChainBuildContext {
  readonly enableAdmin: boolean;
  readonly idlePollMs: number | undefined;
  readonly dependencySetSize: number;
  readonly nutBundles: NutBundles;
  readonly turns: Turns;
  /** The chain's place in the stagger of the hosted chains: added to its sealing duration, and its first step waits it. */
  readonly sealingStaggerMs: number;
  /** The chains' P2P hosts (started with a chain's first instance, stopped with the runtimes). */
  readonly p2pHosts: Promise<ChainP2PRuntime>[];
}

function chainServiceFactory(chain: ChainConfig, shared: SharedResources, ctx: ChainCtx): ChainServiceFactory {
  const id = chain.chainId.toString(10);
  const logger = ctx.logger.child({ chain: id });
  const metrics = createChainMetrics(ctx.metrics.registry, chain.chainId);
  const predictions = payloadIdPredictionCounter(ctx.metrics.registry, chain.chainId);
  const engineTooLarge = responseTooLargeCounter(ctx.metrics.registry).labels({ upstream: "engine", chain_id: id });
  // Built once per chain, in dependency order: the execution client, the inbox of payloads from P2P, the P2P host
  // (it serves blocks from the client and delivers to the inbox); each node instance takes from the inbox.
  const engine = EngineRpcClient.create(
    {
      url: chain.l2,
      jwtSecret: chain.jwtSecret,
      kind: chain.engineKind,
      timeoutMs: chain.l2EngineRpcTimeoutMs,
      ...(chain.l2MaxResponseBytes === undefined ? {} : { maxResponseBytes: chain.l2MaxResponseBytes }),
      rollupConfig: chain.rollup,
    },
    {
      clock: ctx.clock,
      logger: logger.child({ module: "engine" }),
      turns: ctx.turns,
      onRequest: (e) => {
        if (e.outcome === "too_large") engineTooLarge.inc();
      },
      onPayloadIdPrediction: (outcome) => predictions.inc({ outcome }),
    },
  );
  const inbox = new UnsafePayloadInbox();
  let p2p: Promise<ChainP2PRuntime> | undefined;
  let identified = false;
  return async (attempt) => {
    if (!chain.p2p.disabled && p2p === undefined) {
      const ends = { inbox, blocks: engine };
      // Loaded only when a chain has P2P: libp2p and its stack are ~50 MB of a verifier's RSS (docs/performance.md).
      p2p = import("./p2p-wiring.js").then((m) =>
        m.startChainP2P(chain, shared.l1, ends, { clock: ctx.clock, logger, registry: ctx.metrics.registry }),
      );
      ctx.p2pHosts.push(p2p);
    }
    const host = p2p === undefined ? undefined : await p2p;
    // Nothing on the way to serving the chain's RPC waits for its EL or disk (docs/performance.md): the identification
    // (once per chain; it only logs the engine-kind mismatch and variant B end-of-support warnings and never throws)
    // runs beside the node, and the SafeDB and the deny list open in the background (the node waits for them).
    if (!identified) {
      identified = true;
      void engine.identify();
    }
    const safeDb = SafeDB.openInBackground(chain.safedbPath, { logger });
    const superAuthority = ctx.superAuthorityFor?.(chain.chainId);
    let denyList: DenyList | undefined;
    try {
      // Interop: the chain's deny list (`chain-<id>/denylist/`), opening in the background as the SafeDB does (the
      // node loads it before it inserts or builds anything).
      if (superAuthority !== undefined)
        denyList = DenyList.openInBackground(join(chain.dataDir, "denylist"), { logger });
      const node = await createChainNode(
        {
          rollup: chain.rollup,
          engineKind: chain.engineKind,
          syncMode: chain.syncMode,
          syncModeReqResp: chain.syncModeReqResp,
          syncOffsetElSafeMs: chain.syncOffsetElSafeMs,
          sequencer: {
            ...chain.sequencer,
            sealingDurationMs: chain.sequencer.sealingDurationMs + ctx.sealingStaggerMs,
          },
          verifierL1Confs: chain.verifierL1Confs,
          finalityLookback: chain.finalityLookback,
          dependencySetSize: ctx.dependencySetSize,
          nutBundles: ctx.nutBundles,
          startDelayMs: ctx.sealingStaggerMs,
          ...(ctx.idlePollMs === undefined ? {} : { idlePollMs: ctx.idlePollMs }),
        },
        {
          l1: shared.l1,
          blobs: shared.blobs,
          engine,
          safeDb,
          sequencerStore: fileSequencerStateStore(join(chain.dataDir, "sequencer.json")),
          sink: host?.sink,
          unsafeFeed: host === undefined ? undefined : inbox,
          gapFiller: host?.gapFiller,
          clock: ctx.clock,
          logger,
          metrics,
          turns: ctx.turns,
          superAuthority,
          denyList,
        },
      );
      logger.debug({ attempt }, "virtual node created");
      return nodeService(node, { safeDb, denyList }, chain, ctx, host, engine);
    } catch (err) {
      await safeDb.close();
      await denyList?.close();
      throw err;
    }
  };
}

/**
 * A chain's RPC table: its `stack`/`admin` methods plus `stackp2p_*` only when its P2P host runs, each also under
 * its upstream name (`optimism_*`, `opp2p_*`; see rpc/namespaces/upstream.ts).
 */
export function chainMethodTable(chain: MethodTable, p2p: MethodTable | undefined, enableAdmin: boolean): MethodTable {
  const own = p2p === undefined ? chain : mergeMethodTables(chain, p2p);
  return builtinMethods(withUpstreamNames(own), { version: "", enableAdmin });
}

function nodeService(
  node: ChainNode,
  { safeDb, denyList }: { safeDb: SafeDB; denyList: DenyList | undefined },
  chain: ChainConfig,
  ctx: ChainCtx,
  p2p: ChainP2PRuntime | undefined,
  engine: EngineRpcClient,
): ChainService {
  let exited: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;
  const methods = chainMethodTable(
    mergeMethodTables(createChainRpcMethods(node, { version: ctx.version }), createUpstreamShapeMethods(node)),
    p2p?.methods,
    ctx.enableAdmin,
  );
  return {
    methods,
    get exited() {
      exited ??= node.done();
      return exited;
    },
    async start(signal) {
      await node.start(signal);
    },
    stop() {
      stopped ??= (async () => {
        try {
          await node.stop();
        } finally {
          await safeDb.close();
          await denyList?.close();
        }
      })();
      return stopped;
    },
    async syncStatus() {
      return node.syncStatus();
    },
    health() {
      return node.health();
    },
    async blockAtTimestamp(ts) {
      return blockAt(node, safeDb, chain, ts);
    },
    outputAtHash: (hash) => outputV0ByHash(chain.rollup, engine, hash),
    deniedOutputAt(height) {
      const last = denyList?.atHeight(height).at(-1);
      if (last === undefined) return undefined;
      const { stateRoot, messagePasserStorageRoot, payloadHash } = last;
      return { stateRoot, messagePasserStorageRoot, blockHash: payloadHash };
    },
    async firstSafeTimestamp() {
      const first = await safeDb.firstEntry();
      if (first === undefined) return undefined;
      const g = chain.rollup.genesis;
      return g.l2_time + (first.safeHead.number - g.l2.number) * chain.rollup.block_time;
    },
    interop: interopAccess(node, engine),
  };
}

/**
 * The local-safe block at `ts` with its output and the earliest L1 block at which it was safe (binary search over
 * the SafeDB, whose safe heads are monotone in L1). Undefined while it is not local-safe or not yet recorded.
 */
export async function blockAt(
  node: ChainNode,
  safeDb: Pick<SafeDbPort, "safeHeadAtL1Block">,
  chain: Pick<ChainConfig, "rollup" | "chainId">,
  ts: number,
): Promise<ChainBlockAt | undefined> {
  const g = chain.rollup.genesis;
  if (ts < g.l2_time) {
    throw new InvalidParamsError(`timestamp ${ts} is before the genesis time ${g.l2_time} of chain ${chain.chainId}`);
  }
  const status = node.syncStatus();
  const n = g.l2.number + Math.floor((ts - g.l2_time) / chain.rollup.block_time);
  if (n > status.local_safe_l2.number) return undefined;
  const out = await node.outputAtBlock(n);
  let requiredL1: BlockId | undefined;
  if (n === g.l2.number) {
    // the genesis is safe at L1 "block 0" (zero hash), not at genesis.l1: the chain's contracts may predate
    // genesis.l1, so dispute games may anchor to earlier L1 heads (op-supernode's L1AtSafeHead)
    requiredL1 = { hash: ZERO_HASH, number: 0 };
  } else {
    let lo = g.l1.number;
    let hi =
      status.safe_l1.number > 0 ? Math.max(status.safe_l1.number, status.current_l1.number) : status.current_l1.number;
    const top = await safeDb.safeHeadAtL1Block(hi);
    if (top === undefined || top.safeHead.number < n) return undefined;
    requiredL1 = top.l1Block;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const e = await safeDb.safeHeadAtL1Block(mid);
      if (e !== undefined && e.safeHead.number >= n) {
        requiredL1 = e.l1Block;
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
  }
  return {
    l2: { hash: out.blockRef.hash, number: out.blockRef.number },
    output: {
      stateRoot: out.stateRoot,
      messagePasserStorageRoot: out.withdrawalStorageRoot,
      blockHash: out.blockRef.hash,
    },
    requiredL1,
  };
}

/**
 * The interop activity's access to a running chain: block logs from its EL; invalidation, engine rewinds and deny
 * list pruning through the chain's node (its driver loop runs them).
 */
export function interopAccess(
  node: ChainNode,
  engine: Pick<EngineRpcClient, "l2BlockRefByHash" | "l2BlockRefByNumber" | "blockReceipts" | "payloadByHash">,
): ChainInteropAccess {
  const withReceipts = async (ref: L2BlockRef | undefined) => {
    if (ref === undefined) return undefined;
    const receipts = await engine.blockReceipts(ref.hash);
    if (receipts === undefined) return undefined;
    return {
      block: { hash: ref.hash, number: ref.number, parentHash: ref.parentHash, timestamp: ref.timestamp },
      receipts,
    };
  };
  return {
    async blockLogs(hash) {
      return withReceipts(await engine.l2BlockRefByHash(hash));
    },
    async blockLogsAt(n) {
      return withReceipts(await engine.l2BlockRefByNumber(n));
    },
    payloadByHash(hash) {
      return engine.payloadByHash(hash);
    },
    invalidate(head, decisionTimestamp, payloads) {
      return node.invalidateBlock({
        height: head.number,
        payloadHash: head.hash,
        decisionTimestamp,
        stateRoot: head.stateRoot,
        messagePasserStorageRoot: head.messagePasserStorageRoot,
        ...(head.txIndices === undefined ? {} : { txIndices: head.txIndices }),
        ...(payloads === undefined ? {} : { payloads }),
      });
    },
    rewindEngine(target, payload) {
      return node.rewindEngineTo(target, payload);
    },
    async pruneDenied(timestamp) {
      await node.pruneDenied(timestamp);
    },
  };
}
