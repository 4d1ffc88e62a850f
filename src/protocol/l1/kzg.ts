import { sha256 } from "@noble/hashes/sha2.js";
import cKzg from "c-kzg";
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import { BLOB_SIZE } from "./blob.js";

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

let setupLoaded = false;

/**
 * Loads the KZG trusted setup (mainnet, bundled with c-kzg). Takes several seconds once per process;
 * call it at startup to keep the first blob verification off the hot path.
 */
export function loadKzgSetup(): void {
  ensureSetup();
}

function ensureSetup(): void {
  if (setupLoaded) return;
  try {
    cKzg.loadTrustedSetup(0);
  } catch (e) {
    // Already loaded elsewhere in the process.
    if (!/already loaded/i.test(String((e as Error).message))) throw e;
  }
  setupLoaded = true;
}

/** KZG commitment of a blob (loads the mainnet trusted setup on first use). */
export function blobToKzgCommitment(blob: Uint8Array): Uint8Array {
  if (blob.length !== BLOB_SIZE) throw new DecodeError(`blob must be ${BLOB_SIZE} bytes`);
  ensureSetup();
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
