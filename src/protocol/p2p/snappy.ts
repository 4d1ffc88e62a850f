/**
 * Snappy as OP P2P uses it: the block format for gossip messages (length checked before decoding) and the framing
 * (stream) format for req-resp responses, with masked CRC-32C checksums. Block (de)compression is `snappyjs`
 * (docs/adr/0070-libp2p-stack.md); the framing is ours.
 */
import * as SnappyJS from "snappyjs";
import { concatBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";

/** 10 MiB: the largest (decompressed) gossip or req-resp payload. */
export const MAX_PAYLOAD_SIZE = 10 * 2 ** 20;

/** Reads the snappy block preamble (uvarint uncompressed length); throws on a malformed varint. */
export function snappyDecodedLength(data: Uint8Array): number {
  let n = 0;
  let shift = 0;
  for (let i = 0; i < 5 && i < data.length; i++) {
    const c = data[i] as number;
    n += (c & 0x7f) * 2 ** shift;
    if ((c & 0x80) === 0) {
      if (n > 0xffffffff) break;
      return n;
    }
    shift += 7;
  }
  throw new DecodeError("snappy: bad length preamble");
}

export function snappyCompress(data: Uint8Array): Uint8Array {
  return SnappyJS.compress(data);
}

/** Block-decompresses; the preamble's length must be ≤ `max`. */
export function snappyUncompress(data: Uint8Array, max = MAX_PAYLOAD_SIZE): Uint8Array {
  const n = snappyDecodedLength(data);
  if (n > max) throw new DecodeError(`snappy: decoded length ${n} exceeds ${max}`);
  try {
    return SnappyJS.uncompress(data, max);
  } catch (err) {
    throw new DecodeError("snappy: corrupt block", {}, err);
  }
}

// --- CRC-32C (Castagnoli) -------------------------------------------------------------------------------------

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function crc32c(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = (CRC_TABLE[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The masked checksum of the framing format. */
export function maskedCrc32c(data: Uint8Array): number {
  const c = crc32c(data);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

// --- Framing format ---------------------------------------------------------------------------------------------

const STREAM_ID = Uint8Array.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
const MAX_CHUNK = 65536;

function chunk(type: number, crc: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + body.length);
  const len = body.length + 4;
  out[0] = type;
  out[1] = len & 0xff;
  out[2] = (len >>> 8) & 0xff;
  out[3] = (len >>> 16) & 0xff;
  new DataView(out.buffer).setUint32(4, crc, true);
  out.set(body, 8);
  return out;
}

/** Snappy-framed encoding; a chunk is stored uncompressed when compression saves less than 12.5 %. */
export function snappyFrameEncode(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [STREAM_ID];
  for (let at = 0; at < data.length; at += MAX_CHUNK) {
    const piece = data.subarray(at, at + MAX_CHUNK);
    const crc = maskedCrc32c(piece);
    const comp = SnappyJS.compress(piece);
    parts.push(comp.length < piece.length - piece.length / 8 ? chunk(0x00, crc, comp) : chunk(0x01, crc, piece));
  }
  return concatBytes(...parts);
}

/** Decodes a whole snappy-framed stream (padding and skippable chunks skipped); at most `max` bytes out. */
export function snappyFrameDecode(data: Uint8Array, max = MAX_PAYLOAD_SIZE): Uint8Array {
  const out: Uint8Array[] = [];
  let total = 0;
  let at = 0;
  let sawId = false;
  while (at < data.length) {
    if (at + 4 > data.length) throw new DecodeError("snappy frame: truncated chunk header");
    const type = data[at] as number;
    const len = (data[at + 1] as number) | ((data[at + 2] as number) << 8) | ((data[at + 3] as number) << 16);
    const body = data.subarray(at + 4, at + 4 + len);
    if (body.length !== len) throw new DecodeError("snappy frame: truncated chunk");
    at += 4 + len;
    if (type === 0xff) {
      if (len !== 6 || !body.every((b, i) => b === STREAM_ID[4 + i]))
        throw new DecodeError("snappy frame: bad stream id");
      sawId = true;
      continue;
    }
    if (!sawId) throw new DecodeError("snappy frame: missing stream identifier");
    if (type === 0x00 || type === 0x01) {
      if (len < 4) throw new DecodeError("snappy frame: chunk without checksum");
      const crc = new DataView(body.buffer, body.byteOffset, 4).getUint32(0, true);
      const piece = type === 0x00 ? snappyUncompress(body.subarray(4), MAX_CHUNK) : body.subarray(4);
      if (piece.length > MAX_CHUNK) throw new DecodeError("snappy frame: chunk too large");
      if (maskedCrc32c(piece) !== crc) throw new DecodeError("snappy frame: checksum mismatch");
      total += piece.length;
      if (total > max) throw new DecodeError(`snappy frame: more than ${max} bytes`);
      out.push(piece);
    } else if (type >= 0x02 && type <= 0x7f) {
      throw new DecodeError(`snappy frame: reserved unskippable chunk type ${type}`);
    }
    // 0x80–0xfe: padding / skippable
  }
  const res = new Uint8Array(total);
  let o = 0;
  for (const p of out) {
    res.set(p, o);
    o += p.length;
  }
  return res;
}
