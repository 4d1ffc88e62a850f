import { hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { asArray, asObject, jsonBig, jsonHex, jsonNum, jsonOptBig } from "./json.js";
import { keccak } from "./keccak.js";
import { rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "./rlp.js";
import { orderedTrieRoot } from "./trie.js";

export interface Log {
  readonly address: Address;
  readonly topics: readonly Hash[];
  readonly data: Hex;
  /** Index of the log within its block (as reported by RPC), when known. */
  readonly logIndex?: number;
}

/** The consensus fields of a transaction receipt (plus the OP deposit extensions). */
export interface Receipt {
  readonly type: number;
  /** 1 success, 0 failure (post-Byzantium). */
  readonly status: 0 | 1;
  readonly cumulativeGasUsed: bigint;
  readonly logs: readonly Log[];
  /** Pre-Byzantium intermediate state root; replaces `status` when present. */
  readonly root?: Hash;
  /** Deposit receipts (type 0x7E) from Regolith on. */
  readonly depositNonce?: bigint;
  /** Deposit receipts from Canyon on (value 1). */
  readonly depositReceiptVersion?: bigint;
}

function bloomAdd(bloom: Uint8Array, data: Uint8Array): void {
  const h = keccak(data);
  for (let i = 0; i < 6; i += 2) {
    const bit = (((h[i] as number) << 8) | (h[i + 1] as number)) & 2047;
    const idx = 255 - (bit >> 3);
    bloom[idx] = (bloom[idx] as number) | (1 << (bit & 7));
  }
}

/** The 2048-bit logs bloom of a list of logs (address and every topic). */
export function logsBloom(logs: readonly Log[]): Uint8Array {
  const bloom = new Uint8Array(256);
  for (const l of logs) {
    bloomAdd(bloom, hexToBytes(l.address));
    for (const t of l.topics) bloomAdd(bloom, hexToBytes(t));
  }
  return bloom;
}

/** ORs blooms together (the block bloom is the OR of its receipts' blooms). */
export function mergeBlooms(blooms: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(256);
  for (const b of blooms) for (let i = 0; i < 256; i++) out[i] = (out[i] as number) | (b[i] as number);
  return out;
}

function encodeLog(l: Log): Uint8Array {
  return rlpEncodeListRaw([
    rlpEncodeBytes(hexToBytes(l.address)),
    rlpEncodeListRaw(l.topics.map((t) => rlpEncodeBytes(hexToBytes(t)))),
    rlpEncodeBytes(hexToBytes(l.data)),
  ]);
}

/** EIP-2718 receipt encoding: `rlp([status, cumulativeGasUsed, bloom, logs(, depositNonce, version)])`, typed-prefixed. */
export function encodeReceipt(r: Receipt, bloom: Uint8Array = logsBloom(r.logs)): Uint8Array {
  const items: Uint8Array[] = [
    rlpEncodeBytes(r.root !== undefined ? hexToBytes(r.root) : uintToBytes(r.status)),
    rlpEncodeBytes(uintToBytes(r.cumulativeGasUsed)),
    rlpEncodeBytes(bloom),
    rlpEncodeListRaw(r.logs.map(encodeLog)),
  ];
  if (r.type === 0x7e && r.depositNonce !== undefined) {
    items.push(rlpEncodeBytes(uintToBytes(r.depositNonce)));
    if (r.depositReceiptVersion !== undefined) items.push(rlpEncodeBytes(uintToBytes(r.depositReceiptVersion)));
  }
  const body = rlpEncodeListRaw(items);
  if (r.type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = r.type;
  out.set(body, 1);
  return out;
}

/** The header's `receiptsRoot` for a block's receipts in order. */
export function receiptsRoot(receipts: readonly Receipt[]): Hash {
  return orderedTrieRoot(receipts.map((r) => encodeReceipt(r)));
}

/** Parses an `eth_getTransactionReceipt` / `eth_getBlockReceipts` JSON receipt. */
export function parseRpcReceipt(json: unknown): Receipt {
  const o = asObject(json, "receipt");
  const w = "receipt";
  const type = o.type === undefined || o.type === null ? 0 : jsonNum(o, "type", w);
  const logs = asArray(o.logs ?? [], "receipt logs").map((lj): Log => {
    const l = asObject(lj, "log");
    const topics = asArray(l.topics ?? [], "log topics").map((t) => {
      if (typeof t !== "string" || hexToBytes(t).length !== 32) throw new DecodeError("log topic must be 32 bytes");
      return t.toLowerCase() as Hash;
    });
    const logIndex = l.logIndex === undefined || l.logIndex === null ? undefined : jsonNum(l, "logIndex", "log");
    return {
      address: jsonHex(l, "address", "log", 20),
      topics,
      data: jsonHex(l, "data", "log"),
      ...(logIndex === undefined ? {} : { logIndex }),
    };
  });
  const root = o.root === undefined || o.root === null ? undefined : jsonHex(o, "root", w, 32);
  const status = root === undefined ? jsonNum(o, "status", w) : 0;
  if (status !== 0 && status !== 1) throw new DecodeError("receipt: status must be 0 or 1");
  const depositNonce = jsonOptBig(o, "depositNonce", w);
  const depositReceiptVersion = jsonOptBig(o, "depositReceiptVersion", w);
  return {
    type,
    status,
    cumulativeGasUsed: jsonBig(o, "cumulativeGasUsed", w),
    logs,
    ...(root === undefined ? {} : { root }),
    ...(depositNonce === undefined ? {} : { depositNonce }),
    ...(depositReceiptVersion === undefined ? {} : { depositReceiptVersion }),
  };
}
