import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hash, Hex } from "../../core/types/primitives.js";

/** The two L1-fee scalars of Ecotone onwards. */
export interface EcotoneScalars {
  readonly baseFeeScalar: number;
  readonly blobBaseFeeScalar: number;
}

function u32(b: Uint8Array, off: number): number {
  return (
    (((b[off] as number) << 24) |
      ((b[off + 1] as number) << 16) |
      ((b[off + 2] as number) << 8) |
      (b[off + 3] as number)) >>>
    0
  );
}

function allZero(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}

/** Whether a versioned SystemConfig scalar is acceptable in a post-Ecotone fee-scalars update. */
export function isValidEcotoneScalar(scalar: Hash): boolean {
  const b = hexToBytes(scalar);
  if (b.length !== 32) return false;
  if (b[0] === 0) return allZero(b, 1, 28);
  if (b[0] === 1) return allZero(b, 1, 24);
  return false;
}

/**
 * Reads the scalars for the L1-info tx: v0 → base fee scalar in the last 4 bytes (0xFFFFFFFF when the
 * padding is dirty), v1 → blob scalar [24,28) and base scalar [28,32). Throws DecodeError on other versions.
 */
export function decodeEcotoneScalars(scalar: Hash): EcotoneScalars {
  const b = hexToBytes(scalar);
  if (b.length !== 32) throw new DecodeError("scalar must be 32 bytes");
  switch (b[0]) {
    case 0:
      return { baseFeeScalar: allZero(b, 1, 28) ? u32(b, 28) : 0xffffffff, blobBaseFeeScalar: 0 };
    case 1:
      return { baseFeeScalar: u32(b, 28), blobBaseFeeScalar: u32(b, 24) };
    default:
      throw new DecodeError(`unknown scalar version ${b[0]}`);
  }
}

/** Encodes scalars as a version-1 SystemConfig scalar. */
export function encodeEcotoneScalars(s: EcotoneScalars): Hash {
  const b = new Uint8Array(32);
  b[0] = 1;
  const dv = new DataView(b.buffer);
  dv.setUint32(24, s.blobBaseFeeScalar);
  dv.setUint32(28, s.baseFeeScalar);
  return bytesToHex(b);
}

/** Operator fee parameters (Isthmus): bytes [20,24) scalar u32, [24,32) constant u64. */
export interface OperatorFeeParams {
  readonly scalar: number;
  readonly constant: bigint;
}

export function decodeOperatorFeeParams(params: Hash): OperatorFeeParams {
  const b = hexToBytes(params);
  if (b.length !== 32) throw new DecodeError("operator fee params must be 32 bytes");
  const dv = new DataView(b.buffer, b.byteOffset, 32);
  return { scalar: dv.getUint32(20), constant: dv.getBigUint64(24) };
}

export function encodeOperatorFeeParams(p: OperatorFeeParams): Hash {
  const b = new Uint8Array(32);
  const dv = new DataView(b.buffer);
  dv.setUint32(20, p.scalar);
  dv.setBigUint64(24, p.constant);
  return bytesToHex(b);
}

/** EIP-1559 params (Holocene): 8 bytes `denominator u32 ‖ elasticity u32`. */
export interface Eip1559Params {
  readonly denominator: number;
  readonly elasticity: number;
}

export function decodeEip1559Params(params: Hex): Eip1559Params {
  const b = hexToBytes(params);
  if (b.length !== 8) throw new DecodeError("eip1559 params must be 8 bytes");
  return { denominator: u32(b, 0), elasticity: u32(b, 4) };
}

export function encodeEip1559Params(p: Eip1559Params): Hex {
  const b = new Uint8Array(8);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, p.denominator);
  dv.setUint32(4, p.elasticity);
  return bytesToHex(b);
}
