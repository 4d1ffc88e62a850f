import { secp256k1 } from "@noble/curves/secp256k1.js";

/**
 * Public-key recovery in JavaScript (@noble/curves): the fallback where libsecp256k1's binding does not load
 * (secp256k1-recover.ts). A module of its own, so a process with the binding never loads noble's curve code
 * (~1.4 MB of heap).
 */
export function nobleRecoverPublicKey(msgHash: Uint8Array, recovery: number, r: bigint, s: bigint): Uint8Array {
  return new secp256k1.Signature(r, s, recovery).recoverPublicKey(msgHash).toBytes(false);
}
