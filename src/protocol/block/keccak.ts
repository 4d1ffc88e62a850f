import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "../../core/codec/hex.js";
import type { Hash } from "../../core/types/primitives.js";

/** keccak256 of bytes, as bytes. */
export function keccak(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/** keccak256 of bytes, as a 0x-hex hash. */
export function keccakHex(data: Uint8Array): Hash {
  return bytesToHex(keccak_256(data));
}
