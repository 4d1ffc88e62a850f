import cKzg from "c-kzg";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hash } from "../../core/types/primitives.js";
import { BLOB_SIZE } from "../../protocol/l1/blob.js";
import { kzgToVersionedHash } from "../../protocol/l1/kzg.js";

export { BLOB_SIZE };

/**
 * c-kzg's trusted setup is process-wide native state, loaded once (several seconds): the I/O side of KZG, kept out
 * of the pure protocol layer (protocol/l1/kzg.ts holds the pure versioned-hash rule).
 */
let setupLoaded = false;

/** Loads the mainnet trusted setup bundled with c-kzg; call it at start-up to keep it off the first blob's path. */
export function loadKzgSetup(): void {
  if (setupLoaded) return;
  try {
    cKzg.loadTrustedSetup(0);
  } catch (e) {
    // Already loaded elsewhere in the process.
    if (!/already loaded/i.test(String((e as Error).message))) throw e;
  }
  setupLoaded = true;
}

/** KZG commitment of a blob (loads the trusted setup on first use). */
export function blobToKzgCommitment(blob: Uint8Array): Uint8Array {
  if (blob.length !== BLOB_SIZE) throw new DecodeError(`blob must be ${BLOB_SIZE} bytes`);
  loadKzgSetup();
  try {
    return cKzg.blobToKzgCommitment(blob);
  } catch (e) {
    throw new DecodeError(`invalid blob: ${(e as Error).message}`, {}, e);
  }
}

/** Versioned hash of a blob: its KZG commitment → `0x01 ‖ sha256(c)[1:]`. */
export function blobToVersionedHash(blob: Uint8Array): Hash {
  return kzgToVersionedHash(blobToKzgCommitment(blob));
}

/** EIP-4844 versioned hash of a KZG commitment: 0x01 ‖ sha256(commitment)[1:]. */
export function commitmentToVersionedHash(commitment: Uint8Array): Hash {
  return kzgToVersionedHash(commitment);
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
