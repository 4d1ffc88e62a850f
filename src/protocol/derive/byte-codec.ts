/**
 * Small binary helpers for the span-batch format: a bounds-checked cursor, Go-compatible uvarints
 * (`binary.Uvarint`, LEB128 of at most 10 bytes) and span-batch bitlists.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";

/** A read position over a byte array; every read is bounds checked and throws `DecodeError` on truncation. */
export class Cursor {
  constructor(
    readonly buf: Uint8Array,
    public pos = 0,
    readonly end = buf.length,
  ) {}

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Returns a view (no copy) of the next `n` bytes. */
  take(n: number, what: string): Uint8Array {
    if (n > this.end - this.pos) throw new DecodeError(`unexpected end of input reading ${what}`, { pos: this.pos, n });
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  byte(what: string): number {
    if (this.pos >= this.end) throw new DecodeError(`unexpected end of input reading ${what}`, { pos: this.pos });
    return this.buf[this.pos++]!;
  }

  /**
   * Go `binary.ReadUvarint`: returns a number when the value is a safe integer, else a bigint. Overlong encodings
   * of more than 10 bytes, or a 10th byte > 1, are rejected as overflow.
   */
  uvarint(what: string): number | bigint {
    let x = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte(what);
      if (i === 9 && b > 1) throw new DecodeError(`uvarint overflows a 64-bit integer reading ${what}`);
      if (b < 0x80) {
        x += b * mul;
        if (x <= Number.MAX_SAFE_INTEGER) return x;
        return this.uvarintBig(i + 1);
      }
      x += (b & 0x7f) * mul;
      mul *= 128;
    }
    throw new DecodeError(`uvarint overflows a 64-bit integer reading ${what}`);
  }

  private uvarintBig(len: number): bigint {
    let v = 0n;
    for (let i = len - 1; i >= 0; i--) v = (v << 7n) | BigInt(this.buf[this.pos - len + i]! & 0x7f);
    return v;
  }

  /** A uvarint that must not exceed `max` (a safe integer). */
  uvarintMax(max: number, what: string, err: () => Error): number {
    const v = this.uvarint(what);
    if (typeof v === "bigint" || v > max) throw err();
    return v;
  }
}

/** Encoded length of a uvarint. */
export function uvarintSize(v: number | bigint): number {
  if (typeof v === "number" && v < 2 ** 53) {
    let n = 1;
    while (v >= 128) {
      v = Math.floor(v / 128);
      n++;
    }
    return n;
  }
  let b = BigInt(v);
  let n = 1;
  while (b >= 128n) {
    b >>= 7n;
    n++;
  }
  return n;
}

/** Writes a uvarint at `pos`, returns the new position. */
export function writeUvarint(out: Uint8Array, pos: number, v: number | bigint): number {
  if (typeof v === "number" && v < 2 ** 53) {
    while (v >= 128) {
      out[pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    out[pos++] = v;
    return pos;
  }
  let b = BigInt(v);
  if (b < 0n || b >= 1n << 64n) throw new RangeError("uvarint out of range");
  while (b >= 128n) {
    out[pos++] = Number(b & 0x7fn) | 0x80;
    b >>= 7n;
  }
  out[pos++] = Number(b);
  return pos;
}

/** Byte length of a bitlist of `n` bits. */
export function bitlistSize(n: number): number {
  return Math.ceil(n / 8);
}

/**
 * Reads a span-batch bitlist of `n` bits (big-endian integer left-padded to ⌈n/8⌉ bytes). Rejects a value whose
 * bit length exceeds `n`. Returns a view of the raw bytes.
 */
export function readBitlist(c: Cursor, n: number, what: string): Uint8Array {
  const bytes = c.take(bitlistSize(n), what);
  const rem = n % 8;
  if (rem !== 0 && bytes.length > 0 && bytes[0]! >> rem !== 0) {
    throw new DecodeError(`${what}: bitfield has more than ${n} bits`);
  }
  return bytes;
}

/** Bit `i` (the i-th least significant bit) of a bitlist. */
export function getBit(bits: Uint8Array, i: number): number {
  const idx = bits.length - 1 - (i >> 3);
  if (idx < 0) return 0;
  return (bits[idx]! >> (i & 7)) & 1;
}

/** Sets bit `i` of a bitlist (which must be large enough). */
export function setBit(bits: Uint8Array, i: number, value: number): void {
  const idx = bits.length - 1 - (i >> 3);
  if (idx < 0) throw new RangeError("bit index out of range");
  if (value) bits[idx]! |= 1 << (i & 7);
  else bits[idx]! &= ~(1 << (i & 7));
}

/** Number of set bits among the first `n`. */
export function popcount(bits: Uint8Array, n: number): number {
  let c = 0;
  for (let i = 0; i < n; i++) c += getBit(bits, i);
  return c;
}
