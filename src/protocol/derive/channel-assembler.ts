/**
 * Holocene channel assembler (op-node `ChannelAssembler`): a single staging channel that requires frames in
 * order. Frame 0 starts a new channel (discarding the current one); other frames without a channel, out of order
 * or for another channel are dropped; a channel larger than `maxRlpBytesPerChannel` is dropped; the channel is
 * emitted when its last frame arrives. A staging channel that times out is dropped.
 */
import type { L1BlockRef } from "../../core/types/block-ref.js";
import type { RollupConfig } from "../rollup-config.js";
import { Channel } from "./channel.js";
import { channelTimeout, maxRlpBytesPerChannel } from "./chain-spec.js";
import type { Frame } from "./frame.js";

/** Outcome of feeding one frame. */
export type AssemblerEvent =
  | { readonly kind: "ready"; readonly data: Uint8Array }
  | { readonly kind: "added" }
  | { readonly kind: "dropped-frame"; readonly reason: string }
  | { readonly kind: "dropped-channel"; readonly reason: "too-large" };

export class ChannelAssembler {
  private channel: Channel | undefined;
  private originRef: L1BlockRef;

  constructor(
    private readonly cfg: RollupConfig,
    origin: L1BlockRef,
  ) {
    this.originRef = origin;
  }

  get origin(): L1BlockRef {
    return this.originRef;
  }

  /** Sets the current traversal origin; drops the staging channel if it timed out. */
  setOrigin(origin: L1BlockRef): void {
    this.originRef = origin;
    this.dropIfTimedOut();
  }

  /** The staging channel, if any (for inspection). */
  get staging(): Channel | undefined {
    return this.channel;
  }

  /** Discards the staging channel (pipeline reset, or `FlushChannel` from the batch stage). */
  flush(): void {
    this.channel = undefined;
  }

  reset(origin: L1BlockRef): void {
    this.channel = undefined;
    this.originRef = origin;
  }

  private dropIfTimedOut(): void {
    const timeout = channelTimeout(this.cfg, this.originRef.timestamp);
    if (this.channel?.isTimedOut(this.originRef.number, timeout)) this.channel = undefined;
  }

  /** Feeds the next frame (included in the current origin). Returns the channel data when it completes. */
  addFrame(frame: Frame): AssemblerEvent {
    this.dropIfTimedOut();
    if (frame.frameNumber === 0) this.channel = new Channel(frame.id, this.originRef, true);
    const ch = this.channel;
    if (ch === undefined) return { kind: "dropped-frame", reason: "no-channel" };
    const err = ch.addFrame(frame, this.originRef);
    if (err !== undefined) return { kind: "dropped-frame", reason: err };
    if (ch.size > maxRlpBytesPerChannel(this.cfg, this.originRef.timestamp)) {
      this.channel = undefined;
      return { kind: "dropped-channel", reason: "too-large" };
    }
    if (frame.isLast) {
      this.channel = undefined;
      return { kind: "ready", data: ch.data() };
    }
    return { kind: "added" };
  }
}
