/**
 * A bounded queue of unsafe payloads (gossip, `admin_postUnsafePayload`, req-resp) ordered by block number,
 * duplicates by hash rejected, the oldest dropped when the byte budget is exceeded (op-node §2.12.5).
 */
import type { ExecutionPayloadEnvelope } from "../ports.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";

export const DEFAULT_UNSAFE_QUEUE_BYTES = 500 * 1024 * 1024;

function sizeOf(env: ExecutionPayloadEnvelope): number {
  let n = 1024;
  for (const tx of env.executionPayload.transactions) n += tx.length / 2;
  return n;
}

export class UnsafePayloadQueue {
  private items: { env: ExecutionPayloadEnvelope; size: number }[] = [];
  private bytes = 0;
  private readonly maxBytes: number;

  constructor(maxBytes = DEFAULT_UNSAFE_QUEUE_BYTES) {
    this.maxBytes = maxBytes;
  }

  get length(): number {
    return this.items.length;
  }

  get byteSize(): number {
    return this.bytes;
  }

  /** Adds a payload; false when it is a duplicate. */
  push(env: ExecutionPayloadEnvelope): boolean {
    const p = env.executionPayload;
    if (this.items.some((i) => i.env.executionPayload.blockHash === p.blockHash)) return false;
    const size = sizeOf(env);
    let at = this.items.length;
    while (at > 0 && (this.items[at - 1]?.env.executionPayload.blockNumber ?? 0) > p.blockNumber) at--;
    this.items.splice(at, 0, { env, size });
    this.bytes += size;
    while (this.bytes > this.maxBytes && this.items.length > 1) {
      const dropped = this.items.shift();
      if (dropped) this.bytes -= dropped.size;
    }
    return true;
  }

  peek(): ExecutionPayloadEnvelope | undefined {
    return this.items[0]?.env;
  }

  pop(): ExecutionPayloadEnvelope | undefined {
    const i = this.items.shift();
    if (i) this.bytes -= i.size;
    return i?.env;
  }

  /**
   * Drops payloads that can never be inserted on `unsafe`: at/below the unsafe or safe head, or at unsafe+1 with
   * a different parent. Returns the next insertable payload (parent = unsafe head), if any.
   */
  nextFor(unsafe: L2BlockRef, safe: L2BlockRef): ExecutionPayloadEnvelope | undefined {
    for (;;) {
      const head = this.items[0]?.env.executionPayload;
      if (head === undefined) return undefined;
      const stale =
        head.blockNumber <= unsafe.number ||
        head.blockNumber <= safe.number ||
        (head.blockNumber === unsafe.number + 1 && head.parentHash.toLowerCase() !== unsafe.hash.toLowerCase());
      if (!stale) break;
      this.pop();
    }
    const first = this.items[0]?.env;
    return first !== undefined && first.executionPayload.blockNumber === unsafe.number + 1 ? first : undefined;
  }

  /** The lowest queued payload (for `queued_unsafe_l2`). */
  lowest(): ExecutionPayloadEnvelope | undefined {
    return this.items[0]?.env;
  }
}
