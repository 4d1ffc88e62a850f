import { createKeccak } from "hash-wasm";
import type { Hash } from "../../core/types/primitives.js";

// The one keccak256 entry point of the project. hash-wasm's WebAssembly keccak is 3–6× faster than js-sha3 (itself
// faster than @noble/hashes) for the sizes the client hashes, and runs wherever Node does (no native build):
// docs/performance.md (which supersedes the choice of docs/adr/0030-js-sha3-keccak.md).
// One instance, used synchronously (init → update → digest never interleave).
const k256 = await createKeccak(256);

/** keccak256 of bytes, as bytes. */
export function keccak(data: Uint8Array): Uint8Array {
  k256.init();
  k256.update(data);
  return k256.digest("binary");
}

/** keccak256 of `a ‖ b`, as bytes, without making the concatenation. */
export function keccakOfTwo(a: Uint8Array, b: Uint8Array): Uint8Array {
  k256.init();
  k256.update(a);
  k256.update(b);
  return k256.digest("binary");
}

/** keccak256 of bytes, as a 0x-hex hash. */
export function keccakHex(data: Uint8Array): Hash {
  k256.init();
  k256.update(data);
  return `0x${k256.digest("hex")}`;
}
