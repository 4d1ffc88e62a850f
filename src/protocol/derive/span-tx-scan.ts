/**
 * Validation of span-batch tx data (the `tx_datas` column) with the rules of go-ethereum's RLP struct decoding:
 * canonical sizes and integers, exact field counts, 20-byte addresses, 32-byte storage keys, ≤ 32-byte uint256
 * fields for set-code txs. A non-allocating scanner; `span-tx-rebuild.ts` copies the validated items verbatim.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";

import { TX_TYPE_ACCESS_LIST, TX_TYPE_DYNAMIC_FEE, TX_TYPE_LEGACY, TX_TYPE_SET_CODE } from "./span-batch-tx.js";

/** The last item scanned: its payload `[start, end)` and whether it is a list. One per transaction scanned. */
interface ScanState {
  start: number;
  end: number;
  list: boolean;
}

/** Throws the `DecodeError` of a malformed span transaction. */
export function fail(msg: string): never {
  throw new DecodeError(`span tx: ${msg}`);
}

/** Scans the item at `off` (must end by `limit`) into `s`; returns the offset after it. */
function scan(s: ScanState, buf: Uint8Array, off: number, limit: number): number {
  if (off >= limit) fail("unexpected end of input");
  const b = buf[off]!;
  if (b < 0x80) {
    s.start = off;
    s.end = off + 1;
    s.list = false;
    return s.end;
  }
  if (b < 0xb8 || (b >= 0xc0 && b < 0xf8)) {
    s.list = b >= 0xc0;
    const len = b - (s.list ? 0xc0 : 0x80);
    s.start = off + 1;
    s.end = s.start + len;
    if (s.end > limit) fail("value size exceeds available input");
    if (!s.list && len === 1 && buf[s.start]! < 0x80) fail("non-canonical size");
    return s.end;
  }
  s.list = b >= 0xf8;
  const lenOfLen = b - (s.list ? 0xf7 : 0xb7);
  if (off + 1 + lenOfLen > limit) fail("unexpected end of input in size");
  if (buf[off + 1] === 0) fail("non-canonical size (leading zero)");
  let len = 0;
  for (let i = 0; i < lenOfLen; i++) len = len * 256 + buf[off + 1 + i]!;
  if (len < 56) fail("non-canonical size (long form)");
  s.start = off + 1 + lenOfLen;
  s.end = s.start + len;
  if (s.end > limit) fail("value size exceeds available input");
  return s.end;
}

function uintField(s: ScanState, buf: Uint8Array, off: number, limit: number, maxBytes: number): number {
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
  const next = scan(s, buf, off, limit);
  if (s.list) fail("expected integer");
  const len = s.end - s.start;
  if (len > maxBytes) fail("integer too large");
  if (len > 0 && buf[s.start] === 0) fail("non-canonical integer");
  return next;
}

function stringField(s: ScanState, buf: Uint8Array, off: number, limit: number): number {
  const next = scan(s, buf, off, limit);
  if (s.list) fail("expected string");
  return next;
}

function fixedField(s: ScanState, buf: Uint8Array, off: number, limit: number, size: number): number {
  const next = scan(s, buf, off, limit);
  if (s.list || s.end - s.start !== size) fail(`expected ${size}-byte string`);
  return next;
}

function accessListField(s: ScanState, buf: Uint8Array, off: number, limit: number): number {
  if (off < limit && buf[off] === 0xc0) return off + 1; // empty list
  const next = scan(s, buf, off, limit);
  if (!s.list) fail("access list must be a list");
  const end = s.end;
  let p = s.start;
  while (p < end) {
    const tupleNext = scan(s, buf, p, end);
    if (!s.list) fail("access tuple must be a list");
    const te = s.end;
    const a = fixedField(s, buf, s.start, te, 20);
    const k = scan(s, buf, a, te);
    if (!s.list) fail("storage keys must be a list");
    if (k !== te) fail("access tuple has too many elements");
    const ke = s.end;
    let q = s.start;
    while (q < ke) q = fixedField(s, buf, q, ke, 32);
    p = tupleNext;
  }
  return next;
}

function authListField(s: ScanState, buf: Uint8Array, off: number, limit: number): number {
  const next = scan(s, buf, off, limit);
  if (!s.list) fail("authorization list must be a list");
  const end = s.end;
  let p = s.start;
  while (p < end) {
    const authNext = scan(s, buf, p, end);
    if (!s.list) fail("authorization must be a list");
    const ae = s.end;
    let q = uintField(s, buf, s.start, ae, 32);
    q = fixedField(s, buf, q, ae, 20);
    q = uintField(s, buf, q, ae, 8);
    q = uintField(s, buf, q, ae, 1);
    q = uintField(s, buf, q, ae, 32);
    q = uintField(s, buf, q, ae, 32);
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
  const s: ScanState = { start: 0, end: 0, list: false };
  const listStart = type === TX_TYPE_LEGACY ? from : from + 1;
  if (type !== TX_TYPE_LEGACY && n - from <= 1) fail("typed tx too short");
  if (scan(s, data, listStart, n) !== n) fail("trailing bytes");
  if (!s.list) fail("tx data must be a list");
  const end = s.end;
  let p = s.start;
  F[0] = p;
  switch (type) {
    case TX_TYPE_LEGACY:
      F[1] = p = uintField(s, data, p, end, BIG);
      F[2] = p = uintField(s, data, p, end, BIG);
      F[3] = p = stringField(s, data, p, end);
      if (p !== end) fail("too many fields");
      return 3;
    case TX_TYPE_ACCESS_LIST:
      F[1] = p = uintField(s, data, p, end, BIG);
      F[2] = p = uintField(s, data, p, end, BIG);
      F[3] = p = stringField(s, data, p, end);
      F[4] = p = accessListField(s, data, p, end);
      if (p !== end) fail("too many fields");
      return 4;
    case TX_TYPE_DYNAMIC_FEE:
    case TX_TYPE_SET_CODE: {
      const max = type === TX_TYPE_SET_CODE ? 32 : BIG;
      F[1] = p = uintField(s, data, p, end, max);
      F[2] = p = uintField(s, data, p, end, max);
      F[3] = p = uintField(s, data, p, end, max);
      F[4] = p = stringField(s, data, p, end);
      F[5] = p = accessListField(s, data, p, end);
      if (type === TX_TYPE_SET_CODE) {
        F[6] = p = authListField(s, data, p, end);
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
