/**
 * The queue of unsafe payloads (gossip, `admin_postUnsafePayload`, req-resp) waiting for insertion (op-node
 * §2.12.5, `PayloadsQueue`): ordered by block number (lowest first; equal numbers keep arrival order), duplicates by
 * block hash rejected, bounded by memory (op-node's size estimate: 1000 bytes + each transaction's bytes + 24) and
 * by count; when over a bound the lowest payloads are dropped (a push whose own payload would be dropped fails).
 */
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { ExecutionPayloadEnvelope } from "../ports.js";

/** op-node's budget: 500 MiB. */
export const DEFAULT_UNSAFE_QUEUE_BYTES = 500 * 1024 * 1024;
/** Our count bound (op-node has none; this keeps insertion cheap). */
export const DEFAULT_UNSAFE_QUEUE_COUNT = 16_384;

const FIXED_COST = 1000;
const TX_OVERHEAD = 24;

/** op-node `payloadMemSize`: a fixed cost plus each transaction's byte length and overhead. */
export function payloadMemSize(env: ExecutionPayloadEnvelope): number {
  let n = FIXED_COST;
  for (const tx of env.executionPayload.transactions) n += (tx.length - 2) / 2 + TX_OVERHEAD;
  return n;
}

export type PushResult = "added" | "duplicate" | "too-large" | "dropped";

/** A queued payload with its block ref (its L1-info deposit decoded once, when it was queued). */
export interface UnsafePayload {
  readonly envelope: ExecutionPayloadEnvelope;
  readonly ref: L2BlockRef;
}

interface Item {
  readonly u: UnsafePayload;
  readonly size: number;
  readonly hash: string;
}

export class UnsafePayloadQueue {
  private items: Item[] = [];
  private readonly hashes = new Set<string>();
  private bytes = 0;
  readonly maxBytes: number;
  readonly maxCount: number;

  constructor(maxBytes = DEFAULT_UNSAFE_QUEUE_BYTES, maxCount = DEFAULT_UNSAFE_QUEUE_COUNT) {
    this.maxBytes = maxBytes;
    this.maxCount = Math.max(1, maxCount);
  }

  get length(): number {
    return this.items.length;
  }

  get byteSize(): number {
    return this.bytes;
  }

  /** Adds a payload in block-number order; see `PushResult`. */
  push(u: UnsafePayload): PushResult {
    const env = u.envelope;
    const p = env.executionPayload;
    const hash = p.blockHash.toLowerCase();
    if (this.hashes.has(hash)) return "duplicate";
    const size = payloadMemSize(env);
    if (size > this.maxBytes) return "too-large";
    // Insert after every item with a number ≤ p.blockNumber (binary search).
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.items[mid]?.u.envelope.executionPayload.blockNumber ?? 0) <= p.blockNumber) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, { u, size, hash });
    this.hashes.add(hash);
    this.bytes += size;
    let droppedSelf = false;
    while (this.bytes > this.maxBytes || this.items.length > this.maxCount) {
      const dropped = this.pop();
      if (dropped?.envelope.executionPayload.blockHash.toLowerCase() === hash) droppedSelf = true;
    }
    return droppedSelf ? "dropped" : "added";
  }

  peek(): UnsafePayload | undefined {
    return this.items[0]?.u;
  }

  pop(): UnsafePayload | undefined {
    const i = this.items.shift();
    if (i === undefined) return undefined;
    this.bytes -= i.size;
    this.hashes.delete(i.hash);
    return i.u;
  }

  clear(): void {
    this.items = [];
    this.hashes.clear();
    this.bytes = 0;
  }

  /**
   * Drops payloads that can never be inserted on `unsafe` (op-node `DropInapplicableUnsafePayloads`): the unsafe
   * head itself, at/below the safe or unsafe head, or at unsafe+1 with a different parent. Returns the next
   * insertable payload (parent = unsafe head), if any, without removing it.
   */
  nextFor(unsafe: L2BlockRef, safe: L2BlockRef): UnsafePayload | undefined {
    for (;;) {
      const head = this.items[0]?.u.envelope.executionPayload;
      if (head === undefined) return undefined;
      const stale =
        head.blockNumber <= unsafe.number ||
        head.blockNumber <= safe.number ||
        (head.blockNumber === unsafe.number + 1 && head.parentHash.toLowerCase() !== unsafe.hash.toLowerCase());
      if (!stale) break;
      this.pop();
    }
    const first = this.items[0]?.u;
    return first !== undefined && first.envelope.executionPayload.blockNumber === unsafe.number + 1 ? first : undefined;
  }

  /**
   * Whether a payload extending `unsafe` (number + 1, parent = its hash) is queued: what {@link nextFor} would return,
   * without dropping anything (the driver asks this between derivation steps).
   */
  hasNextFor(unsafe: L2BlockRef): boolean {
    const n = unsafe.number + 1;
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.items[mid]?.u.envelope.executionPayload.blockNumber ?? 0) < n) lo = mid + 1;
      else hi = mid;
    }
    const parent = unsafe.hash.toLowerCase();
    for (let i = lo; i < this.items.length; i++) {
      const p = this.items[i]?.u.envelope.executionPayload;
      if (p === undefined || p.blockNumber !== n) return false;
      if (p.parentHash.toLowerCase() === parent) return true;
    }
    return false;
  }

  /** EL sync: drops everything at or below `n` and removes and returns the lowest payload above it. */
  popAbove(n: number): UnsafePayload | undefined {
    while (this.items[0] !== undefined && this.items[0].u.envelope.executionPayload.blockNumber <= n) this.pop();
    return this.pop();
  }

  /** The lowest queued payload (for `queued_unsafe_l2`). */
  lowest(): UnsafePayload | undefined {
    return this.items[0]?.u;
  }
}
