import { hexToBytes, isHex } from "../../core/codec/hex.js";
import { quantityToBigint, quantityToNumber } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hex } from "../../core/types/primitives.js";

/** Helpers to read untrusted JSON-RPC objects; every failure is a DecodeError. */
export type JsonObject = Record<string, unknown>;

export function asObject(v: unknown, what: string): JsonObject {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new DecodeError(`${what}: not an object`);
  return v as JsonObject;
}

export function asArray(v: unknown, what: string): readonly unknown[] {
  if (!Array.isArray(v)) throw new DecodeError(`${what}: not an array`);
  return v;
}

export function req(o: JsonObject, name: string, what: string): unknown {
  const v = o[name];
  if (v === undefined || v === null) throw new DecodeError(`${what}: missing ${name}`);
  return v;
}

export function jsonHex(o: JsonObject, name: string, what: string, size?: number): Hex {
  const v = req(o, name, what);
  if (!isHex(v) || v.length % 2 !== 0) throw new DecodeError(`${what}: ${name} is not hex`);
  if (size !== undefined && v.length !== 2 + 2 * size) throw new DecodeError(`${what}: ${name} must be ${size} bytes`);
  return v.toLowerCase() as Hex;
}

export function jsonBytes(o: JsonObject, name: string, what: string, size?: number): Uint8Array {
  return hexToBytes(jsonHex(o, name, what, size));
}

export function jsonBig(o: JsonObject, name: string, what: string): bigint {
  try {
    return quantityToBigint(req(o, name, what));
  } catch (e) {
    throw new DecodeError(`${what}: ${name} is not a quantity`, {}, e);
  }
}

export function jsonNum(o: JsonObject, name: string, what: string): number {
  try {
    return quantityToNumber(req(o, name, what));
  } catch (e) {
    throw new DecodeError(`${what}: ${name} is not a quantity`, {}, e);
  }
}

export function jsonOptBig(o: JsonObject, name: string, what: string): bigint | undefined {
  const v = o[name];
  return v === undefined || v === null ? undefined : jsonBig(o, name, what);
}
