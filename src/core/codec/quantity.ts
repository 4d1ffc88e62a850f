import type { Hex } from "../types/primitives.js";
import { DecodeError } from "../errors/supernode-error.js";

const QTY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;

/** bigint → JSON-RPC QUANTITY (`0x0`, `0x1a`, no leading zeros). */
export function toQuantity(value: bigint | number): Hex {
  const v = typeof value === "number" ? BigInt(value) : value;
  if (v < 0n) throw new DecodeError("negative quantity", { value: v.toString() });
  return `0x${v.toString(16)}`;
}

/** JSON-RPC QUANTITY → bigint. Lenient about leading zeros (some clients send them). */
export function quantityToBigint(value: unknown): bigint {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]+$/.test(value)) {
    throw new DecodeError("invalid quantity", { value: String(value).slice(0, 80) });
  }
  return BigInt(value);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** JSON-RPC QUANTITY → number, checked to be a safe integer. */
export function quantityToNumber(value: unknown): number {
  const v = quantityToBigint(value);
  if (v > MAX_SAFE) throw new DecodeError("quantity exceeds safe integer", { value: String(value) });
  return Number(v);
}

export function isStrictQuantity(value: unknown): value is Hex {
  return typeof value === "string" && QTY_RE.test(value);
}
