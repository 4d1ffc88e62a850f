/**
 * Batcher-side channel construction: typed batches → RLP byte strings → compressed channel data → frames.
 * Used by the devnet batcher and by tests; the inverse of `readChannel` + the channel bank/assembler.
 */
import zlib from "node:zlib";
import { type BatchData, encodeBatch } from "./batch.js";
import { CHANNEL_VERSION_BROTLI, FRAME_OVERHEAD, MAX_FRAME_LEN } from "./chain-spec.js";
import type { Compression } from "./channel-reader.js";
import type { ChannelId, Frame } from "./frame.js";
import { headerSize, writeHeader } from "./rlp.js";

export interface CompressOptions {
  readonly compression: Compression;
  /** zlib level 0..9 (default 9) or brotli quality 0..11 (default 10). */
  readonly level?: number;
}

/** The uncompressed channel payload: each typed batch as an RLP byte string, concatenated. */
export function channelPayload(batches: readonly BatchData[]): Uint8Array {
  const typed = batches.map(encodeBatch);
  return rlpStrings(typed);
}

/** Concatenation of RLP byte-string encodings of `items`. */
export function rlpStrings(items: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const t of items) size += t.length === 1 && t[0]! < 0x80 ? 1 : headerSize(t.length) + t.length;
  const out = new Uint8Array(size);
  let pos = 0;
  for (const t of items) {
    if (t.length === 1 && t[0]! < 0x80) {
      out[pos++] = t[0]!;
      continue;
    }
    pos = writeHeader(out, pos, t.length, false);
    out.set(t, pos);
    pos += t.length;
  }
  return out;
}

/** Compresses a channel payload: a zlib stream, or `0x01 ‖ brotli stream`. */
export function compressChannel(payload: Uint8Array, opts: CompressOptions): Uint8Array {
  if (opts.compression === "zlib") {
    const out = zlib.deflateSync(payload, { level: opts.level ?? 9 });
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }
  const body = zlib.brotliCompressSync(payload, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: opts.level ?? 10,
      [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: payload.length,
    },
  });
  const out = new Uint8Array(body.length + 1);
  out[0] = CHANNEL_VERSION_BROTLI;
  out.set(body, 1);
  return out;
}

/** Encodes batches into compressed channel data. */
export function encodeChannel(batches: readonly BatchData[], opts: CompressOptions): Uint8Array {
  return compressChannel(channelPayload(batches), opts);
}

/**
 * Splits channel data into frames whose full encoding (23 bytes of overhead + data) is at most `maxFrameSize`.
 * The last frame has `isLast`; an empty channel yields one empty last frame.
 */
export function splitIntoFrames(id: ChannelId, data: Uint8Array, maxFrameSize: number): Frame[] {
  const per = Math.min(maxFrameSize - FRAME_OVERHEAD, MAX_FRAME_LEN);
  if (per < 1) throw new RangeError(`maxFrameSize must be at least ${FRAME_OVERHEAD + 1}`);
  const count = Math.max(1, Math.ceil(data.length / per));
  if (count > 0x10000) throw new RangeError("channel needs more than 65536 frames");
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) {
    frames.push({
      id,
      frameNumber: i,
      data: data.subarray(i * per, Math.min(data.length, (i + 1) * per)),
      isLast: i === count - 1,
    });
  }
  return frames;
}
