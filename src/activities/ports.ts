import type { BlockId, SyncStatus } from "../core/types/block-ref.js";
import type { ChainId, Hash } from "../core/types/primitives.js";

/** Output v0 of an L2 block (`{stateRoot, messagePasserStorageRoot, blockHash}` on the wire). */
export interface OutputV0 {
  readonly stateRoot: Hash;
  readonly messagePasserStorageRoot: Hash;
  readonly blockHash: Hash;
}

/** A chain's block at a timestamp with its output and the L1 block at which it became (local-)safe. */
export interface ChainBlockAt {
  readonly l2: BlockId;
  readonly output: OutputV0;
  readonly requiredL1: BlockId;
}

/** What the activities need from one hosted chain (read-only; implemented by the composition root). */
export interface ActivityChainView {
  readonly chainId: ChainId;
  /** Current status; the last good one while the chain restarts; undefined if it never reported one. */
  syncStatus(): Promise<SyncStatus | undefined>;
  /** Health state of the chain (`running`, `degraded`, `stalled`, `failed`, `backoff`, …), for operators. */
  state(): string;
  /** Why the chain is in its state (absent when it is healthy). */
  reason?(): string | undefined;
  /**
   * The optimistic (local-safe) block at `timestamp` with its L1 inclusion, or undefined when not available yet.
   * Throws for real errors (e.g. a timestamp before the chain's genesis).
   */
  optimisticAt(timestamp: number): Promise<ChainBlockAt | undefined>;
  /** The output of the block with this hash (read by hash); undefined when the execution client lacks it. */
  outputAtHash(hash: Hash): Promise<OutputV0 | undefined>;
}
