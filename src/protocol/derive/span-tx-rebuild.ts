/**
 * Fast reconstruction of full EIP-2718 transactions from span-batch columns (the hot path of span-batch decoding).
 *
 * The span tx data is validated with the same rules as go-ethereum's RLP struct decoding by the non-allocating
 * scanner of `span-tx-scan.ts`; validated RLP items re-encode to themselves, so they are copied verbatim into the
 * output. All transactions of a span batch are written into one buffer and returned as views of it.
 */
import { uintBytes } from "./rlp.js";
import {
  TX_TYPE_ACCESS_LIST,
  TX_TYPE_DYNAMIC_FEE,
  TX_TYPE_LEGACY,
  TX_TYPE_POST_EXEC,
  TX_TYPE_SET_CODE,
} from "./span-batch-tx.js";
import { fail, scanTxData } from "./span-tx-scan.js";

/** Bit `i` of a span-batch bitlist (big-endian, least significant bit first). */
function bit(bits: Uint8Array, i: number): number {
  const idx = bits.length - 1 - (i >> 3);
  return idx < 0 ? 0 : (bits[idx]! >> (i & 7)) & 1;
}

/** The transaction columns of a span batch. */
export interface SpanBatchTxs {
  readonly totalTxCount: number;
  readonly contractCreationBits: Uint8Array;
  readonly yParityBits: Uint8Array;
  /** `totalTxCount` × (r 32 ‖ s 32). */
  readonly sigs: Uint8Array;
  /** 20 bytes per non-creation tx. */
  readonly tos: Uint8Array;
  /** All tx datas, contiguous as encoded; per tx: type byte (if typed) ‖ RLP list. */
  readonly txData: Uint8Array;
  /** Tx i's data is `txData[txDataOffsets[i] .. txDataOffsets[i + 1])` (length `totalTxCount + 1`). */
  readonly txDataOffsets: Uint32Array;
  /** EIP-2718 type of each tx (0 = legacy). */
  readonly txTypes: Uint8Array;
  readonly nonces: readonly (number | bigint)[];
  readonly gases: readonly (number | bigint)[];
  readonly legacyTxCount: number;
  readonly protectedBits: Uint8Array;
}

// ----- writing -----------------------------------------------------------------------------------------------------

function copy(out: Uint8Array, pos: number, src: Uint8Array, from: number, to: number): number {
  const n = to - from;
  // Short runs: a byte loop; longer runs: one native copy (the view allocation pays off from ~48 bytes).
  if (n < 48) for (let i = 0; i < n; i++) out[pos + i] = src[from + i]!;
  else out.set(src.subarray(from, to), pos);
  return pos + n;
}

function numLen(v: number): number {
  if (v < 0x100) return v === 0 ? 0 : 1;
  if (v < 0x10000) return 2;
  if (v < 0x1000000) return 3;
  if (v < 0x100000000) return 4;
  let n = 4;
  for (let x = Math.floor(v / 0x100000000); x > 0; x = Math.floor(x / 256)) n++;
  return n;
}

function uintSize(v: number | bigint): number {
  if (typeof v === "number") return v < 0x80 ? 1 : 1 + numLen(v);
  const b = uintBytes(v);
  return b.length === 1 && b[0]! < 0x80 ? 1 : 1 + b.length;
}

function writeUint(out: Uint8Array, pos: number, v: number | bigint): number {
  if (typeof v === "number") {
    if (v === 0) {
      out[pos] = 0x80;
      return pos + 1;
    }
    if (v < 0x80) {
      out[pos] = v;
      return pos + 1;
    }
    if (v < 0x100) {
      out[pos] = 0x81;
      out[pos + 1] = v;
      return pos + 2;
    }
    if (v < 0x10000) {
      out[pos] = 0x82;
      out[pos + 1] = v >>> 8;
      out[pos + 2] = v & 0xff;
      return pos + 3;
    }
    if (v < 0x1000000) {
      out[pos] = 0x83;
      out[pos + 1] = v >>> 16;
      out[pos + 2] = (v >>> 8) & 0xff;
      out[pos + 3] = v & 0xff;
      return pos + 4;
    }
    const n = numLen(v);
    out[pos] = 0x80 + n;
    for (let i = n; i >= 1; i--) {
      out[pos + i] = v % 256;
      v = Math.floor(v / 256);
    }
    return pos + 1 + n;
  }
  const b = uintBytes(v);
  if (b.length === 1 && b[0]! < 0x80) {
    out[pos] = b[0]!;
    return pos + 1;
  }
  out[pos] = 0x80 + b.length;
  out.set(b, pos + 1);
  return pos + 1 + b.length;
}

