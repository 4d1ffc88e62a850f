/** The configuration and the ports of one virtual node (`ChainNode`), as the composition root and tests build them. */
import type { Turns } from "../core/async/turns.js";
import type { Clock } from "../core/time/clock.js";
import type { Logger } from "../core/logger.js";
import type { L2BlockRef } from "../core/types/block-ref.js";
import type { NutBundles } from "../protocol/l2/nut-bundle.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import type { AttributesBuilder, DerivationPipeline } from "./derivation/types.js";
import type { HealthThresholds } from "./health.js";
import type { ChainMetrics } from "./metrics.js";
import type {
  BlobSource,
  DenyListPort,
  ExecutionEngine,
  ExecutionPayloadEnvelope,
  L1Source,
  SafeDbPort,
  SequencerStateStore,
  SuperAuthority,
  UnsafeBlockSink,
  UnsafePayloadFeed,
  UnsafeGapFiller,
} from "./ports.js";
import type { SequencerConfig } from "./sequencer/sequencer-driver.js";

export interface ChainNodeConfig {
  readonly rollup: RollupConfig;
  readonly engineKind: "variant_a" | "variant_b";
  readonly syncMode: "consensus-layer" | "execution-layer";
  /** `syncmode.req-resp` (default false): with it, unsafe payloads go through the queue once EL sync is done. */
  readonly syncModeReqResp?: boolean;
  /** `syncmode.offset-el-safe` in L2 blocks: safe/finalized this far behind the tip when EL sync finishes. */
  readonly elSafeOffsetBlocks?: number;
  /** The same as a duration in ms (converted as op-node: ceil(whole seconds / block time)); blocks win if both. */
  readonly syncOffsetElSafeMs?: number;
  /** Bounds of the unsafe-payload queue (defaults: 500 MiB, 16,384 payloads). */
  readonly unsafeQueue?: { readonly maxBytes?: number; readonly maxCount?: number };
  readonly sequencer: SequencerConfig;
  readonly verifierL1Confs: number;
  /** 0 = default. */
  readonly finalityLookback?: number;
  /** How long the loop sleeps when idle (it is also woken by admin calls and new unsafe payloads). */
  readonly idlePollMs?: number;
  /**
   * Wait before the loop's first step (the composition root staggers many chains' first resets so they do not all
   * run at once while the chains' RPC starts serving, docs/performance.md). Default 0.
   */
  readonly startDelayMs?: number;
  /** Max derivation steps per loop iteration before yielding. */
  readonly maxStepsPerTick?: number;
  /** Chains in the interop dependency set (default 1): > 1 wraps the Lagoon bundle in its two interop deposits. */
  readonly dependencySetSize?: number;
  /** The Karst and Lagoon NUT bundles (config/nuts, loaded by the composition root); needed at their activation. */
  readonly nutBundles?: NutBundles;
  /** When failures make the node `degraded` and no progress makes it `stalled` (see node/health.ts). */
  readonly health?: Partial<HealthThresholds>;
}

export interface ChainNodeDeps {
  readonly l1: L1Source;
  readonly blobs?: BlobSource | undefined;
  readonly engine: ExecutionEngine;
  readonly safeDb?: SafeDbPort | undefined;
  readonly sink?: UnsafeBlockSink | undefined;
  /** Payloads from P2P, taken while the node runs. */
  readonly unsafeFeed?: UnsafePayloadFeed | undefined;
  /** Req-resp gap filling over P2P (used with `syncmode.req-resp`). */
  readonly gapFiller?: UnsafeGapFiller | undefined;
  readonly sequencerStore?: SequencerStateStore | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: ChainMetrics | undefined;
  /** Builds the chain's derivation pipeline (given the node's attributes builder). */
  readonly createPipeline: () => DerivationPipeline;
  readonly attributesBuilder: AttributesBuilder;
  /** L2 block ref of an execution payload (decodes the L1-info deposit). */
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
  /** Fair event-loop turns shared by every chain: each driver step waits for one (core/async/turns.ts). */
  readonly turns?: Turns | undefined;
  /** Interop: safe and finalized follow the supernode's verification after activation (absent = local-safe). */
  readonly superAuthority?: SuperAuthority | undefined;
  /** Interop: the chain's persisted deny list (`chain-<id>/denylist/`); needed to invalidate blocks. */
  readonly denyList?: DenyListPort | undefined;
}
