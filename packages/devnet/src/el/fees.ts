import { DecodeError, type Hex, hexToBytes } from "supernode/core";
import {
  decodeEip1559Params,
  decodeExtraData as decodeProtocolExtraData,
  decodeL1InfoData,
  type Eip1559Params,
  encodeHoloceneExtraData,
  encodeJovianExtraData,
  type ExtraDataParams,
  type L1InfoFormat,
} from "supernode/protocol";
import type { Eip1559Constants, L1FeeFields } from "./types.js";

/** EIP-1559 initial base fee (genesis). */
export const INITIAL_BASE_FEE = 1_000_000_000n;

export type { ExtraDataParams };

/** Holocene: `0x00 ‖ denominator u32 ‖ elasticity u32`; Jovian: `0x01 ‖ … ‖ minBaseFee u64` (protocol encoders). */
export function encodeExtraData(p: ExtraDataParams, jovian: boolean): Hex {
  return jovian
    ? encodeJovianExtraData(p.denominator, p.elasticity, p.minBaseFee ?? 0n)
    : encodeHoloceneExtraData(p.denominator, p.elasticity);
}

/** Decodes Holocene/Jovian extraData with the protocol decoder; undefined when it has neither shape. */
export function decodeExtraData(extra: Hex): ExtraDataParams | undefined {
  try {
    return decodeProtocolExtraData(extra);
  } catch (e) {
    if (e instanceof DecodeError) return undefined;
    throw e;
  }
}

/** Splits 8-byte `eip1559Params` (attributes) into denominator and elasticity. */
export const splitEip1559Params: (params: Hex) => Eip1559Params = decodeEip1559Params;

export interface ParentForBaseFee {
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly baseFeePerGas: bigint;
  readonly extraData: Hex;
  readonly blobGasUsed?: bigint;
}

/**
 * The next block's base fee (EIP-1559 with the OP variations): Holocene+ parents carry denominator/elasticity in
 * extraData, Jovian+ parents add a minimum base fee and count `max(gasUsed, blobGasUsed)` (the DA footprint).
 */
export function nextBaseFee(
  parent: ParentForBaseFee,
  c: Eip1559Constants,
  flags: { canyon: boolean; parentHolocene: boolean; parentJovian: boolean },
): bigint {
  let denominator = BigInt(flags.canyon ? c.denominatorCanyon : c.denominator);
  let elasticity = BigInt(c.elasticity);
  let minBaseFee = 0n;
  if (flags.parentHolocene) {
    const p = decodeExtraData(parent.extraData);
    if (p !== undefined && p.denominator !== 0) {
      denominator = BigInt(p.denominator);
      elasticity = BigInt(p.elasticity);
    }
    if (p?.minBaseFee !== undefined && flags.parentJovian) minBaseFee = p.minBaseFee;
  }
  let used = parent.gasUsed;
  if (flags.parentJovian && parent.blobGasUsed !== undefined && parent.blobGasUsed > used) used = parent.blobGasUsed;
  const target = elasticity === 0n ? parent.gasLimit : parent.gasLimit / elasticity;
  const base = parent.baseFeePerGas;
  let next: bigint;
  if (target === 0n || used === target) next = base;
  else if (used > target) {
    let delta = (base * (used - target)) / target / denominator;
    if (delta < 1n) delta = 1n;
    next = base + delta;
  } else {
    const delta = (base * (target - used)) / target / denominator;
    next = base > delta ? base - delta : 0n;
  }
  return next < minBaseFee ? minBaseFee : next;
}

// ---------------------------------------------------------------- L1 data fee

/** The fee-relevant values of a block's L1-info deposit (any format). */
export interface L1FeeParams {
  readonly format: L1InfoFormat;
  readonly l1BaseFee: bigint;
  readonly overhead: bigint;
  readonly scalar: bigint;
  readonly baseFeeScalar: bigint;
  readonly blobBaseFee: bigint;
  readonly blobBaseFeeScalar: bigint;
  readonly operatorFeeScalar: bigint;
  readonly operatorFeeConstant: bigint;
  readonly daFootprintGasScalar: bigint;
}

