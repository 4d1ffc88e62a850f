import type { BlockId } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import type { ExecutionPayloadEnvelope } from "../engine-api-types.js";

/** A block that failed verification, with its output (kept for super roots of the replaced block). */
/**
 * Lifecycle of the interop activity (`supernode_interop_activity_state`; here so that the metrics, which may not
 * import the activity, list the same states).
 */
export const INTEROP_STATES = [
  "starting",
  "awaiting_safedb",
  "backfilling",
  "waiting",
  "verifying",
  /** A write to the interop store failed (a full disk); rounds are retried until one succeeds. */
  "degraded",
  /** No timestamp committed for the stall threshold (`StallWatch`): logged once per phase it is stuck in. */
  "stalled",
  "halted",
  "stopped",
] as const;
export type InteropState = (typeof INTEROP_STATES)[number];

export interface InvalidHead extends BlockId {
  readonly stateRoot: Hash;
  readonly messagePasserStorageRoot: Hash;
  /**
   * Positions in the block of the transactions whose executing messages failed (sorted, no duplicates): only these
   * are denied for good, the block's other transactions may be included again. Absent in transitions written by
   * earlier versions: then every non-deposit transaction of the block is denied.
   */
  readonly txIndices?: readonly number[];
}

/** Outcome of verifying every chain's block at one timestamp (read-only). */
export interface VerificationResult {
  readonly timestamp: number;
  readonly l1Inclusion?: BlockId;
  /** Chain ID (decimal) → the block at the timestamp. */
  readonly l2Heads: Readonly<Record<string, BlockId>>;
  /** Chain ID (decimal) → a block that failed verification. */
  readonly invalidHeads: Readonly<Record<string, InvalidHead>>;
}

/** A block as the logs store seals it. */
export interface SealedBlock extends BlockId {
  readonly parentHash: Hash;
  readonly timestamp: number;
}

/** What the interop activity committed at one timestamp. */
export interface VerifiedResult {
  readonly timestamp: number;
  readonly l1Inclusion: BlockId;
  /** Chain ID (decimal) → its block at the timestamp. */
  readonly l2Heads: Readonly<Record<string, BlockId>>;
}

/**
 * The full execution payloads an invalidation needs, captured from the chain's execution client when the
 * transition is written: the invalid block (its offending transactions are denied by hash) and its parent (the
 * block the chain rewinds to). Applying the transition reads them from the record, never from the execution client,
 * which may no longer serve a block that left the canonical chain.
 */
export interface InvalidationPayloads {
  readonly invalid: ExecutionPayloadEnvelope;
  readonly parent: ExecutionPayloadEnvelope;
}

/**
 * The write-ahead transition: written before any side effect, cleared with the last one. `payloads` (invalidate,
 * per invalidated chain) and `targets` (rewind, per chain that keeps a verified head: the payload of that head) are
 * absent in records written by earlier versions; those are applied from the execution client as before.
 */
export type PendingTransition =
  | { readonly kind: "advance"; readonly result: VerificationResult }
  | {
      readonly kind: "invalidate";
      readonly result: VerificationResult;
      readonly payloads?: Readonly<Record<string, InvalidationPayloads>>;
    }
  | {
      readonly kind: "rewind";
      readonly rewindAtOrAfter: number;
      readonly targets?: Readonly<Record<string, ExecutionPayloadEnvelope>>;
    };

/** Canonical JSON of a verified result (sorted chain keys): the idempotency check compares these bytes. */
export function verifiedResultJson(r: VerifiedResult): string {
  const heads: Record<string, BlockId> = {};
  for (const k of Object.keys(r.l2Heads).sort()) {
    const h = r.l2Heads[k] as BlockId;
    heads[k] = { hash: h.hash, number: h.number };
  }
  return JSON.stringify({
    timestamp: r.timestamp,
    l1Inclusion: { hash: r.l1Inclusion.hash, number: r.l1Inclusion.number },
    l2Heads: heads,
  });
}

/** One denied block (op-supernode §2.10): a block the interop activity found invalid at `decisionTimestamp`. */
export interface DeniedBlock {
  readonly height: number;
  readonly payloadHash: Hash;
  /** The verified timestamp whose decision denied it (a rewind of verified results before it un-denies it). */
  readonly decisionTimestamp: number;
  /** The denied block's output (super roots of the original block, op-supernode §2.7). */
  readonly stateRoot: Hash;
  readonly messagePasserStorageRoot: Hash;
  /**
   * Hashes of its offending transactions (those whose executing messages failed): the sequencer never includes
   * them again. Records written by earlier versions hold every non-deposit transaction of the block.
   */
  readonly txHashes: readonly Hash[];
}
