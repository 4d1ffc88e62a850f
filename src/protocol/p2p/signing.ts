/**
 * Block signatures of OP gossip: `signingHash = keccak256(domain[32] ‖ uint256be(chainId) ‖ keccak256(payloadBytes))`
 * with the all-zero `SigningDomainBlocksV1`; signatures are r ‖ s ‖ v (v ∈ {0,1}), RFC 6979 low-S as geth signs.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hex } from "../../core/types/primitives.js";
import { keccak } from "../block/keccak.js";
import { recoverPublicKey } from "../l1/secp256k1-recover.js";

export const SIGNATURE_SIZE = 65;
const CURVE_N = secp256k1.Point.CURVE().n;

function bytesToBigInt(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(bytesToHex(b));
}

/** The hash the sequencer signs for `payloadBytes` (the SSZ payload, with the beacon-root prefix on V3/V4). */
export function blockSigningHash(chainId: bigint, payloadBytes: Uint8Array): Uint8Array {
  return signingHashOfPayloadHash(chainId, keccak(payloadBytes));
}

/** The signing hash from the payload hash `keccak256(payloadBytes)` (what a remote signer is sent). */
export function signingHashOfPayloadHash(chainId: bigint, payloadHash: Uint8Array): Uint8Array {
  // Bytes 0..32: the domain `SigningDomainBlocksV1`, 32 zero bytes (as allocated).
  const msg = new Uint8Array(96);
  let id = chainId;
  for (let i = 63; i >= 32; i--) {
    msg[i] = Number(id & 0xffn);
    id >>= 8n;
  }
  msg.set(payloadHash, 64);
  return keccak(msg);
}

/** Parses a 32-byte secp256k1 secret key from hex (optional 0x, surrounding whitespace ignored). */
export function parseSecretKeyHex(text: string): Uint8Array {
  const t = text.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]*$/.test(t) || t.length % 2 !== 0)
    throw new DecodeError("p2p priv key is not formatted in hex chars");
  const b = hexToBytes(`0x${t}`);
  if (b.length !== 32 || !secp256k1.utils.isValidSecretKey(b))
    throw new DecodeError(`failed to parse priv key from ${b.length} bytes`);
  return b;
}

/** The address of a secret key. */
export function addressOfSecretKey(sk: Uint8Array): Address {
  const pub = secp256k1.getPublicKey(sk, false);
  return bytesToHex(keccak(pub.subarray(1)).subarray(12));
}

/** Signs a 32-byte hash: r ‖ s ‖ v. */
export function signHash(hash: Uint8Array, sk: Uint8Array): Uint8Array {
  const rec = secp256k1.sign(hash, sk, { prehash: false, format: "recovered" });
  const out = new Uint8Array(SIGNATURE_SIZE);
  out.set(rec.subarray(1), 0);
  out[64] = rec[0] as number;
  return out;
}

/** ecrecover of r ‖ s ‖ v over `hash`; null when the signature does not recover. */
export function recoverSigner(hash: Uint8Array, sig: Uint8Array): Address | null {
  if (sig.length !== SIGNATURE_SIZE) return null;
  const v = sig[64] as number;
  if (v !== 0 && v !== 1) return null;
  try {
    const r = bytesToBigInt(sig.subarray(0, 32));
    const s = bytesToBigInt(sig.subarray(32, 64));
    if (r === 0n || s === 0n || r >= CURVE_N || s >= CURVE_N) return null;
    // The process's one recovery (libsecp256k1 where its binding loads, noble otherwise; docs/performance.md).
    const pub = recoverPublicKey(hash, v, r, s);
    return bytesToHex(keccak(pub.subarray(1)).subarray(12));
  } catch {
    return null;
  }
}

export const signatureHex = (sig: Uint8Array): Hex => bytesToHex(sig);
