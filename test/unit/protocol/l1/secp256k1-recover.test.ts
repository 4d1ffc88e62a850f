import { secp256k1 } from "@noble/curves/secp256k1.js";
import { describe, expect, it } from "vitest";
import { keccak } from "../../../../src/protocol/block/keccak.js";
import { recoverBackend, recoverPublicKey, SECP256K1_ORDER } from "../../../../src/protocol/l1/secp256k1-recover.js";
import { nobleRecoverPublicKey } from "../../../../src/protocol/l1/secp256k1-recover-noble.js";

describe("secp256k1 public-key recovery", () => {
  it("the group order is secp256k1's", () => {
    expect(SECP256K1_ORDER).toBe(secp256k1.Point.CURVE().n);
  });

  it("the native binding loads here and agrees with @noble/curves on every signature", () => {
    // linux x64 has a prebuilt binding; anywhere it fails to load the node falls back to noble
    expect(recoverBackend).toBe("native");
    for (let i = 0; i < 24; i++) {
      const priv = keccak(Uint8Array.of(i, 42));
      const msg = keccak(Uint8Array.of(i));
      const sig = secp256k1.Signature.fromBytes(
        secp256k1.sign(msg, priv, { prehash: false, format: "recovered" }),
        "recovered",
      );
      const expected = secp256k1.getPublicKey(priv, false);
      const rec = sig.recovery as number;
      expect(recoverPublicKey(msg, rec, sig.r, sig.s)).toEqual(expected);
      expect(nobleRecoverPublicKey(msg, rec, sig.r, sig.s)).toEqual(expected);
      // the other recovery id gives another key (or none), the same with both backends
      const other = (b: "native" | "noble") => {
        try {
          return (b === "native" ? recoverPublicKey : nobleRecoverPublicKey)(msg, rec ^ 1, sig.r, sig.s);
        } catch {
          return null;
        }
      };
      expect(other("native")).toEqual(other("noble"));
      expect(other("native")).not.toEqual(expected);
    }
  });
});
