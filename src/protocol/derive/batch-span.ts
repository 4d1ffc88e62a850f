/**
 * Span batch (type 1, Delta): a run of consecutive L2 blocks in a compact columnar encoding.
 *
 * body = prefix ‖ payload;
 * prefix = rel_timestamp (uvarint) ‖ l1_origin_num (uvarint) ‖ parent_check (20) ‖ l1_origin_check (20);
 * payload = block_count (uvarint) ‖ origin_bits ‖ block_tx_counts (uvarints) ‖ txs;
 * txs = contract_creation_bits ‖ y_parity_bits ‖ tx_sigs (r‖s each 32) ‖ tx_tos (20 each, non-creations) ‖
 *       tx_datas ‖ tx_nonces (uvarints) ‖ tx_gases (uvarints) ‖ protected_bits (one per legacy tx).
 *
 * Decoding is two-step like op-node: `decodeRawSpanBatch` parses the columns (a failure ends the channel), and
 * `deriveSpanBatch` rebuilds the blocks and full transactions (a failure drops only this batch).
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import { MAX_SPAN_BATCH_ELEMENT_COUNT } from "./chain-spec.js";
import { bitlistSize, Cursor, getBit, popcount, readBitlist, setBit, uvarintSize, writeUvarint } from "./byte-codec.js";
import type { SingularBatch } from "./batch-singular.js";
import { splitFullTx, TX_TYPE_LEGACY } from "./span-batch-tx.js";
import { rebuildSpanTxs } from "./span-tx-rebuild.js";

/** Raised (as a DecodeError) when a span batch exceeds the element limits. */
export const ERR_TOO_BIG_SPAN_BATCH = "span batch size limit reached";

