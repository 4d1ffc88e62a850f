/**
 * Singular batch (type 0): body = `rlp([parent_hash, epoch_number, epoch_hash, timestamp, [tx, …]])`, each tx an
 * EIP-2718 encoding (legacy = RLP list bytes).
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import type { Hash } from "../../core/types/primitives.js";
import {
  expectFixed,
  headerSize,
  readItem,
  readListExact,
  expectString,
  readUintNumber,
  stringSize,
  uintBytes,
  writeHeader,
  writeString,
} from "./rlp.js";

/** Inputs of one L2 block as posted by the batcher. */
export interface SingularBatch {
  readonly parentHash: Hash;
  /** L1 origin (epoch) number. */
  readonly epochNum: number;
  readonly epochHash: Hash;
  readonly timestamp: number;
  /** EIP-2718 encoded transactions (no deposits). */
  readonly transactions: readonly Uint8Array[];
}

/**
 * Decodes a singular batch body (without the type byte). Like op-node, bytes after the RLP list are ignored.
 * Numbers beyond 2^53 decode lossily (they can only ever fail validity checks).
 */
export function decodeSingularBatch(body: Uint8Array): SingularBatch {
  const list = readItem(body, 0);
  const f = readListExact(body, list, 5, "singular batch");
  expectFixed(f[0]!, 32, "parent_hash");
  expectFixed(f[2]!, 32, "epoch_hash");
  const txList = f[4]!;
  if (!txList.isList) throw new DecodeError("singular batch: transactions must be a list");
  // The transactions' bytes are views of the body (no copy).
  const transactions: Uint8Array[] = [];
  for (let off = txList.start; off < txList.end; ) {
    const tx = readItem(body, off, txList.end);
    expectString(tx, "transaction");
    transactions.push(body.subarray(tx.start, tx.end));
    off = tx.next;
  }
  return {
    parentHash: bytesToHex(body.subarray(f[0]!.start, f[0]!.end)),
    epochNum: readUintNumber(body, f[1]!, "epoch_number"),
    epochHash: bytesToHex(body.subarray(f[2]!.start, f[2]!.end)),
    timestamp: readUintNumber(body, f[3]!, "timestamp"),
    transactions,
  };
}

/** Encodes a singular batch body (without the type byte). */
export function encodeSingularBatch(batch: SingularBatch): Uint8Array {
  const parent = hexToBytes(batch.parentHash);
  const epochHash = hexToBytes(batch.epochHash);
  if (parent.length !== 32 || epochHash.length !== 32) throw new RangeError("hashes must be 32 bytes");
  const epochNum = uintBytes(batch.epochNum);
  const ts = uintBytes(batch.timestamp);
  let txsLen = 0;
  for (const tx of batch.transactions) txsLen += stringSize(tx.length, tx[0] ?? 0);
  const payload =
    33 +
    33 +
    stringSize(epochNum.length, epochNum[0] ?? 0) +
    stringSize(ts.length, ts[0] ?? 0) +
    headerSize(txsLen) +
    txsLen;
  const out = new Uint8Array(headerSize(payload) + payload);
  let pos = writeHeader(out, 0, payload, true);
  pos = writeString(out, pos, parent);
  pos = writeString(out, pos, epochNum);
  pos = writeString(out, pos, epochHash);
  pos = writeString(out, pos, ts);
  pos = writeHeader(out, pos, txsLen, true);
  for (const tx of batch.transactions) pos = writeString(out, pos, tx);
  return out;
}
