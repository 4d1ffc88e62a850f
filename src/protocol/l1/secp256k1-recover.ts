import { createRequire } from "node:module";

/**
 * Public-key recovery for L1 batcher authentication, the one hot secp256k1 operation of the node. libsecp256k1
 * through the `secp256k1` package's N-API binding (prebuilt for linux x64 glibc/musl, macOS and Windows) is ~20×
 * faster than @noble/curves; where the binding does not load, noble does the same work
 * (docs/performance.md). noble is loaded only then (secp256k1-recover-noble.ts).
 */
export type RecoverBackend = "native" | "noble";

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

function loadNative(): NativeSecp256k1 | undefined {
  try {
    // The binding itself, not the package's entry point (which falls back to the slow `elliptic`).
    return createRequire(import.meta.url)("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

type Recover = (msgHash: Uint8Array, recovery: number, r: bigint, s: bigint) => Uint8Array;

function nativeRecover(native: NativeSecp256k1): Recover {
  return (msgHash, recovery, r, s) => {
    const sig = new Uint8Array(64);
    putUint256(sig, 0, r);
    putUint256(sig, 32, s);
    return native.ecdsaRecover(sig, recovery, msgHash, false);
  };
}

const native = loadNative();
const recover: Recover =
  native === undefined ? (await import("./secp256k1-recover-noble.js")).nobleRecoverPublicKey : nativeRecover(native);

/** n, the order of secp256k1's group (signatures have 0 < r < n and, in Ethereum, 0 < s ≤ n/2). */
export const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The backend `recoverPublicKey` uses in this process. */
export const recoverBackend: RecoverBackend = native === undefined ? "noble" : "native";

/**
 * The uncompressed public key (65 bytes, 0x04 ‖ x ‖ y) that signed `msgHash` with (`r`, `s`, `recovery`); throws
 * when no key recovers. The caller has range-checked `r`, `s` and `recovery`.
 */
export function recoverPublicKey(msgHash: Uint8Array, recovery: number, r: bigint, s: bigint): Uint8Array {
  return recover(msgHash, recovery, r, s);
}

function putUint256(out: Uint8Array, offset: number, v: bigint): void {
  let x = v;
  for (let i = 31; i >= 0; i--) {
    out[offset + i] = Number(x & 0xffn);
    x >>= 8n;
  }
}
