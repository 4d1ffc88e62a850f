/**
 * Frames: the unit in which batchers post channel data to L1.
 *
 * Batcher data item: `derivation_version (0x00) ‖ frame ‖ frame ‖ …`.
 * Frame: `channel_id (16) ‖ frame_number (u16 BE) ‖ frame_data_length (u32 BE) ‖ frame_data ‖ is_last (0|1)`.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import type { Hex } from "../../core/types/primitives.js";
import { DERIVATION_VERSION_0, FRAME_OVERHEAD, MAX_FRAME_LEN } from "./chain-spec.js";

/** 16-byte channel identifier as `0x` + 32 lowercase hex digits. */
export type ChannelId = Hex;

export const CHANNEL_ID_LENGTH = 16;

/** One frame of a channel. `data` may be a view into the buffer it was parsed from; treat it as immutable. */
export interface Frame {
  readonly id: ChannelId;
  readonly frameNumber: number;
  readonly data: Uint8Array;
  readonly isLast: boolean;
}

/**
 * Parses one frame at `offset` of `buf`. Returns the frame and the offset after it.
 * Throws `DecodeError` on truncation, oversize data or an invalid `is_last` byte.
 */
export function parseFrame(buf: Uint8Array, offset = 0): { frame: Frame; next: number } {
  if (buf.length - offset < FRAME_OVERHEAD) throw new DecodeError("frame truncated", { offset });
  const id = bytesToHex(buf.subarray(offset, offset + CHANNEL_ID_LENGTH));
  let p = offset + CHANNEL_ID_LENGTH;
  const frameNumber = (buf[p]! << 8) | buf[p + 1]!;
  p += 2;
  const len = buf[p]! * 0x1000000 + ((buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!);
  p += 4;
  if (len > MAX_FRAME_LEN) throw new DecodeError("frame_data_length is too large", { len });
  if (buf.length - p < len + 1) throw new DecodeError("frame data truncated", { offset, len });
  const data = buf.subarray(p, p + len);
  p += len;
  const last = buf[p]!;
  if (last > 1) throw new DecodeError("invalid is_last byte", { value: last });
  return { frame: { id, frameNumber, data, isLast: last === 1 }, next: p + 1 };
}

/**
 * Parses a batcher data item (version byte and one or more frames). Any error rejects the whole item
 * (op-node drops all its frames).
 */
export function parseFrames(item: Uint8Array): Frame[] {
  if (item.length === 0) throw new DecodeError("data item must not be empty");
  if (item[0] !== DERIVATION_VERSION_0) throw new DecodeError("invalid derivation format byte", { value: item[0] });
  const frames: Frame[] = [];
  let off = 1;
  while (off < item.length) {
    const { frame, next } = parseFrame(item, off);
    frames.push(frame);
    off = next;
  }
  if (frames.length === 0) throw new DecodeError("no frames in data item");
  return frames;
}

/** Encoded size of a frame. */
export function frameSize(frame: Frame): number {
  return FRAME_OVERHEAD + frame.data.length;
}

/** Writes a frame into `out` at `pos`; returns the new position. */
export function writeFrame(out: Uint8Array, pos: number, frame: Frame): number {
  if (frame.data.length > MAX_FRAME_LEN) throw new RangeError("frame data too large");
  if (!Number.isInteger(frame.frameNumber) || frame.frameNumber < 0 || frame.frameNumber > 0xffff)
    throw new RangeError("frame number out of range");
  const id = hexToBytes(frame.id);
  if (id.length !== CHANNEL_ID_LENGTH) throw new RangeError("channel id must be 16 bytes");
  out.set(id, pos);
  pos += CHANNEL_ID_LENGTH;
  out[pos++] = frame.frameNumber >> 8;
  out[pos++] = frame.frameNumber & 0xff;
  const len = frame.data.length;
  out[pos++] = (len >>> 24) & 0xff;
  out[pos++] = (len >>> 16) & 0xff;
  out[pos++] = (len >>> 8) & 0xff;
  out[pos++] = len & 0xff;
  out.set(frame.data, pos);
  pos += len;
  out[pos++] = frame.isLast ? 1 : 0;
  return pos;
}

/** Encodes one frame (without the derivation version byte). */
export function encodeFrame(frame: Frame): Uint8Array {
  const out = new Uint8Array(frameSize(frame));
  writeFrame(out, 0, frame);
  return out;
}

/** Encodes a batcher data item: version byte 0x00 followed by the frames. */
export function encodeFrames(frames: readonly Frame[]): Uint8Array {
  if (frames.length === 0) throw new RangeError("at least one frame is required");
  let size = 1;
  for (const f of frames) size += frameSize(f);
  const out = new Uint8Array(size);
  out[0] = DERIVATION_VERSION_0;
  let pos = 1;
  for (const f of frames) pos = writeFrame(out, pos, f);
  return out;
}

/**
 * Holocene frame-queue pruning: keeps only contiguous, in-order frames (op-node `pruneFrameQueue`).
 * Returns a new array; the input is not modified.
 */
export function pruneFrameQueue(input: readonly Frame[]): Frame[] {
  const frames = input.slice();
  let i = 0;
  while (i < frames.length - 1) {
    const cur = frames[i]!;
    const next = frames[i + 1]!;
    if (cur.id === next.id) {
      if (cur.isLast || next.frameNumber !== cur.frameNumber + 1) {
        frames.splice(i + 1, 1);
        continue;
      }
    } else {
      if (next.frameNumber === 0 && !cur.isLast) {
        frames.splice(i, 1);
        if (i > 0) i--;
        continue;
      }
      if (next.frameNumber !== 0) {
        frames.splice(i + 1, 1);
        continue;
      }
    }
    i++;
  }
  return frames;
}
