import type { Hex } from "../types/primitives.js";
import { DecodeError } from "../errors/supernode-error.js";

const HEX_RE = /^0x[0-9a-fA-F]*$/;

export function isHex(value: unknown): value is Hex {
  return typeof value === "string" && HEX_RE.test(value);
}

/** Hex string → bytes. Throws DecodeError on odd length or non-hex characters. */
export function hexToBytes(hex: string): Uint8Array {
  // Buffer's hex decoder stops at the first non-hex character: fewer bytes written than expected means invalid.
  if (typeof hex === "string" && hex.length % 2 === 0 && hex.charCodeAt(0) === 48 && hex.charCodeAt(1) === 120) {
    const n = (hex.length - 2) >> 1;
    const out = new Uint8Array(n);
    // Up to 64 bytes (hashes, addresses: V8 keeps such arrays on its heap) digit by digit, which costs less than a
    // Buffer view of the array and a sliced string for Node's decoder (docs/performance.md); longer ones through the decoder.
    if (n <= 64) {
      if (writeHexBytes(hex, n, out, 0)) return out;
    } else if (Buffer.from(out.buffer, 0, n).write(hex.slice(2), "hex") === n) return out;
  }
  throw new DecodeError("invalid hex string", { value: String(hex).slice(0, 80) });
}

/**
 * Node's hex encoder (`buf.toString("hex")` is `buf.hexSlice(0, buf.length)`), called on the view itself: it takes
 * any Uint8Array, so no Buffer object is made per call (~0.2 µs each: ~13 per derived block's transactions,
 * docs/performance.md). Undefined on a runtime without it: Buffer.from's view then, as before.
 */
const hexSlice = (
  Buffer.prototype as unknown as { hexSlice?: (this: Uint8Array, start: number, end: number) => string }
).hexSlice;

export function bytesToHex(bytes: Uint8Array): Hex {
  if (hexSlice !== undefined) return `0x${hexSlice.call(bytes, 0, bytes.length)}`;
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`;
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Hex digit value of a character code (either case), or -1. */
export function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

/** Whether the 0x-hex string `hex` (either case) encodes exactly `bytes`, without decoding it to a new array. */
export function hexEqualsBytes(hex: string, bytes: Uint8Array): boolean {
  const n = bytes.length;
  if (hex.length !== 2 + 2 * n || hex.charCodeAt(0) !== 48 || hex.charCodeAt(1) !== 120) return false;
  for (let i = 0; i < n; i++) {
    const hi = hexDigit(hex.charCodeAt(2 + 2 * i));
    const lo = hexDigit(hex.charCodeAt(3 + 2 * i));
    if (hi < 0 || lo < 0 || ((hi << 4) | lo) !== bytes[i]) return false;
  }
  return true;
}

/**
 * Writes the bytes of `hex` (0x-prefixed, exactly `len` bytes, either case) into `out` at `off`; false when it is
 * not exactly that (nothing is promised about `out` then). A loop over the digits: for the fixed-size fields of a
 * hash preimage it costs less than `Buffer.write` of a sliced string (docs/performance.md).
 */
export function writeHexBytes(hex: string, len: number, out: Uint8Array, off: number): boolean {
  if (hex.length !== 2 + 2 * len || hex.charCodeAt(0) !== 48 || hex.charCodeAt(1) !== 120) return false;
  for (let i = 0; i < len; i++) {
    const hi = hexDigit(hex.charCodeAt(2 + 2 * i));
    const lo = hexDigit(hex.charCodeAt(3 + 2 * i));
    if (hi < 0 || lo < 0) return false;
    out[off + i] = (hi << 4) | lo;
  }
  return true;
}

/** Left-pads a hex value to `size` bytes. */
export function padHex(hex: Hex, size: number): Hex {
  const body = hex.slice(2);
  if (body.length > size * 2) throw new DecodeError("hex value too long", { value: hex, size });
  return `0x${body.padStart(size * 2, "0")}`;
}
