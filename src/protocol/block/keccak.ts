import sha3 from "js-sha3";
import type { Hash } from "../../core/types/primitives.js";

// The one keccak256 entry point of the project. js-sha3 is several times faster than @noble/hashes' keccak for the
// small inputs the client hashes (trie nodes, headers, transactions): docs/adr/0030-js-sha3-keccak.md.
const k256 = sha3.keccak256;

/** keccak256 of bytes, as bytes. */
export function keccak(data: Uint8Array): Uint8Array {
  return new Uint8Array(k256.arrayBuffer(data));
}

/** keccak256 of bytes, as a 0x-hex hash. */
export function keccakHex(data: Uint8Array): Hash {
  return `0x${k256.hex(data)}`;
}
