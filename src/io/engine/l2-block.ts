/**
 * L2 blocks read from the execution client's eth namespace: block JSON → L2BlockRef (L1 origin and sequence
 * number from the L1-info deposit, the first transaction) and → ExecutionPayloadEnvelope (transactions re-encoded
 * to EIP-2718 bytes, deposits included) and → L2BlockHeader (header fields and transaction hashes).
 */
import { bytesToHex, isHex } from "../../core/codec/hex.js";
import { quantityToBigint, quantityToNumber } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import { encodeRpcTransaction } from "../../protocol/block/rpc-transaction.js";
import { l2BlockFactsFromRpc, l2BlockToBlockRef } from "../../protocol/l2/block-ref.js";
import { isForkActive, type RollupConfig } from "../../protocol/rollup-config.js";
import type { ExecutionPayload, ExecutionPayloadEnvelope, L2BlockHeader } from "../../protocol/engine-api-types.js";

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

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type HeaderFields = Omit<ExecutionPayload, "transactions">;

function blockObject(block: unknown): Json {
  const o = block as Json | null;
  if (o === null || typeof o !== "object") throw new DecodeError("L2 block is not an object");
  if (!Array.isArray(o.transactions)) throw new DecodeError("L2 block has no transactions array");
  return o;
}

/**
 * The payload fields of a block JSON (fork-dependent ones by the block's timestamp), with `extra` (the
 * transactions, or their hashes) after `blockHash`, where an execution payload has its transactions.
 */
function headerFields<E extends object>(o: Json, cfg: RollupConfig, extra: E): Mutable<HeaderFields> & E {
  const timestamp = quantityToNumber(o.timestamp);
  const p: Mutable<HeaderFields> & E = {
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
    ...extra,
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
  return p;
}

function beaconRoot(o: Json): Hash | undefined {
  return o.parentBeaconBlockRoot === undefined || o.parentBeaconBlockRoot === null
    ? undefined
    : (hex(o, "parentBeaconBlockRoot", 32) as Hash);
}

/** Block JSON with full transactions → ExecutionPayloadEnvelope (what newPayload would have received). */
export function payloadFromRpcBlock(block: unknown, cfg: RollupConfig): ExecutionPayloadEnvelope {
  const o = blockObject(block);
  const p: ExecutionPayload = headerFields(o, cfg, {
    transactions: (o.transactions as unknown[]).map((t) => bytesToHex(encodeRpcTransaction(t))),
  });
  const root = beaconRoot(o);
  return root === undefined ? { executionPayload: p } : { executionPayload: p, parentBeaconBlockRoot: root };
}

/** A 32-byte hash field that becomes part of a block ref: validated, lower-cased. */
const refHash = (o: Json, k: string): Hash => hex(o, k, 32) as Hash;

/** A field only compared with the node's own value (any mismatch, malformed included, is decided on the whole block). */
function compared(o: Json, k: string): Hex {
  const v = o[k];
  if (typeof v !== "string") throw new DecodeError(`L2 block: field ${k} invalid`, { value: String(v).slice(0, 80) });
  return v as Hex;
}

/**
 * Block JSON with transaction hashes (`eth_getBlockBy*(…, false)`) → L2BlockHeader: only what consolidation reads.
 * The block's hash, parent hash, number and timestamp (they make its ref) are validated and lower-cased; the other
 * compared fields are taken as the EL wrote them (the comparison is strict, so a malformed one is a mismatch, which
 * is decided on the whole block, validated in full); fields consolidation does not compare (state and receipts
 * roots, logs bloom, gas used, base fee, blob gas) are not read. A full block (transaction objects) is read too,
 * from each object's `hash`.
 */
export function headerFromRpcBlock(block: unknown, cfg: RollupConfig): L2BlockHeader {
  const o = blockObject(block);
  const txs = o.transactions as unknown[];
  const transactionHashes: string[] = new Array(txs.length);
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i];
    const v = typeof t === "object" && t !== null ? (t as Json).hash : t;
    if (typeof v !== "string")
      throw new DecodeError("L2 block: transaction hash invalid", { value: String(v).slice(0, 80) });
    transactionHashes[i] = v;
  }
  const timestamp = quantityToNumber(o.timestamp);
  const root = o.parentBeaconBlockRoot;
  const withdrawals = Array.isArray(o.withdrawals)
    ? o.withdrawals
    : isForkActive(cfg, "canyon", timestamp)
      ? []
      : undefined;
  // As the payload reading does: a withdrawals root only from Isthmus (before it, a payload has none).
  const withdrawalsRoot = isForkActive(cfg, "isthmus", timestamp) ? o.withdrawalsRoot : undefined;
  // One object shape for every header (absent optional fields are undefined, not missing).
  return {
    parentHash: refHash(o, "parentHash"),
    feeRecipient: compared(o, "miner"),
    prevRandao: compared(o, "mixHash") as Hash,
    blockNumber: quantityToNumber(o.number),
    gasLimit: quantityToBigint(o.gasLimit),
    timestamp,
    extraData: compared(o, "extraData"),
    blockHash: refHash(o, "hash"),
    withdrawals,
    withdrawalsRoot:
      withdrawalsRoot === undefined || withdrawalsRoot === null ? undefined : (compared(o, "withdrawalsRoot") as Hash),
    transactionHashes,
    parentBeaconBlockRoot:
      root === undefined || root === null ? undefined : (compared(o, "parentBeaconBlockRoot") as Hash),
  };
}
