/**
 * The L1 origin and sequence number carried by an L2 block's L1-info deposit calldata — the three fields the
 * batcher needs. Bedrock format (`setL1BlockValues`, ABI words: number, time, baseFee, hash, sequenceNumber, …) and
 * the packed Ecotone/Isthmus/Jovian formats (selector ‖ baseFeeScalar u32 ‖ blobBaseFeeScalar u32 ‖ sequenceNumber
 * u64 ‖ timestamp u64 ‖ number u64 ‖ baseFee ‖ blobBaseFee ‖ hash ‖ …).
 *
 * Only an adapter: when the protocol layer's full L1-info decoder (protocol part B, `src/protocol/l2/`) is
 * available the batcher should use it instead.
 */
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import type { Hash, Hex } from "../../core/types/primitives.js";

export interface L1InfoOrigin {
  readonly number: number;
  readonly hash: Hash;
  readonly sequenceNumber: number;
}

const PACKED_LENGTHS: Readonly<Record<string, number>> = {
  "0x440a5e20": 164, // Ecotone
  "0x098999be": 176, // Isthmus
  "0x3db6be2b": 178, // Jovian
};

function uintAt(b: Uint8Array, off: number, len: number): number {
  let v = 0n;
  for (let i = off; i < off + len; i++) v = (v << 8n) | BigInt(b[i] ?? 0);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error("L1-info value out of range");
  return Number(v);
}

export function l1OriginFromL1InfoInput(input: Hex): L1InfoOrigin {
  const b = hexToBytes(input);
  const sel = bytesToHex(b.subarray(0, 4));
  if (sel === "0x015d8eb9" && b.length === 260) {
    return {
      number: uintAt(b, 4, 32),
      hash: bytesToHex(b.subarray(4 + 96, 4 + 128)),
      sequenceNumber: uintAt(b, 4 + 128, 32),
    };
  }
  if (PACKED_LENGTHS[sel] === b.length) {
    return {
      number: uintAt(b, 28, 8),
      hash: bytesToHex(b.subarray(100, 132)),
      sequenceNumber: uintAt(b, 12, 8),
    };
  }
  throw new Error(`not an L1-info deposit (selector ${sel}, ${b.length} bytes)`);
}
