/**
 * Validation of span-batch tx data (the `tx_datas` column) with the rules of go-ethereum's RLP struct decoding:
 * canonical sizes and integers, exact field counts, 20-byte addresses, 32-byte storage keys, ≤ 32-byte uint256
 * fields for set-code txs. A non-allocating scanner; `span-tx-rebuild.ts` copies the validated items verbatim.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";

// Local copies of the tx type constants (as in span-tx-rebuild.ts): module-local constants fold into the hot loop,
// whereas imported bindings may be read through accessors under some loaders (tsx), which showed up in profiles.
const TX_TYPE_LEGACY = 0;
const TX_TYPE_ACCESS_LIST = 1;
const TX_TYPE_DYNAMIC_FEE = 2;
const TX_TYPE_SET_CODE = 4;

// The scanner's state (the last item scanned) lives in module variables: no allocation per item.
let sStart = 0;
let sEnd = 0;
let sList = false;

/** Throws the `DecodeError` of a malformed span transaction. */
export function fail(msg: string): never {
  throw new DecodeError(`span tx: ${msg}`);
}

/** Scans the item at `off` (must end by `limit`); sets sStart/sEnd/sList; returns the offset after it. */
function scan(buf: Uint8Array, off: number, limit: number): number {
  if (off >= limit) fail("unexpected end of input");
  const b = buf[off]!;
  if (b < 0x80) {
    sStart = off;
    sEnd = off + 1;
    sList = false;
    return sEnd;
  }
  if (b < 0xb8 || (b >= 0xc0 && b < 0xf8)) {
    sList = b >= 0xc0;
    const len = b - (sList ? 0xc0 : 0x80);
    sStart = off + 1;
    sEnd = sStart + len;
    if (sEnd > limit) fail("value size exceeds available input");
    if (!sList && len === 1 && buf[sStart]! < 0x80) fail("non-canonical size");
    return sEnd;
  }
  sList = b >= 0xf8;
  const lenOfLen = b - (sList ? 0xf7 : 0xb7);
  if (off + 1 + lenOfLen > limit) fail("unexpected end of input in size");
  if (buf[off + 1] === 0) fail("non-canonical size (leading zero)");
  let len = 0;
  for (let i = 0; i < lenOfLen; i++) len = len * 256 + buf[off + 1 + i]!;
  if (len < 56) fail("non-canonical size (long form)");
  sStart = off + 1 + lenOfLen;
  sEnd = sStart + len;
  if (sEnd > limit) fail("value size exceeds available input");
  return sEnd;
}

function uintField(buf: Uint8Array, off: number, limit: number, maxBytes: number): number {
  // Fast path: a short string (the common case); same checks as the general path below.
  if (off < limit) {
    const b = buf[off]!;
    if (b > 0x80 && b < 0xb8) {
      const len = b - 0x80;
      const next = off + 1 + len;
      if (next > limit) fail("value size exceeds available input");
      const first = buf[off + 1]!;
      if (len === 1 && first < 0x80) fail("non-canonical size");
      if (len > maxBytes) fail("integer too large");
      if (first === 0) fail("non-canonical integer");
      return next;
    }
    if (b === 0x80) return off + 1;
  }
  const next = scan(buf, off, limit);
  if (sList) fail("expected integer");
  const len = sEnd - sStart;
  if (len > maxBytes) fail("integer too large");
  if (len > 0 && buf[sStart] === 0) fail("non-canonical integer");
  return next;
}

function stringField(buf: Uint8Array, off: number, limit: number): number {
  const next = scan(buf, off, limit);
  if (sList) fail("expected string");
  return next;
}

function fixedField(buf: Uint8Array, off: number, limit: number, size: number): number {
  const next = scan(buf, off, limit);
  if (sList || sEnd - sStart !== size) fail(`expected ${size}-byte string`);
  return next;
}

function accessListField(buf: Uint8Array, off: number, limit: number): number {
  if (off < limit && buf[off] === 0xc0) return off + 1; // empty list
  const next = scan(buf, off, limit);
  if (!sList) fail("access list must be a list");
  const end = sEnd;
  let p = sStart;
  while (p < end) {
    const tupleNext = scan(buf, p, end);
    if (!sList) fail("access tuple must be a list");
    const te = sEnd;
    const a = fixedField(buf, sStart, te, 20);
    const k = scan(buf, a, te);
    if (!sList) fail("storage keys must be a list");
    if (k !== te) fail("access tuple has too many elements");
    const ke = sEnd;
    let q = sStart;
    while (q < ke) q = fixedField(buf, q, ke, 32);
    p = tupleNext;
  }
  return next;
}

function authListField(buf: Uint8Array, off: number, limit: number): number {
  const next = scan(buf, off, limit);
  if (!sList) fail("authorization list must be a list");
  const end = sEnd;
  let p = sStart;
  while (p < end) {
    const authNext = scan(buf, p, end);
    if (!sList) fail("authorization must be a list");
    const ae = sEnd;
    let q = uintField(buf, sStart, ae, 32);
    q = fixedField(buf, q, ae, 20);
    q = uintField(buf, q, ae, 8);
    q = uintField(buf, q, ae, 1);
    q = uintField(buf, q, ae, 32);
    q = uintField(buf, q, ae, 32);
    if (q !== ae) fail("authorization has too many elements");
    p = authNext;
  }
  return next;
}

const BIG = Number.MAX_SAFE_INTEGER;

/**
 * Validates the span tx data `data[from..n)`; fills `F` with the field boundaries (absolute offsets: F[i] = offset
 * of field i, F[i + 1] = its end); returns the number of fields.
 */
export function scanTxData(data: Uint8Array, from: number, n: number, type: number, F: Int32Array): number {
  const listStart = type === TX_TYPE_LEGACY ? from : from + 1;
  if (type !== TX_TYPE_LEGACY && n - from <= 1) fail("typed tx too short");
  if (scan(data, listStart, n) !== n) fail("trailing bytes");
  if (!sList) fail("tx data must be a list");
  const end = sEnd;
  let p = sStart;
  F[0] = p;
  switch (type) {
    case TX_TYPE_LEGACY:
      F[1] = p = uintField(data, p, end, BIG);
      F[2] = p = uintField(data, p, end, BIG);
      F[3] = p = stringField(data, p, end);
      if (p !== end) fail("too many fields");
      return 3;
    case TX_TYPE_ACCESS_LIST:
      F[1] = p = uintField(data, p, end, BIG);
      F[2] = p = uintField(data, p, end, BIG);
      F[3] = p = stringField(data, p, end);
      F[4] = p = accessListField(data, p, end);
      if (p !== end) fail("too many fields");
      return 4;
    case TX_TYPE_DYNAMIC_FEE:
    case TX_TYPE_SET_CODE: {
      const max = type === TX_TYPE_SET_CODE ? 32 : BIG;
      F[1] = p = uintField(data, p, end, max);
      F[2] = p = uintField(data, p, end, max);
      F[3] = p = uintField(data, p, end, max);
      F[4] = p = stringField(data, p, end);
      F[5] = p = accessListField(data, p, end);
      if (type === TX_TYPE_SET_CODE) {
        F[6] = p = authListField(data, p, end);
        if (p !== end) fail("too many fields");
        return 6;
      }
      if (p !== end) fail("too many fields");
      return 5;
    }
    default:
      return fail(`invalid tx type ${type}`);
  }
}
