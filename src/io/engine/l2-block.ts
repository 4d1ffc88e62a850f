/**
 * L2 blocks read from the execution client's eth namespace: block JSON → L2BlockRef (L1 origin and sequence
 * number from the L1-info deposit, the first transaction) and → ExecutionPayloadEnvelope (transactions re-encoded
 * to EIP-2718 bytes, deposits included).
 */
import { bytesToHex, hexToBytes, isHex } from "../../core/codec/hex.js";
import { quantityToBigint, quantityToNumber } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { BlockId, L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import { encodeRpcTransaction } from "../../protocol/block/rpc-transaction.js";
import { isForkActive, type RollupConfig } from "../../protocol/rollup-config.js";
import type { ExecutionPayload, ExecutionPayloadEnvelope } from "./engine-types.js";

type Json = Record<string, unknown>;

function hex(o: Json, k: string, bytes?: number): Hex {
  const v = o[k];
  if (!isHex(v) || v.length % 2 !== 0 || (bytes !== undefined && v.length !== 2 + 2 * bytes)) {
    throw new DecodeError(`L2 block: field ${k} invalid`, { value: String(v).slice(0, 80) });
  }
  return v.toLowerCase() as Hex;
}

const SEL_BEDROCK = "015d8eb9";
const PACKED_SELECTORS = new Set(["440a5e20", "098999be", "3db6be2b"]); // Ecotone, Isthmus, Jovian

/**
 * L1 origin and sequence number from L1-info deposit calldata (every format; op-node §2.9.1). Only the fields
 * needed for a block reference are read.
 */
export function l1OriginFromL1InfoCalldata(input: Hex): { l1origin: BlockId; sequenceNumber: number } {
  const b = hexToBytes(input);
  const sel = Buffer.from(b.subarray(0, 4)).toString("hex");
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const u64 = (off: number): number => {
    if (off + 8 > b.length) throw new DecodeError("L1-info calldata too short");
    return Number(view.getBigUint64(off));
  };
  if (sel === SEL_BEDROCK) {
    if (b.length !== 260) throw new DecodeError("bedrock L1-info calldata must be 260 bytes", { length: b.length });
    // ABI words after the selector: number, time, baseFee, hash, sequenceNumber, ...
    return {
      l1origin: { number: u64(4 + 24), hash: bytesToHex(b.subarray(4 + 96, 4 + 128)) },
      sequenceNumber: u64(4 + 128 + 24),
    };
  }
  if (PACKED_SELECTORS.has(sel)) {
    if (b.length < 164) throw new DecodeError("L1-info calldata too short", { length: b.length });
    // baseFeeScalar u32, blobBaseFeeScalar u32, sequenceNumber u64, timestamp u64, number u64, baseFee, blobBaseFee, hash
    return {
      sequenceNumber: u64(12),
      l1origin: { number: u64(28), hash: bytesToHex(b.subarray(100, 132)) },
    };
  }
  throw new DecodeError("first transaction is not an L1-info deposit", { selector: sel });
}

/** Block JSON (full transactions or hashes) → L2BlockRef. The rollup genesis block takes its origin from config. */
export function l2BlockRefFromRpcBlock(block: unknown, cfg: RollupConfig): L2BlockRef {
  const o = block as Json | null;
  if (o === null || typeof o !== "object") throw new DecodeError("L2 block is not an object");
  const number = quantityToNumber(o.number);
  const hash = hex(o, "hash", 32);
  const base = { hash, number, parentHash: hex(o, "parentHash", 32), timestamp: quantityToNumber(o.timestamp) };
  if (number === cfg.genesis.l2.number) {
    if (hash !== cfg.genesis.l2.hash.toLowerCase()) {
      throw new DecodeError("L2 genesis block hash does not match the rollup config", { hash });
    }
    return { ...base, l1origin: cfg.genesis.l1, sequenceNumber: 0 };
  }
  const txs = o.transactions;
  if (!Array.isArray(txs) || txs.length === 0) throw new DecodeError("L2 block has no transactions", { number });
  const first = txs[0] as Json;
  if (typeof first !== "object" || first === null) {
    throw new DecodeError("L2 block fetched without full transactions", { number });
  }
  if (quantityToNumber(first.type) !== 0x7e) throw new DecodeError("first L2 transaction is not a deposit", { number });
  const input = first.input ?? first.data;
  const { l1origin, sequenceNumber } = l1OriginFromL1InfoCalldata(hex({ input }, "input"));
  return { ...base, l1origin, sequenceNumber };
}

/** Block JSON with full transactions → ExecutionPayloadEnvelope (what newPayload would have received). */
export function payloadFromRpcBlock(block: unknown, cfg: RollupConfig): ExecutionPayloadEnvelope {
  const o = block as Json | null;
  if (o === null || typeof o !== "object") throw new DecodeError("L2 block is not an object");
  const txs = o.transactions;
  if (!Array.isArray(txs)) throw new DecodeError("L2 block has no transactions array");
  const timestamp = quantityToNumber(o.timestamp);
  const p: { -readonly [K in keyof ExecutionPayload]: ExecutionPayload[K] } = {
    parentHash: hex(o, "parentHash", 32),
    feeRecipient: hex(o, "miner", 20),
    stateRoot: hex(o, "stateRoot", 32),
    receiptsRoot: hex(o, "receiptsRoot", 32),
    logsBloom: hex(o, "logsBloom", 256),
    prevRandao: hex(o, "mixHash", 32),
    blockNumber: quantityToNumber(o.number),
    gasLimit: quantityToBigint(o.gasLimit),
    gasUsed: quantityToBigint(o.gasUsed),
    timestamp,
    extraData: hex(o, "extraData"),
    baseFeePerGas: quantityToBigint(o.baseFeePerGas),
    blockHash: hex(o, "hash", 32),
    transactions: txs.map((t) => bytesToHex(encodeRpcTransaction(t))),
  };
  if (isForkActive(cfg, "canyon", timestamp) || Array.isArray(o.withdrawals)) {
    p.withdrawals = Array.isArray(o.withdrawals) ? o.withdrawals : [];
  }
  if (isForkActive(cfg, "ecotone", timestamp) || o.blobGasUsed !== undefined) {
    p.blobGasUsed = o.blobGasUsed === undefined || o.blobGasUsed === null ? 0n : quantityToBigint(o.blobGasUsed);
    p.excessBlobGas =
      o.excessBlobGas === undefined || o.excessBlobGas === null ? 0n : quantityToBigint(o.excessBlobGas);
  }
  if (isForkActive(cfg, "isthmus", timestamp) && o.withdrawalsRoot !== undefined && o.withdrawalsRoot !== null) {
    p.withdrawalsRoot = hex(o, "withdrawalsRoot", 32);
  }
  const env: { -readonly [K in keyof ExecutionPayloadEnvelope]: ExecutionPayloadEnvelope[K] } = { executionPayload: p };
  if (o.parentBeaconBlockRoot !== undefined && o.parentBeaconBlockRoot !== null) {
    env.parentBeaconBlockRoot = hex(o, "parentBeaconBlockRoot", 32) as Hash;
  }
  return env;
}
