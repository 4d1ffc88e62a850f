/**
 * Minimal byte-level RLP reader and writer used by the derivation codecs. It works on `Uint8Array` offsets (no hex
 * round trips, no copies) and enforces the canonical-encoding rules of go-ethereum's `rlp` package, so that what we
 * accept is exactly what op-node accepts. Decoding failures throw `DecodeError`.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";

/** Where one RLP item lies in its buffer: `[start, end)` is its payload, `next` the offset just after it. */
export interface RlpRange {
  /** Offset of the item's first (header) byte. */
  readonly offset: number;
  readonly isList: boolean;
  readonly start: number;
  readonly end: number;
  readonly next: number;
}

function fail(message: string, off: number): never {
  throw new DecodeError(`rlp: ${message}`, { offset: off });
}

/**
 * Reads the RLP item starting at `off`; the item must end at or before `limit`.
 * Rejects non-canonical sizes (single byte < 0x80 wrapped as a string, long forms for short payloads, leading zeros).
 */
export function readItem(buf: Uint8Array, off: number, limit: number = buf.length): RlpRange {
  if (off >= limit) fail("unexpected end of input", off);
  const b = buf[off]!;
  if (b < 0x80) return { offset: off, isList: false, start: off, end: off + 1, next: off + 1 };
  if (b < 0xb8) {
    const len = b - 0x80;
    const start = off + 1;
    const end = start + len;
    if (end > limit) fail("value size exceeds available input", off);
    if (len === 1 && buf[start]! < 0x80) fail("non-canonical size information", off);
    return { offset: off, isList: false, start, end, next: end };
  }
  if (b < 0xc0) return readLong(buf, off, limit, b - 0xb7, false);
  if (b < 0xf8) {
    const start = off + 1;
    const end = start + (b - 0xc0);
    if (end > limit) fail("value size exceeds available input", off);
    return { offset: off, isList: true, start, end, next: end };
  }
  return readLong(buf, off, limit, b - 0xf7, true);
}

function readLong(buf: Uint8Array, off: number, limit: number, lenOfLen: number, isList: boolean): RlpRange {
  const end = longEnd(buf, off, limit, lenOfLen);
  return { offset: off, isList, start: off + 1 + lenOfLen, end, next: end };
}

/** End of the payload of the long-form item at `off` (its size in the `lenOfLen` bytes after the header byte). */
function longEnd(buf: Uint8Array, off: number, limit: number, lenOfLen: number): number {
  if (off + 1 + lenOfLen > limit) fail("unexpected end of input in size", off);
  if (buf[off + 1] === 0) fail("non-canonical size information (leading zero)", off);
  let len = 0;
  for (let i = 0; i < lenOfLen; i++) len = len * 256 + buf[off + 1 + i]!;
  if (len < 56) fail("non-canonical size information (long form for short value)", off);
  const end = off + 1 + lenOfLen + len;
  if (end > limit) fail("value size exceeds available input", off);
  return end;
}

/** Reads the items of the list payload `[start, end)`. */
export function readListItems(buf: Uint8Array, start: number, end: number): RlpRange[] {
  const out: RlpRange[] = [];
  let off = start;
  while (off < end) {
    const it = readItem(buf, off, end);
    out.push(it);
    off = it.next;
  }
  return out;
}

/** Reads a list whose payload holds exactly `count` items (go-ethereum struct decoding). */
export function readListExact(buf: Uint8Array, item: RlpRange, count: number, what: string): RlpRange[] {
  if (!item.isList) fail(`${what}: expected list`, item.start);
  const items = readListItems(buf, item.start, item.end);
  if (items.length !== count) fail(`${what}: expected ${count} list elements, got ${items.length}`, item.start);
  return items;
}

/** Checks that `item` is a string whose length is exactly `size` bytes. */
export function expectFixed(item: RlpRange, size: number, what: string): void {
  if (item.isList || item.end - item.start !== size) fail(`${what}: expected ${size}-byte string`, item.start);
}

/** Checks that `item` is a byte string (any length). */
export function expectString(item: RlpRange, what: string): void {
  if (item.isList) fail(`${what}: expected string`, item.start);
}