/** The span batch exactly as encoded (columns); re-encodes byte for byte. */
export interface RawSpanBatch {
  readonly relTimestamp: number | bigint;
  readonly l1OriginNum: number | bigint;
  /** First 20 bytes of the first block's parent hash. */
  readonly parentCheck: Uint8Array;
  /** First 20 bytes of the last block's L1 origin hash. */
  readonly l1OriginCheck: Uint8Array;
  readonly blockCount: number;
  /** Bitlist of `blockCount` bits: bit i set when block i starts a new L1 origin. */
  readonly originBits: Uint8Array;
  readonly blockTxCounts: readonly number[];
  readonly txs: SpanBatchTxs;
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

/** One block of a derived span batch. */
export interface SpanBatchElement {
  readonly epochNum: number;
  readonly timestamp: number;
  readonly transactions: readonly Uint8Array[];
}

/** A derived span batch: blocks with full transactions, plus the prefix checks. */
export interface SpanBatch {
  readonly parentCheck: Uint8Array;
  readonly l1OriginCheck: Uint8Array;
  readonly elements: readonly SpanBatchElement[];
}

const tooBig = (): DecodeError => new DecodeError(ERR_TOO_BIG_SPAN_BATCH);

// Module-local copies for the per-tx loop: imported bindings may be read through accessors under some loaders.
const MAX_ELEMENTS = MAX_SPAN_BATCH_ELEMENT_COUNT;
const LEGACY = TX_TYPE_LEGACY;

function sumCounts(counts: readonly number[]): number {
  let total = 0;
  for (const c of counts) total += c;
  return total;
}

/**
 * Reads the `total` span tx data items starting at the cursor (each: an optional type byte ≤ 0x7f, then one RLP
 * list whose payload must not exceed the element limit). Returns the contiguous region, offsets and types.
 */
function readTxDatas(
  c: Cursor,
  total: number,
): { region: Uint8Array; offsets: Uint32Array; types: Uint8Array; legacy: number } {
  const buf = c.buf;
  const end = c.end;
  const regionStart = c.pos;
  const offsets = new Uint32Array(total + 1);
  const types = new Uint8Array(total);
  let legacy = 0;
  let p = c.pos;
  for (let i = 0; i < total; i++) {
    offsets[i] = p - regionStart;
    if (p >= end) throw new DecodeError("unexpected end of input reading tx data");
    let b = buf[p]!;
    let type = LEGACY;
    if (b <= 0x7f) {
      type = b;
      p++;
      if (p >= end) throw new DecodeError("unexpected end of input reading tx data");
      b = buf[p]!;
    }
    if (b < 0xc0) throw new DecodeError("tx RLP prefix type must be list");
    let len: number;
    let hdr: number;
    if (b < 0xf8) {
      len = b - 0xc0;
      hdr = 1;
    } else {
      const lenOfLen = b - 0xf7;
      if (p + 1 + lenOfLen > end) throw new DecodeError("unexpected end of input reading tx data size");
      if (buf[p + 1] === 0) throw new DecodeError("rlp: non-canonical size information");
      len = 0;
      for (let k = 0; k < lenOfLen; k++) len = len * 256 + buf[p + 1 + k]!;
      if (len < 56) throw new DecodeError("rlp: non-canonical size information");
      hdr = 1 + lenOfLen;
    }
    if (len > MAX_ELEMENTS) throw tooBig();
    p += hdr + len;
    if (p > end) throw new DecodeError("unexpected end of input reading tx data");
    types[i] = type;
    if (type === LEGACY) legacy++;
  }
  offsets[total] = p - regionStart;
  c.pos = p;
  return { region: buf.subarray(regionStart, p), offsets, types, legacy };
}

/** Decodes a span batch body (without the type byte). Trailing bytes are ignored, as in op-node. */
export function decodeRawSpanBatch(body: Uint8Array): RawSpanBatch {
  const c = new Cursor(body);
  const relTimestamp = c.uvarint("rel timestamp");
  const l1OriginNum = c.uvarint("l1 origin num");
  const parentCheck = c.take(20, "parent check");
  const l1OriginCheck = c.take(20, "l1 origin check");
  const blockCount = c.uvarintMax(MAX_SPAN_BATCH_ELEMENT_COUNT, "block count", tooBig);
  if (blockCount === 0) throw new DecodeError("span-batch must not be empty");
  const originBits = readBitlist(c, blockCount, "origin bits");
  const blockTxCounts: number[] = new Array(blockCount);
  for (let i = 0; i < blockCount; i++) {
    blockTxCounts[i] = c.uvarintMax(MAX_SPAN_BATCH_ELEMENT_COUNT, "block tx count", tooBig);
  }
  const total = sumCounts(blockTxCounts);
  if (total > MAX_SPAN_BATCH_ELEMENT_COUNT) throw tooBig();
  const contractCreationBits = readBitlist(c, total, "contract creation bits");
  const yParityBits = readBitlist(c, total, "y parity bits");
  const sigs = c.take(total * 64, "tx sigs");
  const creations = popcount(contractCreationBits, total);
  const tos = c.take((total - creations) * 20, "tx tos");
  const { region, offsets, types, legacy: legacyTxCount } = readTxDatas(c, total);
  const nonces: (number | bigint)[] = new Array(total);
  for (let i = 0; i < total; i++) nonces[i] = c.uvarint("tx nonce");
  const gases: (number | bigint)[] = new Array(total);
  for (let i = 0; i < total; i++) gases[i] = c.uvarint("tx gas");
  const protectedBits = readBitlist(c, legacyTxCount, "protected bits");
  return {
    relTimestamp,
    l1OriginNum,
    parentCheck,
    l1OriginCheck,
    blockCount,
    originBits,
    blockTxCounts,
    txs: {
      totalTxCount: total,
      contractCreationBits,
      yParityBits,
      sigs,
      tos,
      txData: region,
      txDataOffsets: offsets,
      txTypes: types,
      nonces,
      gases,
      legacyTxCount,
      protectedBits,
    },
  };
}

/** Encodes a raw span batch body (without the type byte). */
export function encodeRawSpanBatch(b: RawSpanBatch): Uint8Array {
  const t = b.txs;
  if (b.parentCheck.length !== 20 || b.l1OriginCheck.length !== 20) throw new RangeError("checks must be 20 bytes");
  let size = uvarintSize(b.relTimestamp) + uvarintSize(b.l1OriginNum) + 40 + uvarintSize(b.blockCount);
  size += bitlistSize(b.blockCount);
  for (const n of b.blockTxCounts) size += uvarintSize(n);
  size += 2 * bitlistSize(t.totalTxCount) + t.sigs.length + t.tos.length;
  size += t.txData.length;
  for (const n of t.nonces) size += uvarintSize(n);
  for (const g of t.gases) size += uvarintSize(g);
  size += bitlistSize(t.legacyTxCount);
  const out = new Uint8Array(size);
  let pos = writeUvarint(out, 0, b.relTimestamp);
  pos = writeUvarint(out, pos, b.l1OriginNum);
  out.set(b.parentCheck, pos);
  pos += 20;
  out.set(b.l1OriginCheck, pos);
  pos += 20;
  pos = writeUvarint(out, pos, b.blockCount);
  pos = putBits(out, pos, b.originBits, b.blockCount);
  for (const n of b.blockTxCounts) pos = writeUvarint(out, pos, n);
  pos = putBits(out, pos, t.contractCreationBits, t.totalTxCount);
  pos = putBits(out, pos, t.yParityBits, t.totalTxCount);
  out.set(t.sigs, pos);
  pos += t.sigs.length;
  out.set(t.tos, pos);
  pos += t.tos.length;
  out.set(t.txData, pos);
  pos += t.txData.length;
  for (const n of t.nonces) pos = writeUvarint(out, pos, n);
  for (const g of t.gases) pos = writeUvarint(out, pos, g);
  putBits(out, pos, t.protectedBits, t.legacyTxCount);
  return out;
}

function putBits(out: Uint8Array, pos: number, bits: Uint8Array, n: number): number {
  const size = bitlistSize(n);
  if (bits.length !== size) throw new RangeError("bitlist has the wrong size");
  out.set(bits, pos);
  return pos + size;
}

function toSafeNumber(v: number | bigint): number {
  return typeof v === "number" ? v : Number(v);
}

/**
 * Derives the blocks of a raw span batch: timestamps, L1 origin numbers and the full transactions (with v
 * recovered from y-parity, protection and `chainId`). Throws `DecodeError` when a transaction cannot be rebuilt.
 */
export function deriveSpanBatch(
  raw: RawSpanBatch,
  blockTime: number,
  genesisL2Time: number,
  chainId: bigint,
): SpanBatch {
  const txs = rebuildSpanTxs(raw.txs, chainId);
  const n = raw.blockCount;
  const originNums: number[] = new Array(n);
  let origin = toSafeNumber(raw.l1OriginNum);
  for (let i = n - 1; i >= 0; i--) {
    originNums[i] = origin;
    if (i > 0 && getBit(raw.originBits, i) === 1) origin--;
  }
  const base = genesisL2Time + toSafeNumber(raw.relTimestamp);
  const elements: SpanBatchElement[] = new Array(n);
  let txIdx = 0;
  for (let i = 0; i < n; i++) {
    const count = raw.blockTxCounts[i]!;
    elements[i] = {
      epochNum: originNums[i]!,
      timestamp: base + blockTime * i,
      transactions: txs.slice(txIdx, txIdx + count),
    };
    txIdx += count;
  }
  return { parentCheck: raw.parentCheck, l1OriginCheck: raw.l1OriginCheck, elements };
}

/**
 * Builds a raw span batch from consecutive singular batches (batcher side, op-node `SpanBatch.AppendSingularBatch`).
 * `firstSequenceNumber` is the sequence number of the first block within its epoch: origin bit 0 is set when it
 * is 0. Throws `DecodeError` when a transaction cannot be represented (blob/deposit type, wrong chain ID).
 */
export function spanBatchFromSingularBatches(
  batches: readonly SingularBatch[],
  opts: { readonly genesisL2Time: number; readonly chainId: bigint; readonly firstSequenceNumber: number },
): RawSpanBatch {
  if (batches.length === 0) throw new RangeError("cannot build an empty span batch");
  const first = batches[0]!;
  const last = batches[batches.length - 1]!;
  const blockCount = batches.length;
  const originBits = new Uint8Array(bitlistSize(blockCount));
  const blockTxCounts: number[] = [];
  const parts = [];
  for (let i = 0; i < blockCount; i++) {
    const b = batches[i]!;
    if (i > 0 && batches[i - 1]!.timestamp > b.timestamp) throw new RangeError("span batch is not ordered");
    const bit = i === 0 ? opts.firstSequenceNumber === 0 : batches[i - 1]!.epochNum < b.epochNum;
    if (bit) setBit(originBits, i, 1);
    blockTxCounts.push(b.transactions.length);
    for (const tx of b.transactions) parts.push(splitFullTx(tx, opts.chainId));
  }
  const total = parts.length;
  const contractCreationBits = new Uint8Array(bitlistSize(total));
  const yParityBits = new Uint8Array(bitlistSize(total));
  const sigs = new Uint8Array(total * 64);
  const tosList: Uint8Array[] = [];
  const legacy = parts.filter((p) => p.type === TX_TYPE_LEGACY).length;
  const protectedBits = new Uint8Array(bitlistSize(legacy));
  let legacyIdx = 0;
  parts.forEach((p, i) => {
    if (p.to === undefined) setBit(contractCreationBits, i, 1);
    else tosList.push(p.to);
    if (p.yParity) setBit(yParityBits, i, 1);
    sigs.set(p.r, i * 64);
    sigs.set(p.s, i * 64 + 32);
    if (p.type === TX_TYPE_LEGACY) {
      if (p.protected) setBit(protectedBits, legacyIdx, 1);
      legacyIdx++;
    }
  });
  const tos = new Uint8Array(tosList.length * 20);
  for (let i = 0; i < tosList.length; i++) tos.set(tosList[i]!, i * 20);
  return {
    relTimestamp: first.timestamp - opts.genesisL2Time,
    l1OriginNum: last.epochNum,
    parentCheck: hexToBytes(first.parentHash).subarray(0, 20),
    l1OriginCheck: hexToBytes(last.epochHash).subarray(0, 20),
    blockCount,
    originBits,
    blockTxCounts,
    txs: {
      totalTxCount: total,
      contractCreationBits,
      yParityBits,
      sigs,
      tos,
      ...concatTxData(parts.map((p) => p.txData)),
      txTypes: Uint8Array.from(parts.map((p) => p.type)),
      nonces: parts.map((p) => p.nonce),
      gases: parts.map((p) => p.gas),
      legacyTxCount: legacy,
      protectedBits,
    },
  };
}

/** Concatenates per-tx span tx datas into the contiguous region form. */
export function concatTxData(datas: readonly Uint8Array[]): { txData: Uint8Array; txDataOffsets: Uint32Array } {
  const offsets = new Uint32Array(datas.length + 1);
  let len = 0;
  for (let i = 0; i < datas.length; i++) {
    offsets[i] = len;
    len += datas[i]!.length;
  }
  offsets[datas.length] = len;
  const txData = new Uint8Array(len);
  for (let i = 0; i < datas.length; i++) txData.set(datas[i]!, offsets[i]!);
  return { txData, txDataOffsets: offsets };
}

/** The span tx data of tx `i` (a view). */
export function spanTxData(t: SpanBatchTxs, i: number): Uint8Array {
  return t.txData.subarray(t.txDataOffsets[i]!, t.txDataOffsets[i + 1]!);
}

/** Convenience: singular batches → span batch body bytes. */
export function encodeSpanBatch(
  batches: readonly SingularBatch[],
  opts: { readonly genesisL2Time: number; readonly chainId: bigint; readonly firstSequenceNumber: number },
): Uint8Array {
  return encodeRawSpanBatch(spanBatchFromSingularBatches(batches, opts));
}

/** Whether the first 20 bytes of `hash` equal `check`. */
export function matchesCheck(check: Uint8Array, hash: Hash): boolean {
  return hash.length === 66 && bytesToHex(check) === hash.slice(0, 42).toLowerCase();
}

/** First block's timestamp. */
export function spanStartTimestamp(b: SpanBatch): number {
  return b.elements[0]!.timestamp;
}
/** Last block's timestamp. */
export function spanLastTimestamp(b: SpanBatch): number {
  return b.elements[b.elements.length - 1]!.timestamp;
}
/** First block's L1 origin number. */
export function spanStartEpoch(b: SpanBatch): number {
  return b.elements[0]!.epochNum;
}
/** Last block's L1 origin number. */
export function spanLastEpoch(b: SpanBatch): number {
  return b.elements[b.elements.length - 1]!.epochNum;
}

/**
 * Span → singular conversion (op-node `GetSingularBatches`): skips blocks at or before the safe head, looks up each
 * block's epoch hash in `l1Origins`. The parent hash of each result is left as the zero hash; the batch stage fills
 * it in when the batch is popped. Returns an error string instead of throwing.
 */
export function toSingularBatches(
  b: SpanBatch,
  l1Origins: readonly L1BlockRef[],
  safeHead: L2BlockRef,
): { ok: true; batches: SingularBatch[] } | { ok: false; error: string } {
  const out: SingularBatch[] = [];
  let originIdx = 0;
  for (const el of b.elements) {
    if (el.timestamp <= safeHead.timestamp) continue;
    if (el.epochNum < safeHead.l1origin.number) {
      return { ok: false, error: `batch (ts ${el.timestamp}) L1 origin ${el.epochNum} behind safe head origin` };
    }
    let hash: Hash | undefined;
    for (let i = originIdx; i < l1Origins.length; i++) {
      if (l1Origins[i]!.number === el.epochNum) {
        originIdx = i;
        hash = l1Origins[i]!.hash;
        break;
      }
    }
    if (hash === undefined) {
      return { ok: false, error: `unable to find L1 origin ${el.epochNum} for batch (ts ${el.timestamp})` };
    }
    out.push({
      parentHash: `0x${"00".repeat(32)}`,
      epochNum: el.epochNum,
      epochHash: hash,
      timestamp: el.timestamp,
      transactions: el.transactions,
    });
  }
  return { ok: true, batches: out };
}