/** Size of the RLP integer item of the 32-byte word at `sigs[off..off+32)`. */
function wordSize(sigs: Uint8Array, off: number): number {
  let i = off;
  const end = off + 32;
  while (i < end && sigs[i] === 0) i++;
  const len = end - i;
  if (len === 0 || (len === 1 && sigs[i]! < 0x80)) return 1;
  return 1 + len;
}

function writeWord(out: Uint8Array, pos: number, sigs: Uint8Array, off: number): number {
  let i = off;
  const end = off + 32;
  while (i < end && sigs[i] === 0) i++;
  const len = end - i;
  if (len === 0) {
    out[pos] = 0x80;
    return pos + 1;
  }
  if (len === 1 && sigs[i]! < 0x80) {
    out[pos] = sigs[i]!;
    return pos + 1;
  }
  out[pos] = 0x80 + len;
  return copy(out, pos + 1, sigs, i, end);
}

function listHeaderSize(len: number): number {
  if (len < 56) return 1;
  return len < 0x100 ? 2 : len < 0x10000 ? 3 : len < 0x1000000 ? 4 : 5;
}

function writeListHeader(out: Uint8Array, pos: number, len: number): number {
  if (len < 56) {
    out[pos] = 0xc0 + len;
    return pos + 1;
  }
  const n = listHeaderSize(len) - 1;
  out[pos] = 0xf7 + n;
  for (let i = n; i >= 1; i--) {
    out[pos + i] = len & 0xff;
    len = Math.floor(len / 256);
  }
  return pos + 1 + n;
}

interface VTable {
  readonly typed: readonly [Uint8Array, Uint8Array];
  readonly unprotected: readonly [Uint8Array, Uint8Array];
  readonly protected: readonly [Uint8Array, Uint8Array];
  readonly chainId: Uint8Array;
}

function item(v: bigint): Uint8Array {
  // Backed by an off-heap buffer like every other copy source, so `copy` stays monomorphic.
  const out = new Uint8Array(new ArrayBuffer(256), 0, uintSize(v));
  writeUint(out, 0, v);
  return out;
}

/** The encoded `v` values of a span batch's transactions (made once per batch). */
function vTable(chainId: bigint): VTable {
  return {
    typed: [item(0n), item(1n)],
    unprotected: [item(27n), item(28n)],
    protected: [item(chainId * 2n + 35n), item(chainId * 2n + 36n)],
    chainId: item(chainId),
  };
}

/**
 * Rebuilds every transaction of a span batch (v recovered from y-parity, the protected bit and `chainId`).
 * Throws `DecodeError` for an invalid tx type, malformed tx data or a set-code tx without recipient.
 */