/** Checks that `item` is a canonical unsigned integer of at most `maxBytes` bytes (no leading zeros). */
export function expectUint(buf: Uint8Array, item: RlpRange, maxBytes: number, what: string): void {
  if (item.isList) fail(`${what}: expected integer`, item.start);
  const len = item.end - item.start;
  if (len > maxBytes) fail(`${what}: integer too large`, item.start);
  if (len > 0 && buf[item.start] === 0) fail(`${what}: non-canonical integer (leading zero)`, item.start);
}

/** Decodes a canonical uint of up to 8 bytes as a number (lossy above 2^53; callers only compare such values). */
export function readUintNumber(buf: Uint8Array, item: RlpRange, what: string): number {
  expectUint(buf, item, 8, what);
  let v = 0;
  for (let i = item.start; i < item.end; i++) v = v * 256 + buf[i]!;
  return v;
}

/** Decodes a canonical uint of up to 8 bytes as a number when it is a safe integer, else a bigint. */
export function readUint64(buf: Uint8Array, item: RlpRange, what: string): number | bigint {
  expectUint(buf, item, 8, what);
  let v = 0;
  for (let i = item.start; i < item.end; i++) v = v * 256 + buf[i]!;
  if (v <= Number.MAX_SAFE_INTEGER) return v;
  let big = 0n;
  for (let i = item.start; i < item.end; i++) big = (big << 8n) | BigInt(buf[i]!);
  return big;
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

/** Size of the RLP header for a payload of `len` bytes. */
export function headerSize(len: number): number {
  if (len < 56) return 1;
  let n = 1;
  for (let l = len; l >= 256; l = Math.floor(l / 256)) n++;
  return 1 + n;
}

/** Writes an RLP header at `pos`; returns the new position. */
export function writeHeader(out: Uint8Array, pos: number, len: number, isList: boolean): number {
  const base = isList ? 0xc0 : 0x80;
  if (len < 56) {
    out[pos] = base + len;
    return pos + 1;
  }
  const n = headerSize(len) - 1;
  out[pos] = base + 55 + n;
  let l = len;
  for (let i = n; i >= 1; i--) {
    out[pos + i] = l & 0xff;
    l = Math.floor(l / 256);
  }
  return pos + 1 + n;
}

/** Encoded size of a byte string of `len` bytes whose first byte is `first` (if len == 1). */
export function stringSize(len: number, first: number): number {
  if (len === 1 && first < 0x80) return 1;
  return headerSize(len) + len;
}

/** Writes `bytes` as an RLP string at `pos`; returns the new position. */
export function writeString(out: Uint8Array, pos: number, bytes: Uint8Array): number {
  if (bytes.length === 1 && bytes[0]! < 0x80) {
    out[pos] = bytes[0]!;
    return pos + 1;
  }
  pos = writeHeader(out, pos, bytes.length, false);
  out.set(bytes, pos);
  return pos + bytes.length;
}

/** Minimal big-endian bytes of an unsigned integer (empty for zero). */
export function uintBytes(v: number | bigint): Uint8Array {
  if (typeof v === "number") {
    if (v === 0) return new Uint8Array(0);
    if (v < 0 || !Number.isInteger(v)) throw new RangeError(`not an unsigned integer: ${v}`);
    if (v <= Number.MAX_SAFE_INTEGER) {
      let n = 0;
      for (let x = v; x > 0; x = Math.floor(x / 256)) n++;
      const out = new Uint8Array(n);
      let x = v;
      for (let i = n - 1; i >= 0; i--) {
        out[i] = x % 256;
        x = Math.floor(x / 256);
      }
      return out;
    }
    v = BigInt(v);
  }
  if (v < 0n) throw new RangeError("negative integer");
  if (v === 0n) return new Uint8Array(0);
  let hex = v.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** RLP encoding of an unsigned integer. */
export function encodeUint(v: number | bigint): Uint8Array {
  const b = uintBytes(v);
  const out = new Uint8Array(stringSize(b.length, b[0] ?? 0));
  writeString(out, 0, b);
  return out;
}

/** RLP encoding of a byte string. */
export function encodeBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(stringSize(bytes.length, bytes[0] ?? 0));
  writeString(out, 0, bytes);
  return out;
}

/** RLP list of already-encoded items. */
export function encodeList(items: readonly Uint8Array[]): Uint8Array {
  let len = 0;
  for (const it of items) len += it.length;
  const out = new Uint8Array(headerSize(len) + len);
  let pos = writeHeader(out, 0, len, true);
  for (const it of items) {
    out.set(it, pos);
    pos += it.length;
  }
  return out;
}
