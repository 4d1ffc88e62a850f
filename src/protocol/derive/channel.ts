/**
 * A channel being assembled from frames (op-node `Channel`): frames keyed by number, closed by the frame with
 * `is_last`, ready when frames `0..end` are all present.
 */
import type { L1BlockRef } from "../../core/types/block-ref.js";
import { FRAME_ACCOUNTING_OVERHEAD } from "./chain-spec.js";
import type { ChannelId, Frame } from "./frame.js";

/** Why a frame was refused by a channel (the frame is ignored; not an exception). */
export type AddFrameError = "wrong-channel" | "already-closed" | "duplicate" | "beyond-end" | "out-of-order";

/** Accounted size of a frame in the channel bank / assembler: data length + 200. */
export function frameCost(frame: Frame): number {
  return frame.data.length + FRAME_ACCOUNTING_OVERHEAD;
}

export class Channel {
  private readonly inputs = new Map<number, Frame>();
  private closed = false;
  private endFrameNumber = 0;
  private highestFrameNumber = 0;
  private sizeBytes = 0;
  private highestInclusion: L1BlockRef | undefined;

  /**
   * @param id channel ID
   * @param openBlock L1 block in which the first frame of this channel was seen
   * @param requireInOrder Holocene: frames must arrive in order 0, 1, 2, …
   */
  constructor(
    readonly id: ChannelId,
    readonly openBlock: L1BlockRef,
    readonly requireInOrder = false,
  ) {}

  /** Accounted size (sum of frame costs). */
  get size(): number {
    return this.sizeBytes;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Highest L1 inclusion block among the added frames. */
  get highestBlock(): L1BlockRef | undefined {
    return this.highestInclusion;
  }

  /** Number of stored frames. */
  get frameCount(): number {
    return this.inputs.size;
  }

  /** Adds a frame; returns undefined on success or the reason it was refused. */
  addFrame(frame: Frame, inclusion: L1BlockRef): AddFrameError | undefined {
    if (frame.id !== this.id) return "wrong-channel";
    if (frame.isLast && this.closed) return "already-closed";
    if (this.inputs.has(frame.frameNumber)) return "duplicate";
    if (this.closed && frame.frameNumber >= this.endFrameNumber) return "beyond-end";
    if (this.requireInOrder && frame.frameNumber !== this.inputs.size) return "out-of-order";
    if (frame.isLast) {
      this.endFrameNumber = frame.frameNumber;
      this.closed = true;
    }
    if (frame.isLast && this.endFrameNumber < this.highestFrameNumber) {
      // Prune frames past the end. op-node subtracts the cost of every stored frame here (not only the pruned
      // ones); we reproduce that accounting exactly.
      for (const [n, f] of this.inputs) {
        if (n >= this.endFrameNumber) this.inputs.delete(n);
        this.sizeBytes -= frameCost(f);
      }
      this.highestFrameNumber = this.endFrameNumber;
    }
    if (frame.frameNumber > this.highestFrameNumber) this.highestFrameNumber = frame.frameNumber;
    if (this.highestInclusion === undefined || this.highestInclusion.number < inclusion.number) {
      this.highestInclusion = inclusion;
    }
    this.inputs.set(frame.frameNumber, frame);
    this.sizeBytes += frameCost(frame);
    return undefined;
  }

  /** Closed and every frame 0..end present. */
  isReady(): boolean {
    if (!this.closed) return false;
    if (this.inputs.size !== this.endFrameNumber + 1) return false;
    for (let i = 0; i <= this.endFrameNumber; i++) if (!this.inputs.has(i)) return false;
    return true;
  }

  /** Whether the channel timed out at traversal origin `originNumber` with timeout `timeout`. */
  isTimedOut(originNumber: number, timeout: number): boolean {
    return this.openBlock.number + timeout < originNumber;
  }

  /** Concatenated frame data of a ready channel. Throws if not ready. */
  data(): Uint8Array {
    if (!this.isReady()) throw new Error("channel is not ready");
    let len = 0;
    for (let i = 0; i <= this.endFrameNumber; i++) len += this.inputs.get(i)!.data.length;
    const out = new Uint8Array(len);
    let pos = 0;
    for (let i = 0; i <= this.endFrameNumber; i++) {
      const d = this.inputs.get(i)!.data;
      out.set(d, pos);
      pos += d.length;
    }
    return out;
  }
}