/** Reads the fee fields of an L1-info calldata (format from its selector; protocol decoder); undefined if none. */
export function parseL1FeeParams(input: Hex): L1FeeParams | undefined {
  let i: ReturnType<typeof decodeL1InfoData>;
  try {
    i = decodeL1InfoData(hexToBytes(input));
  } catch (e) {
    if (e instanceof DecodeError) return undefined;
    throw e;
  }
  return {
    format: i.format,
    l1BaseFee: i.baseFee,
    overhead: BigInt(i.l1FeeOverhead),
    scalar: BigInt(i.l1FeeScalar),
    baseFeeScalar: BigInt(i.baseFeeScalar),
    blobBaseFee: i.blobBaseFee,
    blobBaseFeeScalar: BigInt(i.blobBaseFeeScalar),
    operatorFeeScalar: BigInt(i.operatorFeeScalar),
    operatorFeeConstant: i.operatorFeeConstant,
    daFootprintGasScalar: BigInt(i.daFootprintGasScalar),
  };
}

const FLZ_TABLE = new Uint32Array(8192);

/**
 * FastLZ (level 1) compressed length of `ib`, as the Fjord L1-cost function uses it (the length only; nothing is
 * emitted). Written from the algorithm's description.
 */
export function flzCompressLen(ib: Uint8Array): number {
  let n = 0;
  // One 32 KiB hash table for every call, cleared rather than allocated anew (garbage for the collector).
  const ht = FLZ_TABLE.fill(0);
  const u24 = (i: number): number => (ib[i] ?? 0) | ((ib[i + 1] ?? 0) << 8) | ((ib[i + 2] ?? 0) << 16);
  const hash = (v: number): number => (Math.imul(2654435769, v) >>> 19) & 0x1fff;
  const literals = (r: number): void => {
    n += 0x21 * Math.floor(r / 0x20);
    r %= 0x20;
    if (r !== 0) n += r + 1;
  };
  const match = (l: number): void => {
    l--;
    n += 3 * Math.floor(l / 262);
    n += l % 262 >= 6 ? 3 : 2;
  };
  const cmp = (p: number, q: number, e: number): number => {
    let l = 0;
    for (e -= q; l < e; l++) if (ib[p + l] !== ib[q + l]) e = 0;
    return l;
  };
  let a = 0;
  const ipLimit = ib.length >= 13 ? ib.length - 13 : 0;
  let ip = a + 2;
  while (ip < ipLimit) {
    let r = 0;
    let d = 0;
    for (;;) {
      const s = u24(ip);
      const h = hash(s);
      r = ht[h] ?? 0;
      ht[h] = ip;
      d = ip - r;
      if (ip >= ipLimit) break;
      ip++;
      if (d <= 0x1fff && s === u24(r)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > a) literals(ip - a);
    const l = cmp(r + 3, ip + 3, ipLimit + 9);
    match(l);
    ip += l;
    ht[hash(u24(ip))] = ip;
    ip++;
    ht[hash(u24(ip))] = ip;
    ip++;
    a = ip;
  }
  literals(ib.length - a);
  return n;
}

const FJORD_INTERCEPT = -42_585_600n;
const FJORD_FASTLZ_COEF = 836_500n;
const MIN_TX_SIZE_SCALED = 100_000_000n;

/** FastLZ lengths by transaction bytes: the L1 fee and the Jovian DA footprint both need it for each transaction. */
const flzLenOf = new WeakMap<Uint8Array, number>();

/** Fjord's size estimate of a transaction, scaled by 1e6. */
export function fjordEstimatedSizeScaled(raw: Uint8Array): bigint {
  let len = flzLenOf.get(raw);
  if (len === undefined) {
    len = flzCompressLen(raw);
    flzLenOf.set(raw, len);
  }
  return fjordLinearRegression(len);
}

/** Fjord's size estimate (×1e6) from a FastLZ length: intercept + coefficient × length, at least 100 bytes. */
export function fjordLinearRegression(flzLen: number): bigint {
  const est = FJORD_INTERCEPT + FJORD_FASTLZ_COEF * BigInt(flzLen);
  return est < MIN_TX_SIZE_SCALED ? MIN_TX_SIZE_SCALED : est;
}

/** Jovian DA footprint of a (non-deposit) transaction: estimated size × DA footprint gas scalar. */
export function daFootprint(raw: Uint8Array, scalar: bigint): bigint {
  return (fjordEstimatedSizeScaled(raw) / 1_000_000n) * scalar;
}

export function calldataGas(raw: Uint8Array): bigint {
  let gas = 0; // a number: a bigint sum allocates at every byte
  for (let i = 0; i < raw.length; i++) gas += raw[i] === 0 ? 4 : 16;
  return BigInt(gas);
}

function decimalScalar(scalar: bigint): string {
  const int = scalar / 1_000_000n;
  const frac = (scalar % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return frac === "" ? int.toString() : `${int}.${frac}`;
}

/**
 * The L1 data fee of a user transaction and the receipt fields of the fee model in force: legacy
 * (`l1FeeScalar`) before Ecotone, V2 from Ecotone (Fjord+: FastLZ size estimate).
 */
export function l1FeeFor(
  raw: Uint8Array,
  p: L1FeeParams,
  flags: { regolith: boolean; fjord: boolean; isthmus: boolean; jovian: boolean },
): L1FeeFields {
  if (p.format === "bedrock") {
    const gasUsed = calldataGas(raw) + p.overhead + (flags.regolith ? 0n : 68n * 16n);
    return {
      model: "legacy",
      l1GasUsed: gasUsed,
      l1GasPrice: p.l1BaseFee,
      l1Fee: (gasUsed * p.l1BaseFee * p.scalar) / 1_000_000n,
      l1FeeScalar: decimalScalar(p.scalar),
    };
  }
  const weighted = 16n * p.l1BaseFee * p.baseFeeScalar + p.blobBaseFee * p.blobBaseFeeScalar;
  let l1GasUsed: bigint;
  let l1Fee: bigint;
  if (flags.fjord) {
    const size = fjordEstimatedSizeScaled(raw);
    l1GasUsed = (size * 16n) / 1_000_000n;
    l1Fee = (size * weighted) / 1_000_000_000_000n;
  } else {
    l1GasUsed = calldataGas(raw);
    l1Fee = (l1GasUsed * weighted) / 16_000_000n;
  }
  return {
    model: "v2",
    l1GasUsed,
    l1GasPrice: p.l1BaseFee,
    l1Fee,
    l1BaseFeeScalar: p.baseFeeScalar,
    l1BlobBaseFee: p.blobBaseFee,
    l1BlobBaseFeeScalar: p.blobBaseFeeScalar,
    ...(flags.jovian ? { daFootprintGasScalar: p.daFootprintGasScalar === 0n ? 400n : p.daFootprintGasScalar } : {}),
    ...(flags.isthmus ? { operatorFeeScalar: p.operatorFeeScalar, operatorFeeConstant: p.operatorFeeConstant } : {}),
  };
}

/** Operator fee (Isthmus; Jovian multiplies the scalar term by 100). */
export function operatorFee(gasUsed: bigint, p: L1FeeParams, jovian: boolean): bigint {
  if (p.operatorFeeScalar === 0n && p.operatorFeeConstant === 0n) return 0n;
  return jovian
    ? gasUsed * p.operatorFeeScalar * 100n + p.operatorFeeConstant
    : (gasUsed * p.operatorFeeScalar) / 1_000_000n + p.operatorFeeConstant;
}
