import type { Hash } from "./primitives.js";

/** A block identified by hash and number (`{hash, number}` on the wire). */
export interface BlockId {
  readonly hash: Hash;
  readonly number: number;
}

/** L1 block reference: `hash`, `number`, `parentHash`, `timestamp`. */
export interface L1BlockRef extends BlockId {
  readonly parentHash: Hash;
  readonly timestamp: number;
}

/** L2 block reference: L1 reference fields plus `l1origin` and `sequenceNumber`. */
export interface L2BlockRef extends L1BlockRef {
  readonly l1origin: BlockId;
  readonly sequenceNumber: number;
}

/** `stack_syncStatus` result (spec fields plus the modern `local_safe_l2`, `cross_unsafe_l2`). */
export interface SyncStatus {
  readonly current_l1: L1BlockRef;
  readonly current_l1_finalized: L1BlockRef;
  readonly head_l1: L1BlockRef;
  readonly safe_l1: L1BlockRef;
  readonly finalized_l1: L1BlockRef;
  readonly unsafe_l2: L2BlockRef;
  readonly safe_l2: L2BlockRef;
  readonly finalized_l2: L2BlockRef;
  readonly pending_safe_l2: L2BlockRef;
  readonly queued_unsafe_l2: L2BlockRef;
  readonly engine_sync_target: L2BlockRef;
  readonly local_safe_l2: L2BlockRef;
  readonly cross_unsafe_l2: L2BlockRef;
}
