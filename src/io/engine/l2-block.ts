/**
 * L2 blocks read from the execution client's eth namespace: block JSON → L2BlockRef (L1 origin and sequence
 * number from the L1-info deposit, the first transaction) and → ExecutionPayloadEnvelope (transactions re-encoded
 * to EIP-2718 bytes, deposits included).
 */
import { bytesToHex, isHex } from "../../core/codec/hex.js";
import { quantityToBigint, quantityToNumber } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import { encodeRpcTransaction } from "../../protocol/block/rpc-transaction.js";
import { l2BlockFactsFromRpc, l2BlockToBlockRef } from "../../protocol/l2/block-ref.js";
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

/** Block JSON (full transactions) → L2BlockRef, via the protocol layer's L1-info decoding (genesis from config). */
export function l2BlockRefFromRpcBlock(block: unknown, cfg: RollupConfig): L2BlockRef {
  return l2BlockToBlockRef(cfg, l2BlockFactsFromRpc(block));
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
