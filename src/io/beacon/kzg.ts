import cKzg from "c-kzg";
import { blobToVersionedHash, kzgToVersionedHash, loadKzgSetup } from "../../protocol/l1/kzg.js";
import type { Hash } from "../../core/types/primitives.js";

export { BLOB_SIZE } from "../../protocol/l1/blob.js";

/** EIP-4844 versioned hash of a KZG commitment: 0x01 ‖ sha256(commitment)[1:]. */
export function commitmentToVersionedHash(commitment: Uint8Array): Hash {
  return kzgToVersionedHash(commitment);
}

/** Recomputes the blob's KZG commitment and returns its versioned hash (binds a blob to its hash). */
export function blobVersionedHash(blob: Uint8Array): Hash {
  return blobToVersionedHash(blob);
}

/** Verifies a sidecar: the proof opens `commitment` for `blob`. False on malformed input. */
export function verifyBlobProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean {
  loadKzgSetup();
  try {
    return cKzg.verifyBlobKzgProof(blob, commitment, proof);
  } catch {
    return false;
  }
}
