import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hex } from "../../core/types/primitives.js";
import { decodeEip1559Params } from "../l1/fee-scalars.js";
import { isForkActive, type RollupConfig } from "../rollup-config.js";

/** EIP-1559 parameters as carried in the header `extraData` from Holocene on. */
export interface ExtraDataParams {
  readonly denominator: number;
  readonly elasticity: number;
  /** Jovian (version 1) only. */
  readonly minBaseFee?: bigint;
}

export const HOLOCENE_EXTRA_DATA_VERSION = 0;
export const JOVIAN_EXTRA_DATA_VERSION = 1;

/** `0x00 ‖ denominator u32 ‖ elasticity u32` (9 bytes). */
export function encodeHoloceneExtraData(denominator: number, elasticity: number): Hex {
  const b = new Uint8Array(9);
  const dv = new DataView(b.buffer);
  b[0] = HOLOCENE_EXTRA_DATA_VERSION;
  dv.setUint32(1, denominator);
  dv.setUint32(5, elasticity);
  return bytesToHex(b);
}

/** `0x01 ‖ denominator u32 ‖ elasticity u32 ‖ minBaseFee u64` (17 bytes). */
export function encodeJovianExtraData(denominator: number, elasticity: number, minBaseFee: bigint): Hex {
  const b = new Uint8Array(17);
  const dv = new DataView(b.buffer);
  b[0] = JOVIAN_EXTRA_DATA_VERSION;
  dv.setUint32(1, denominator);
  dv.setUint32(5, elasticity);
  dv.setBigUint64(9, minBaseFee);
  return bytesToHex(b);
}

/** Decodes a Holocene (9-byte v0) or Jovian (17-byte v1) extraData. Throws DecodeError otherwise. */
export function decodeExtraData(extraData: Hex | Uint8Array): ExtraDataParams {
  const b = typeof extraData === "string" ? hexToBytes(extraData) : extraData;
  if (b.length === 0) throw new DecodeError("extraData: empty");
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b[0] === HOLOCENE_EXTRA_DATA_VERSION) {
    if (b.length !== 9) throw new DecodeError(`extraData v0 must be 9 bytes, got ${b.length}`);
    return { denominator: dv.getUint32(1), elasticity: dv.getUint32(5) };
  }
  if (b[0] === JOVIAN_EXTRA_DATA_VERSION) {
    if (b.length !== 17) throw new DecodeError(`extraData v1 must be 17 bytes, got ${b.length}`);
    return { denominator: dv.getUint32(1), elasticity: dv.getUint32(5), minBaseFee: dv.getBigUint64(9) };
  }
  throw new DecodeError(`extraData: unknown version ${b[0]}`);
}

/**
 * Why a header's extraData is invalid for the L2 block at `timestamp`, or null when valid:
 * pre-Holocene any ≤ 32 bytes; Holocene exactly v0 with non-zero denominator; Jovian exactly v1 with
 * non-zero denominator.
 */
export function extraDataRejection(cfg: RollupConfig, timestamp: number, extraData: Hex | Uint8Array): string | null {
  let b: Uint8Array;
  try {
    b = typeof extraData === "string" ? hexToBytes(extraData) : extraData;
  } catch {
    return "extraData is not valid hex";
  }
  const jovian = isForkActive(cfg, "jovian", timestamp);
  const holocene = isForkActive(cfg, "holocene", timestamp);
  if (!holocene) return b.length <= 32 ? null : "extraData longer than 32 bytes";
  let p: ExtraDataParams;
  try {
    p = decodeExtraData(b);
  } catch (e) {
    return (e as Error).message;
  }
  if (jovian && p.minBaseFee === undefined) return "Jovian block requires extraData version 1";
  if (!jovian && p.minBaseFee !== undefined) return "pre-Jovian block requires extraData version 0";
  if (p.denominator === 0) return "extraData denominator is zero";
  return null;
}

/**
 * The extraData an execution client writes for payload attributes with `eip1559Params` (8 bytes) and,
 * from Jovian, `minBaseFee`. All-zero params mean the chain's pre-Holocene constants
 * (`eip1559DenominatorCanyon` ‖ `eip1559Elasticity`). Pre-Holocene: empty.
 */
export function extraDataForAttributes(
  cfg: RollupConfig,
  timestamp: number,
  eip1559Params: Hex | undefined,
  minBaseFee: bigint | undefined,
): Hex {
  if (!isForkActive(cfg, "holocene", timestamp)) return "0x";
  let { denominator, elasticity } = decodeEip1559Params(eip1559Params ?? "0x0000000000000000");
  if (denominator === 0 && elasticity === 0) {
    const op = cfg.chain_op_config;
    denominator = op?.eip1559DenominatorCanyon ?? op?.eip1559Denominator ?? 250;
    elasticity = op?.eip1559Elasticity ?? 6;
  }
  if (isForkActive(cfg, "jovian", timestamp)) return encodeJovianExtraData(denominator, elasticity, minBaseFee ?? 0n);
  return encodeHoloceneExtraData(denominator, elasticity);
}
