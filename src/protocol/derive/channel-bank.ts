/**
 * Pre-Holocene channel bank (op-node `ChannelBank`): buffers channels by ID in FIFO order, drops timed-out
 * channels, prunes the oldest channels when the total accounted size exceeds the per-fork maximum, and hands out
 * ready channels (pre-Canyon only the head channel; Canyon+ the first ready, non-timed-out one).
 *
 * Pure state machine: the caller sets the current traversal origin with `setOrigin`, feeds frames with
 * `ingestFrame`, and pulls channel data with `read`. Typical loop (what op-node does): `read()`; if it returns
 * nothing, ingest the next frame from the frame queue; when no frames are left, advance L1.
 */
import type { L1BlockRef } from "../../core/types/block-ref.js";
import type { RollupConfig } from "../rollup-config.js";
import { Channel } from "./channel.js";
import { channelTimeout, isCanyonChannelBank, maxChannelBankSize } from "./chain-spec.js";
import type { ChannelId, Frame } from "./frame.js";

/** What happened to an ingested frame (for metrics and tests). */
export type IngestResult = "added" | "timed-out-channel" | "rejected";

export class ChannelBank {
  private readonly channels = new Map<ChannelId, Channel>();
  private queue: ChannelId[] = [];
  private originRef: L1BlockRef;

  constructor(
    private readonly cfg: RollupConfig,
    origin: L1BlockRef,
  ) {
    this.originRef = origin;
  }

  /** The current traversal origin. */
  get origin(): L1BlockRef {
    return this.originRef;
  }

  /** Sets the current traversal origin (the L1 block the frames being ingested were included in). */
  setOrigin(origin: L1BlockRef): void {
    this.originRef = origin;
  }

  /** Clears all channels (pipeline reset). */
  reset(origin: L1BlockRef): void {
    this.channels.clear();
    this.queue = [];
    this.originRef = origin;
  }

  /** IDs of buffered channels in FIFO order. */
  channelIds(): readonly ChannelId[] {
    return this.queue;
  }

  /** Total accounted size of all buffered channels. */
  totalSize(): number {
    let total = 0;
    for (const ch of this.channels.values()) total += ch.size;
    return total;
  }

  private timeout(): number {
    return channelTimeout(this.cfg, this.originRef.timestamp);
  }

  /** Adds a frame to its channel (creating it, opened at the current origin), then prunes the bank. */
  ingestFrame(frame: Frame): IngestResult {
    let ch = this.channels.get(frame.id);
    if (ch === undefined) {
      ch = new Channel(frame.id, this.originRef, false);
      this.channels.set(frame.id, ch);
      this.queue.push(frame.id);
    }
    if (ch.isTimedOut(this.originRef.number, this.timeout())) return "timed-out-channel";
    if (ch.addFrame(frame, this.originRef) !== undefined) return "rejected";
    this.prune();
    return "added";
  }

  private prune(): void {
    let total = this.totalSize();
    const max = maxChannelBankSize(this.cfg, this.originRef.timestamp);
    while (total > max && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const ch = this.channels.get(id)!;
      this.channels.delete(id);
      total -= ch.size;
    }
  }

  /**
   * Returns the data of the next readable channel, or undefined when none is ready (the caller should ingest
   * more frames). Timed-out channels at the head of the queue are dropped first.
   */
  read(): Uint8Array | undefined {
    const timeout = this.timeout();
    while (this.queue.length > 0) {
      const head = this.channels.get(this.queue[0]!)!;
      if (!head.isTimedOut(this.originRef.number, timeout)) break;
      this.channels.delete(head.id);
      this.queue.shift();
    }
    if (this.queue.length === 0) return undefined;
    if (!isCanyonChannelBank(this.cfg, this.originRef.timestamp)) return this.tryReadAt(0, timeout);
    for (let i = 0; i < this.queue.length; i++) {
      const data = this.tryReadAt(i, timeout);
      if (data !== undefined) return data;
    }
    return undefined;
  }

  private tryReadAt(i: number, timeout: number): Uint8Array | undefined {
    const id = this.queue[i]!;
    const ch = this.channels.get(id)!;
    if (ch.isTimedOut(this.originRef.number, timeout) || !ch.isReady()) return undefined;
    this.channels.delete(id);
    this.queue.splice(i, 1);
    return ch.data();
  }
}
