/**
 * The `admin_postUnsafePayload` parameter: an `ExecutionPayloadEnvelope` as op-node serialises it
 * (`{"executionPayload": {...}, "parentBeaconBlockRoot"?: "0x…"}`, payload fields as in the Engine API V2–V4 plus
 * the OP `withdrawalsRoot`). Every malformed field is a -32602 error naming it.
 */
import { isHex } from "../../core/codec/hex.js";
import { quantityToBigint, quantityToNumber } from "../../core/codec/quantity.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import type { ExecutionPayload, ExecutionPayloadEnvelope } from "../../node/ports.js";
import type { Withdrawal } from "../../protocol/block/withdrawal.js";
import { InvalidParamsError } from "../errors.js";

type Json = Record<string, unknown>;

const bad = (what: string): InvalidParamsError => new InvalidParamsError(`invalid argument 0: ${what}`);

function obj(v: unknown, what: string): Json {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw bad(`${what} must be an object`);
  return v as Json;
}

function bytes(o: Json, name: string, size?: number): Hex {
  const v = o[name];
  if (v === undefined || v === null) throw bad(`missing executionPayload.${name}`);
  if (!isHex(v) || v.length % 2 !== 0) throw bad(`executionPayload.${name} must be 0x-prefixed hex bytes`);
  if (size !== undefined && v.length !== 2 + 2 * size) throw bad(`executionPayload.${name} must be ${size} bytes`);
  return v.toLowerCase() as Hex;
}

function qty(o: Json, name: string, where = "executionPayload"): bigint {
  const v = o[name];
  if (v === undefined || v === null) throw bad(`missing ${where}.${name}`);
  try {
    return quantityToBigint(v);
  } catch {
    throw bad(`${where}.${name} must be a hex quantity`);
  }
}

function num(o: Json, name: string): number {
  qty(o, name);
  try {
    return quantityToNumber(o[name]);
  } catch {
    throw bad(`executionPayload.${name} is too large`);
  }
}

function withdrawal(v: unknown, i: number): Withdrawal {
  const w = obj(v, `executionPayload.withdrawals[${i}]`);
  const where = `executionPayload.withdrawals[${i}]`;
  const address = w.address;
  if (!isHex(address) || address.length !== 42) throw bad(`${where}.address must be a 20-byte address`);
  return {
    index: qty(w, "index", where),
    validatorIndex: qty(w, "validatorIndex", where),
    address: address.toLowerCase() as Hex,
    amount: qty(w, "amount", where),
  };
}

/** Parses `[ExecutionPayloadEnvelope]`. */
export function parsePostUnsafePayloadParams(params: unknown[]): ExecutionPayloadEnvelope {
  if (params.length !== 1)
    throw new InvalidParamsError(`expected 1 argument (the payload envelope), got ${params.length}`);
  const env = obj(params[0], "the payload envelope");
  const p = obj(env.executionPayload, "executionPayload");
  if (!Array.isArray(p.transactions)) throw bad("executionPayload.transactions must be an array");
  const transactions = p.transactions.map((t, i) => {
    if (!isHex(t) || t.length % 2 !== 0 || t.length < 4)
      throw bad(`executionPayload.transactions[${i}] must be hex bytes`);
    return t.toLowerCase() as Hex;
  });
  const extraData = bytes(p, "extraData");
  if (extraData.length > 2 + 64) throw bad("executionPayload.extraData must be at most 32 bytes");
  const payload: { -readonly [K in keyof ExecutionPayload]: ExecutionPayload[K] } = {
    parentHash: bytes(p, "parentHash", 32) as Hash,
    feeRecipient: bytes(p, "feeRecipient", 20),
    stateRoot: bytes(p, "stateRoot", 32) as Hash,
    receiptsRoot: bytes(p, "receiptsRoot", 32) as Hash,
    logsBloom: bytes(p, "logsBloom", 256),
    prevRandao: bytes(p, "prevRandao", 32) as Hash,
    blockNumber: num(p, "blockNumber"),
    gasLimit: qty(p, "gasLimit"),
    gasUsed: qty(p, "gasUsed"),
    timestamp: num(p, "timestamp"),
    extraData,
    baseFeePerGas: qty(p, "baseFeePerGas"),
    blockHash: bytes(p, "blockHash", 32) as Hash,
    transactions,
  };
  if (p.withdrawals !== undefined && p.withdrawals !== null) {
    if (!Array.isArray(p.withdrawals)) throw bad("executionPayload.withdrawals must be an array");
    payload.withdrawals = p.withdrawals.map(withdrawal);
  }
  if (p.blobGasUsed !== undefined && p.blobGasUsed !== null) payload.blobGasUsed = qty(p, "blobGasUsed");
  if (p.excessBlobGas !== undefined && p.excessBlobGas !== null) payload.excessBlobGas = qty(p, "excessBlobGas");
  if (p.withdrawalsRoot !== undefined && p.withdrawalsRoot !== null) {
    payload.withdrawalsRoot = bytes(p, "withdrawalsRoot", 32) as Hash;
  }
  const out: { -readonly [K in keyof ExecutionPayloadEnvelope]: ExecutionPayloadEnvelope[K] } = {
    executionPayload: payload,
  };
  const pbr = env.parentBeaconBlockRoot;
  if (pbr !== undefined && pbr !== null) {
    if (!isHex(pbr) || pbr.length !== 66) throw bad("parentBeaconBlockRoot must be a 32-byte hash");
    out.parentBeaconBlockRoot = pbr.toLowerCase() as Hash;
  }
  return out;
}
