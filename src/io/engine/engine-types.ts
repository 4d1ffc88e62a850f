/**
 * JSON codecs of the Engine API shapes (op-node §3.1–3.3; the types are `protocol/engine-api-types.ts`). Numbers
 * are `number` (block numbers, timestamps) or `bigint` (gas, fees).
 */
import { bytesToHex, isHex } from "../../core/codec/hex.js";
import { quantityToBigint, quantityToNumber, toQuantity } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hex } from "../../core/types/primitives.js";
import type {
  PayloadStatusKind,
  PayloadStatus,
  ForkchoiceResult,
  PayloadAttributes,
  AttributesFields,
  ExecutionPayload,
  ExecutionPayloadEnvelope,
} from "../../protocol/engine-api-types.js";

const STATUSES = new Set(["VALID", "INVALID", "SYNCING", "ACCEPTED", "INVALID_BLOCK_HASH"]);

type Json = Record<string, unknown>;

function hex(o: Json, k: string, bytes?: number): Hex {
  const v = o[k];
  if (!isHex(v) || v.length % 2 !== 0 || (bytes !== undefined && v.length !== 2 + 2 * bytes)) {
    throw new DecodeError(`engine: field ${k} invalid`, { value: String(v).slice(0, 80) });
  }
  return v.toLowerCase() as Hex;
}

function optBig(o: Json, k: string): bigint | undefined {
  const v = o[k];
  return v === undefined || v === null ? undefined : quantityToBigint(v);
}

export function decodePayloadStatus(value: unknown): PayloadStatus {
  const o = value as Json | null;
  const status = o?.status;
  if (typeof status !== "string" || !STATUSES.has(status)) {
    throw new DecodeError("engine: unknown payload status", { status: String(status) });
  }
  const out: { -readonly [K in keyof PayloadStatus]: PayloadStatus[K] } = { status: status as PayloadStatusKind };
  const o2 = o as Json;
  if (o2.latestValidHash !== undefined)
    out.latestValidHash = o2.latestValidHash === null ? null : hex(o2, "latestValidHash", 32);
  if (o2.validationError !== undefined) out.validationError = (o2.validationError as string | null) ?? null;
  return out;
}

export function decodeForkchoiceResult(value: unknown): ForkchoiceResult {
  const o = value as Json | null;
  if (o === null || typeof o !== "object") throw new DecodeError("engine: forkchoice result is not an object");
  const id = o.payloadId;
  return {
    payloadStatus: decodePayloadStatus(o.payloadStatus),
    payloadId: id === null || id === undefined ? null : hex(o, "payloadId", 8),
  };
}

/** PayloadAttributes JSON, keys in op-node order, optional keys omitted when absent/false. */
export function encodePayloadAttributes(a: PayloadAttributes, standardOnly = false): Json {
  const out = attributesBeforeTransactions(a.fields);
  if (standardOnly) return out;
  out.transactions = a.txBytes.map(bytesToHex);
  return Object.assign(out, attributesAfterTransactions(a.fields));
}

/**
 * `JSON.stringify(encodePayloadAttributes(a, standardOnly))` as parts: the fields before the transactions, the
 * transactions' hex joined (one flat string of ~10 kB, written into the request as it is: raw-json.ts
 * `requestParts`; hex holds nothing JSON escapes), the rest.
 */
export function encodePayloadAttributesParts(a: PayloadAttributes, standardOnly = false): string[] {
  const f = a.fields;
  const before = JSON.stringify(attributesBeforeTransactions(f));
  if (standardOnly) return [before];
  const after = JSON.stringify(attributesAfterTransactions(f));
  const head = `${before.slice(0, -1)},"transactions":`;
  const tail = `,${after.slice(1)}`;
  if (a.txBytes.length === 0) return [`${head}[]${tail}`];
  return [`${head}["`, a.txBytes.map(bytesToHex).join('","'), `"]${tail}`];
}

