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
 * `deriveSpanBatch` rebuilds the blocks and full transactions (a failure drops only this batch). Encoding (the
 * batcher side): `batch-span-encode.ts`.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import { bytesToHex } from "../../core/codec/hex.js";
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import { MAX_SPAN_BATCH_ELEMENT_COUNT } from "./chain-spec.js";
import { Cursor, getBit, popcount, readBitlist } from "./byte-codec.js";
import type { SingularBatch } from "./batch-singular.js";
import { TX_TYPE_LEGACY } from "./span-batch-tx.js";
import { rebuildSpanTxs, type SpanBatchTxs } from "./span-tx-rebuild.js";

export type { SpanBatchTxs };

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
 * The timestamp of the first block of `b` that carries a PostExec (0x7D) transaction while Sequencer-Defined
 * Metering is not active (`sdmTime` unset or later), else undefined (op-node `DeriveSpanBatch`: such a span is
 * dropped).
 */
export function postExecBeforeSdm(b: SpanBatch, sdmTime: number | undefined): number | undefined {
  for (const el of b.elements) {
    if (sdmTime !== undefined && el.timestamp >= sdmTime) continue;
    for (const tx of el.transactions) if (tx[0] === 0x7d) return el.timestamp;
  }
  return undefined;
}

/** The span tx data of tx `i` (a view). */
export function spanTxData(t: SpanBatchTxs, i: number): Uint8Array {
  return t.txData.subarray(t.txDataOffsets[i]!, t.txDataOffsets[i + 1]!);
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