export function rebuildSpanTxs(t: SpanBatchTxs, chainId: bigint): Uint8Array[] {
  const vt = vTable(chainId);
  // Field boundaries of the last scanned tx data (filled by scanTxData): F[i] = offset of field i, F[i + 1] = its end.
  const F = new Int32Array(8);
  const chainItem = vt.chainId;
  const chainLen = chainItem.length;
  const total = t.totalTxCount;
  // Transactions are written into one buffer sized by an upper bound and returned as views of it. The tx-data
  // column is first copied behind that area so that its long runs move with an allocation-free `copyWithin`
  // (much cheaper than `set(subarray(...))` per field); the fixed-size to and r/s words are moved as 32-bit words
  // through DataViews, which the JIT inlines (cheaper than a builtin call or a byte loop).
  const extra = 130 + 2 * chainItem.length;
  const area = t.txData.length + total * extra;
  const S_DATA = area;
  // Not zero-filled up front: the tx area is written sequentially and its unused tail is cleared at the end.
  const size = S_DATA + t.txData.length;
  const ab = Buffer.allocUnsafeSlow(size).buffer;
  const out = new Uint8Array(ab, 0, size);
  const dv = new DataView(ab, 0, size);
  const sdv = new DataView(t.sigs.buffer, t.sigs.byteOffset, t.sigs.byteLength);
  const tdv = new DataView(t.tos.buffer, t.tos.byteOffset, t.tos.byteLength);
  out.set(t.txData, S_DATA);
  const txs: Uint8Array[] = new Array(total);
  let pos = 0;
  let toIdx = 0;
  let legacyIdx = 0;
  const sigs = t.sigs;
  const data = t.txData;
  const offsets = t.txDataOffsets;
  for (let i = 0; i < total; i++) {
    const dFrom = offsets[i]!;
    const dTo = offsets[i + 1]!;
    const type = t.txTypes[i]!;
    if (type === TX_TYPE_POST_EXEC) {
      // The span tx data is the whole transaction; its nonce, gas, signature and to (if any) mean nothing.
      if (bit(t.contractCreationBits, i) === 0) toIdx++;
      txs[i] = data.slice(dFrom, dTo);
      continue;
    }
    const y = bit(t.yParityBits, i);
    let v: Uint8Array;
    if (type === TX_TYPE_LEGACY) v = bit(t.protectedBits, legacyIdx++) ? vt.protected[y]! : vt.unprotected[y]!;
    else if (type === TX_TYPE_ACCESS_LIST || type === TX_TYPE_DYNAMIC_FEE || type === TX_TYPE_SET_CODE)
      v = vt.typed[y]!;
    else fail(`invalid tx type ${type}`);
    const nf = scanTxData(data, dFrom, dTo, type, F);
    let toOff = -1;
    if (bit(t.contractCreationBits, i) === 0) {
      toOff = toIdx * 20;
      toIdx++;
    } else if (type === TX_TYPE_SET_CODE) {
      fail("to address is required for a set-code tx");
    }
    const nonce = t.nonces[i]!;
    const gas = t.gases[i]!;
    const sigOff = i * 64;
    // Common case: r and s both use all 32 bytes.
    const fullWords = sigs[sigOff] !== 0 && sigs[sigOff + 32] !== 0;
    const payload =
      (type === TX_TYPE_LEGACY ? 0 : chainItem.length) +
      uintSize(nonce) +
      uintSize(gas) +
      (toOff < 0 ? 1 : 21) +
      (F[nf]! - F[0]!) +
      v.length +
      (fullWords ? 66 : wordSize(sigs, sigOff) + wordSize(sigs, sigOff + 32));
    const start = pos;
    if (type !== TX_TYPE_LEGACY) out[pos++] = type;
    pos = writeListHeader(out, pos, payload);
    if (type !== TX_TYPE_LEGACY) {
      if (chainLen === 1) out[pos++] = chainItem[0]!;
      else pos = copy(out, pos, chainItem, 0, chainLen);
    }
    pos = writeUint(out, pos, nonce);
    // span order: legacy/2930 [value, gasPrice, data, (al)]; 1559/7702 [value, tip, feeCap, data, al, (auth)]
    const feeEnd = type === TX_TYPE_LEGACY || type === TX_TYPE_ACCESS_LIST ? F[2]! : F[3]!;
    pos = copy(out, pos, data, F[1]!, feeEnd);
    pos = writeUint(out, pos, gas);
    if (toOff < 0) out[pos++] = 0x80;
    else {
      out[pos++] = 0x94;
      dv.setUint32(pos, tdv.getUint32(toOff));
      dv.setUint32(pos + 4, tdv.getUint32(toOff + 4));
      dv.setUint32(pos + 8, tdv.getUint32(toOff + 8));
      dv.setUint32(pos + 12, tdv.getUint32(toOff + 12));
      dv.setUint32(pos + 16, tdv.getUint32(toOff + 16));
      pos += 20;
    }
    const valueLen = F[1]! - F[0]!;
    if (valueLen === 1) out[pos++] = data[F[0]!]!;
    else pos = copy(out, pos, data, F[0]!, F[1]!);
    out.copyWithin(pos, S_DATA + feeEnd, S_DATA + F[nf]!);
    pos += F[nf]! - feeEnd;
    if (v.length === 1) out[pos++] = v[0]!;
    else pos = copy(out, pos, v, 0, v.length);
    if (fullWords) {
      out[pos] = 0xa0;
      for (let k = 0; k < 32; k += 4) dv.setUint32(pos + 1 + k, sdv.getUint32(sigOff + k));
      out[pos + 33] = 0xa0;
      for (let k = 0; k < 32; k += 4) dv.setUint32(pos + 34 + k, sdv.getUint32(sigOff + 32 + k));
      pos += 66;
    } else {
      pos = writeWord(out, pos, sigs, sigOff);
      pos = writeWord(out, pos, sigs, sigOff + 32);
    }
    txs[i] = new Uint8Array(ab, start, pos - start);
  }
  // Never expose uninitialised memory through `tx.buffer`: clear the unused tail of the tx area.
  out.fill(0, pos, area);
  return txs;
}
