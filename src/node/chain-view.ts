/**
 * What the RPC layer and the supernode activities may see of, and do to, one virtual node. `ChainNode` implements
 * both; tests implement them with plain objects.
 */
import type { Hash } from "../core/types/primitives.js";
import type { BlockId, L2BlockRef, SyncStatus } from "../core/types/block-ref.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import type { ExecutionPayloadEnvelope } from "./ports.js";

export interface OutputAtBlock {
  readonly version: Hash;
  readonly outputRoot: Hash;
  readonly blockRef: L2BlockRef;
  readonly withdrawalStorageRoot: Hash;
  readonly stateRoot: Hash;
}

export interface SafeHeadAtL1 {
  readonly l1Block: BlockId;
  readonly safeHead: BlockId;
}

export interface ChainRpcView {
  syncStatus(): SyncStatus;
  /** Output root (v0) of the canonical L2 block `n` (unsafe blocks too). Throws NOT_FOUND when unknown. */
  outputAtBlock(n: number): Promise<OutputAtBlock>;
  rollupConfig(): RollupConfig;
  /** SafeDB entry at or before L1 block `l1Number`. Throws `not found` when none. */
  safeHeadAtL1Block(l1Number: number): Promise<SafeHeadAtL1>;
  sequencerActive(): boolean;
  /** Canonical L2 block whose timestamp is `ts` (undefined when not yet produced). */
  l2BlockRefByTimestamp(ts: number): Promise<L2BlockRef | undefined>;
  outputAtTimestamp(ts: number): Promise<OutputAtBlock | undefined>;
}

export interface ChainAdminControl {
  /** Starts sequencing on the current unsafe head (optionally checked against `expectedHead`). */
  startSequencer(expectedHead?: Hash): Promise<void>;
  /** Stops sequencing; returns the unsafe head hash to restart from. */
  stopSequencer(): Promise<Hash>;
  /** Forces a derivation-pipeline reset; resolves once the node has taken it. */
  resetDerivationPipeline(): Promise<void>;
  /**
   * `admin_postUnsafePayload`: checks the block hash (error `payload has bad block hash: …`) and queues the
   * payload like a gossiped unsafe block.
   */
  postUnsafePayload(env: ExecutionPayloadEnvelope): Promise<void>;
  /** `admin_setRecoverMode`: sequencer recover mode (no-op without the sequencer). */
  setRecoverMode(on: boolean): Promise<void>;
  /** `admin_setSdmPostExecOptIn`: the sequencer's PostExec (SDM) opt-in; `sequencer is not enabled` without it. */
  setSdmPostExecOptIn(on: boolean): Promise<void>;
  /** `admin_sdmStatus` for the block after the unsafe head; `sequencer is not enabled` without the sequencer. */
  sdmStatus(): Promise<SdmStatus>;
}

/** `admin_sdmStatus` (op-node `apis.SdmStatus`): `activationTime` is Lagoon's time, omitted when unscheduled. */
export interface SdmStatus {
  readonly postExecOptIn: boolean;
  readonly protocolActive: boolean;
  readonly effective: boolean;
  readonly activationTime?: number;
}
