import { sha256 } from "@noble/hashes/sha2.js";
import cKzg from "c-kzg";
import { bytesToHex } from "../../core/codec/hex.js";
import type { Hash } from "../../core/types/primitives.js";

export const BLOB_SIZE = 131072;
let loaded = false;

/** Loads the mainnet trusted setup once per process (c-kzg's bundled setup). */
export function ensureKzg(): void {
  if (loaded) return;
  try {
    cKzg.loadTrustedSetup(0);
  } catch (err) {
    // Another module of this process may have loaded it already.
    if (!/already loaded/i.test(String((err as Error)?.message))) throw err;
  }
  loaded = true;
}

/** EIP-4844 versioned hash of a KZG commitment: 0x01 ‖ sha256(commitment)[1:]. */
export function commitmentToVersionedHash(commitment: Uint8Array): Hash {
  const h = sha256(commitment);
  h[0] = 0x01;
  return bytesToHex(h);
}

/** Computes the blob's commitment and its versioned hash (the check that binds a blob to its hash). */
export function blobVersionedHash(blob: Uint8Array): Hash {
  ensureKzg();
  return commitmentToVersionedHash(cKzg.blobToKzgCommitment(blob));
}

/** Verifies a sidecar: the proof opens `commitment` for `blob`. False on malformed input. */
export function verifyBlobProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean {
  ensureKzg();
  try {
    return cKzg.verifyBlobKzgProof(blob, commitment, proof);
  } catch {
    return false;
  }
}
