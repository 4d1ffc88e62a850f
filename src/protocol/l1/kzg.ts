import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hash, Hex } from "../../core/types/primitives.js";

/** Version byte of KZG blob versioned hashes (EIP-4844). */
export const VERSIONED_HASH_VERSION_KZG = 0x01;

/** `0x01 ‖ sha256(commitment)[1:]`. */
export function kzgToVersionedHash(commitment: Uint8Array | Hex): Hash {
  const c = typeof commitment === "string" ? hexToBytes(commitment) : commitment;
  if (c.length !== 48) throw new DecodeError(`KZG commitment must be 48 bytes, got ${c.length}`);
  const h = sha256(c);
  h[0] = VERSIONED_HASH_VERSION_KZG;
  return bytesToHex(h);
}
