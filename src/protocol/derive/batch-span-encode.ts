/**
 * Span batch encoding (the batcher side, op-node `SpanBatch.AppendSingularBatch` / `RawSpanBatch.encode`):
 * consecutive singular batches → the raw span batch columns → body bytes. The format and decoding:
 * `batch-span.ts`.
 */
import { hexToBytes } from "../../core/codec/hex.js";
import type { SingularBatch } from "./batch-singular.js";
import type { RawSpanBatch } from "./batch-span.js";
import { bitlistSize, setBit, writeUvarint, uvarintSize } from "./byte-codec.js";
import { splitFullTx, TX_TYPE_LEGACY } from "./span-batch-tx.js";

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

/** Convenience: singular batches → span batch body bytes. */
export function encodeSpanBatch(
  batches: readonly SingularBatch[],
  opts: { readonly genesisL2Time: number; readonly chainId: bigint; readonly firstSequenceNumber: number },
): Uint8Array {
  return encodeRawSpanBatch(spanBatchFromSingularBatches(batches, opts));
}
