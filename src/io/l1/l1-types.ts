import { DecodeError } from "../../core/errors/supernode-error.js";
import { isHex } from "../../core/codec/hex.js";
import { quantityToBigint, quantityToNumber } from "../../core/codec/quantity.js";
import type { L1BlockRef } from "../../core/types/block-ref.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { type BlockHeader, parseRpcHeader } from "../../protocol/block/header.js";
import type { RpcTransaction } from "../common/rpc-tx.js";

/**
 * An L1 block header with its hash: `number, hash, parentHash, timestamp, baseFeePerGas, excessBlobGas,
 * blobGasUsed, parentBeaconBlockRoot, mixHash, receiptsRoot, transactionsRoot, withdrawalsRoot, ...`.
 */
export interface L1BlockInfo extends BlockHeader {
  readonly hash: Hash;
}

export type L1Transaction = RpcTransaction;

export interface L1Log {
  readonly address: Address;
  readonly topics: readonly Hash[];
  readonly data: Hex;
  /** Index of the log within the whole block. */
  readonly logIndex: number;
  readonly transactionIndex: number;
}

export interface L1Receipt {
  readonly type: number;
  /** 1 success, 0 failure. */
  readonly status: number;
  readonly cumulativeGasUsed: bigint;
  readonly logs: readonly L1Log[];
  readonly transactionHash: Hash;
  readonly transactionIndex: number;
  readonly blockHash: Hash;
}

export type L1Label = "latest" | "safe" | "finalized";

type Json = Record<string, unknown>;

function hexField(o: Json, key: string, bytes?: number): Hex {
  const v = o[key];
  if (!isHex(v) || v.length % 2 !== 0 || (bytes !== undefined && v.length !== 2 + bytes * 2)) {
    throw new DecodeError(`field ${key} invalid`, { value: String(v).slice(0, 80) });
  }
  return v.toLowerCase() as Hex;
}

/** Decodes the header part of an `eth_getBlockBy*` response (does not verify the hash). */
export function decodeL1BlockInfo(value: unknown): L1BlockInfo {
  const header = parseRpcHeader(value);
  return { ...header, hash: hexField(value as Json, "hash", 32) };
}

/** Decodes an `eth_getBlockReceipts` / `eth_getTransactionReceipt` receipt (node-facing fields). */
export function decodeL1Receipt(value: unknown): L1Receipt {
  if (value === null || typeof value !== "object") throw new DecodeError("receipt is not an object");
  const r = value as Json;
  if (!Array.isArray(r.logs)) throw new DecodeError("receipt has no logs");
  return {
    type: r.type === undefined || r.type === null ? 0 : quantityToNumber(r.type),
    status: r.status === undefined || r.status === null ? 1 : quantityToNumber(r.status),
    cumulativeGasUsed: quantityToBigint(r.cumulativeGasUsed),
    logs: r.logs.map((l: Json) => ({
      address: hexField(l, "address", 20),
      topics: Array.isArray(l.topics) ? l.topics.map((t) => hexField({ t }, "t", 32)) : [],
      data: hexField(l, "data"),
      logIndex: quantityToNumber(l.logIndex),
      transactionIndex: quantityToNumber(l.transactionIndex),
    })),
    transactionHash: hexField(r, "transactionHash", 32),
    transactionIndex: quantityToNumber(r.transactionIndex),
    blockHash: hexField(r, "blockHash", 32),
  };
}

export function toL1BlockRef(info: L1BlockInfo): L1BlockRef {
  return { hash: info.hash, number: info.number, parentHash: info.parentHash, timestamp: info.timestamp };
}
