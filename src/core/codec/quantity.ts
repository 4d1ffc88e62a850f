import type { Hex } from "../types/primitives.js";
import { hexDigit } from "./hex.js";
import { DecodeError } from "../errors/supernode-error.js";

const QTY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;

/** bigint → JSON-RPC QUANTITY (`0x0`, `0x1a`, no leading zeros). */
export function toQuantity(value: bigint | number): Hex {
  // A safe non-negative integer prints the same digits without a BigInt made for it (docs/performance.md).
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return `0x${value.toString(16)}`;
  const v = typeof value === "number" ? BigInt(value) : value;
  if (v < 0n) throw new DecodeError("negative quantity", { value: v.toString() });
  return `0x${v.toString(16)}`;
}

/**
 * The value of a QUANTITY of at most 13 hex digits (52 bits: every such value is a safe integer), read digit by
 * digit; -1 for anything else (longer, empty, not `0x`-prefixed, a non-hex digit), which the callers then handle
 * the long way, with its errors. Block numbers, timestamps, gas and fees of a payload all fit (docs/performance.md).
 */
function shortQuantity(value: unknown): number {
  if (typeof value !== "string") return -1;
  const n = value.length;
  if (n < 3 || n > 15 || value.charCodeAt(0) !== 48 || value.charCodeAt(1) !== 120) return -1;
  let v = 0;
  for (let i = 2; i < n; i++) {
    const d = hexDigit(value.charCodeAt(i));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** JSON-RPC QUANTITY → bigint. Lenient about leading zeros (some clients send them). */
export function quantityToBigint(value: unknown): bigint {
  const short = shortQuantity(value);
  if (short >= 0) return BigInt(short);
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]+$/.test(value)) {
    throw new DecodeError("invalid quantity", { value: String(value).slice(0, 80) });
  }
  return BigInt(value);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** JSON-RPC QUANTITY → number, checked to be a safe integer. */
export function quantityToNumber(value: unknown): number {
  const short = shortQuantity(value);
  if (short >= 0) return short;
  const v = quantityToBigint(value);
  if (v > MAX_SAFE) throw new DecodeError("quantity exceeds safe integer", { value: String(value) });
  return Number(v);
}

export function isStrictQuantity(value: unknown): value is Hex {
  return typeof value === "string" && QTY_RE.test(value);
}