function attributesBeforeTransactions(a: AttributesFields): Json {
  const out: Json = {
    timestamp: toQuantity(a.timestamp),
    prevRandao: a.prevRandao,
    suggestedFeeRecipient: a.suggestedFeeRecipient,
  };
  if (a.withdrawals !== undefined) out.withdrawals = a.withdrawals;
  if (a.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = a.parentBeaconBlockRoot;
  return out;
}

/** The OP extensions after `transactions` (never empty: gasLimit is always there). */
function attributesAfterTransactions(a: AttributesFields): Json {
  const out: Json = {};
  if (a.noTxPool) out.noTxPool = true;
  out.gasLimit = toQuantity(a.gasLimit);
  if (a.eip1559Params !== undefined) out.eip1559Params = a.eip1559Params;
  // Jovian: a plain JSON number on the wire (op-alloy / op-geth), not a QUANTITY.
  if (a.minBaseFee !== undefined) out.minBaseFee = Number(a.minBaseFee);
  return out;
}

function need<T>(v: T | undefined, k: string): T {
  if (v === undefined) throw new DecodeError(`engine: payload field ${k} missing`);
  return v;
}

export function encodeExecutionPayload(p: ExecutionPayload): Json {
  const out: Json = {
    parentHash: p.parentHash,
    feeRecipient: p.feeRecipient,
    stateRoot: p.stateRoot,
    receiptsRoot: need(p.receiptsRoot, "receiptsRoot"),
    logsBloom: need(p.logsBloom, "logsBloom"),
    prevRandao: p.prevRandao,
    blockNumber: toQuantity(p.blockNumber),
    gasLimit: toQuantity(p.gasLimit),
    gasUsed: toQuantity(need(p.gasUsed, "gasUsed")),
    timestamp: toQuantity(p.timestamp),
    extraData: p.extraData,
    baseFeePerGas: toQuantity(need(p.baseFeePerGas, "baseFeePerGas")),
    blockHash: p.blockHash,
    transactions: p.transactions,
  };
  if (p.withdrawals !== undefined) out.withdrawals = p.withdrawals;
  if (p.blobGasUsed !== undefined) out.blobGasUsed = toQuantity(p.blobGasUsed);
  if (p.excessBlobGas !== undefined) out.excessBlobGas = toQuantity(p.excessBlobGas);
  if (p.withdrawalsRoot !== undefined) out.withdrawalsRoot = p.withdrawalsRoot;
  return out;
}

/** A payload from the EL's JSON (hex checked and lower-cased). */
export function decodeExecutionPayload(value: unknown): ExecutionPayload {
  const o = value as Json | null;
  if (o === null || typeof o !== "object") throw new DecodeError("engine: payload is not an object");
  if (!Array.isArray(o.transactions)) throw new DecodeError("engine: payload has no transactions");
  const out: { -readonly [K in keyof ExecutionPayload]: ExecutionPayload[K] } = {
    parentHash: hex(o, "parentHash", 32),
    feeRecipient: hex(o, "feeRecipient", 20),
    stateRoot: hex(o, "stateRoot", 32),
    receiptsRoot: hex(o, "receiptsRoot", 32),
    logsBloom: hex(o, "logsBloom", 256),
    prevRandao: hex(o, "prevRandao", 32),
    blockNumber: quantityToNumber(o.blockNumber),
    gasLimit: quantityToBigint(o.gasLimit),
    gasUsed: quantityToBigint(o.gasUsed),
    timestamp: quantityToNumber(o.timestamp),
    extraData: hex(o, "extraData"),
    baseFeePerGas: quantityToBigint(o.baseFeePerGas),
    blockHash: hex(o, "blockHash", 32),
    transactions: decodeTransactions(o.transactions),
  };
  if (Array.isArray(o.withdrawals)) out.withdrawals = o.withdrawals;
  const bgu = optBig(o, "blobGasUsed");
  if (bgu !== undefined) out.blobGasUsed = bgu;
  const ebg = optBig(o, "excessBlobGas");
  if (ebg !== undefined) out.excessBlobGas = ebg;
  if (o.withdrawalsRoot !== undefined && o.withdrawalsRoot !== null)
    out.withdrawalsRoot = hex(o, "withdrawalsRoot", 32);
  return out;
}

function decodeTransactions(txs: readonly unknown[]): Hex[] {
  const out = new Array<Hex>(txs.length);
  for (let i = 0; i < txs.length; i++) out[i] = hex({ t: txs[i] }, "t");
  return out;
}

/**
 * getPayloadV2+ result (`{executionPayload, blockValue, ..., parentBeaconBlockRoot?}`) or a bare V1 payload.
 * `onRaw` receives the decoded payload with the EL's own JSON object of it (sent back as is by newPayload).
 */
export function decodePayloadEnvelope(
  value: unknown,
  onRaw?: (payload: ExecutionPayload, raw: Json) => void,
): ExecutionPayloadEnvelope {
  const o = value as Json | null;
  if (o === null || typeof o !== "object") throw new DecodeError("engine: getPayload result is not an object");
  const rawPayload = (o.executionPayload === undefined ? o : o.executionPayload) as Json;
  const executionPayload = decodeExecutionPayload(rawPayload);
  onRaw?.(executionPayload, rawPayload);
  if (o.executionPayload === undefined) return { executionPayload };
  const env: { -readonly [K in keyof ExecutionPayloadEnvelope]: ExecutionPayloadEnvelope[K] } = { executionPayload };
  if (o.parentBeaconBlockRoot !== undefined && o.parentBeaconBlockRoot !== null) {
    env.parentBeaconBlockRoot = hex(o, "parentBeaconBlockRoot", 32);
  }
  return env;
}
