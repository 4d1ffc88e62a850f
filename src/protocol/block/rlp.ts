import { DecodeError } from "../../core/errors/supernode-error.js";

/**
 * A compact RLP codec on byte arrays (hot path of the trie and header hashing).
 * An RLP item is a byte string or a (nested) list of items.
 */
export type RlpItem = Uint8Array | readonly RlpItem[];

const EMPTY = new Uint8Array(0);

function lengthPrefix(len: number, offset: number): Uint8Array {
  if (len < 56) return Uint8Array.of(offset + len);
  const lenBytes: number[] = [];
  for (let l = len; l > 0; l = Math.floor(l / 256)) lenBytes.unshift(l & 0xff);
  return Uint8Array.of(offset + 55 + lenBytes.length, ...lenBytes);
}

/** The RLP header of a list whose payload (its items, encoded) is `len` bytes long. */
export function rlpListHeader(len: number): Uint8Array {
  return lengthPrefix(len, 0xc0);
}

/** Bytes of the RLP encoding of the byte string `b` (what {@link rlpEncodeBytes} would return, without making it). */
export function rlpEncodedSize(b: Uint8Array): number {
  const n = b.length;
  if (n === 1 && (b[0] as number) < 0x80) return 1;
  if (n < 56) return 1 + n;
  let lenOfLen = 0;
  for (let l = n; l > 0; l = Math.floor(l / 256)) lenOfLen++;
  return 1 + lenOfLen + n;
}

/** RLP encoding of one byte string. */
export function rlpEncodeBytes(b: Uint8Array): Uint8Array {
  if (b.length === 1 && (b[0] as number) < 0x80) return b;
  const prefix = lengthPrefix(b.length, 0x80);
  const out = new Uint8Array(prefix.length + b.length);
  out.set(prefix, 0);
  out.set(b, prefix.length);
  return out;
}

/** RLP list made of items that are already RLP-encoded. */
export function rlpEncodeListRaw(encodedItems: readonly Uint8Array[]): Uint8Array {
  let len = 0;
  for (const e of encodedItems) len += e.length;
  const prefix = lengthPrefix(len, 0xc0);
  const out = new Uint8Array(prefix.length + len);
  out.set(prefix, 0);
  let off = prefix.length;
  for (const e of encodedItems) {
    out.set(e, off);
    off += e.length;
  }
  return out;
}

/** RLP encoding of a nested item. */
export function rlpEncode(item: RlpItem): Uint8Array {
  if (item instanceof Uint8Array) return rlpEncodeBytes(item);
  return rlpEncodeListRaw(item.map(rlpEncode));
}

/** Minimal big-endian bytes of a non-negative integer (0 → empty). */
export function uintToBytes(value: bigint | number): Uint8Array {
  const v = typeof value === "number" ? BigInt(value) : value;
  if (v < 0n) throw new RangeError("negative integer in RLP");
  if (v === 0n) return EMPTY;
  if (v < 256n) return Uint8Array.of(Number(v));
  let hex = v.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** Big-endian bytes → bigint (empty → 0). */
export function bytesToBigint(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  return BigInt(`0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex")}`);
}

interface Decoded {
  item: RlpItem;
  end: number;
}

function readLength(data: Uint8Array, pos: number, lenOfLen: number): number {
  if (pos + lenOfLen > data.length) throw new DecodeError("rlp: length out of bounds");
  if (data[pos] === 0) throw new DecodeError("rlp: non-canonical length (leading zero)");
  let len = 0;
  for (let i = 0; i < lenOfLen; i++) len = len * 256 + (data[pos + i] as number);
  if (len < 56) throw new DecodeError("rlp: non-canonical long length");
  if (!Number.isSafeInteger(len)) throw new DecodeError("rlp: length too large");
  return len;
}

function decodeAt(data: Uint8Array, pos: number, depth: number): Decoded {
  if (depth > 64) throw new DecodeError("rlp: nesting too deep");
  if (pos >= data.length) throw new DecodeError("rlp: unexpected end of input");
  const b = data[pos] as number;
  if (b < 0x80) return { item: data.subarray(pos, pos + 1), end: pos + 1 };
  if (b < 0xc0) {
    let start: number;
    let len: number;
    if (b <= 0xb7) {
      len = b - 0x80;
      start = pos + 1;
    } else {
      const ll = b - 0xb7;
      len = readLength(data, pos + 1, ll);
      start = pos + 1 + ll;
    }
    const end = start + len;
    if (end > data.length) throw new DecodeError("rlp: string exceeds input");
    if (len === 1 && b === 0x81 && (data[start] as number) < 0x80)
      throw new DecodeError("rlp: non-canonical single byte");
    return { item: data.subarray(start, end), end };
  }
  let start: number;
  let len: number;
  if (b <= 0xf7) {
    len = b - 0xc0;
    start = pos + 1;
  } else {
    const ll = b - 0xf7;
    len = readLength(data, pos + 1, ll);
    start = pos + 1 + ll;
  }
  const end = start + len;
  if (end > data.length) throw new DecodeError("rlp: list exceeds input");
  const items: RlpItem[] = [];
  let p = start;
  while (p < end) {
    const d = decodeAt(data, p, depth + 1);
    if (d.end > end) throw new DecodeError("rlp: list item exceeds list");
    items.push(d.item);
    p = d.end;
  }
  return { item: items, end };
}

/** Decodes exactly one RLP item spanning all of `data` (throws DecodeError otherwise). */
export function rlpDecode(data: Uint8Array): RlpItem {
  const d = decodeAt(data, 0, 0);
  if (d.end !== data.length) throw new DecodeError("rlp: trailing bytes");
  return d.item;
}

/** Decodes one item at the start of `data`, returning it and the number of bytes consumed. */
export function rlpDecodePrefix(data: Uint8Array): { item: RlpItem; consumed: number } {
  const d = decodeAt(data, 0, 0);
  return { item: d.item, consumed: d.end };
}

export function asList(item: RlpItem | undefined, what: string): readonly RlpItem[] {
  if (item === undefined || item instanceof Uint8Array) throw new DecodeError(`rlp: ${what} is not a list`);
  return item;
}

export function asBytes(item: RlpItem | undefined, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new DecodeError(`rlp: ${what} is not a byte string`);
  return item;
}

/** Canonical RLP unsigned integer (no leading zeros), at most `maxBytes` long. */
export function asUint(item: RlpItem | undefined, what: string, maxBytes = 32): bigint {
  const b = asBytes(item, what);
  if (b.length > maxBytes) throw new DecodeError(`rlp: ${what} too large`);
  if (b.length > 0 && b[0] === 0) throw new DecodeError(`rlp: ${what} has leading zero`);
  return bytesToBigint(b);
}
