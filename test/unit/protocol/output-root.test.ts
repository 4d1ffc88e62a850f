import fc from "fast-check";
import { keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../src/core/codec/hex.js";
import { DecodeError } from "../../../src/core/errors/supernode-error.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { decodeOutputV0, encodeOutputV0, outputRootV0 } from "../../../src/protocol/output-root.js";
import { decodeSuperV1, encodeSuperV1, superRootV1, superV1ToJson } from "../../../src/protocol/super-root.js";
import { runs } from "../../support/property.js";

const hashArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b) as Hash);

describe("output root v0", () => {
  it("round-trips and hashes the preimage", () => {
    fc.assert(
      fc.property(hashArb, hashArb, hashArb, (stateRoot, messagePasserStorageRoot, blockHash) => {
        const o = { stateRoot, messagePasserStorageRoot, blockHash };
        const pre = encodeOutputV0(o);
        expect(pre.length).toBe(128);
        expect(decodeOutputV0(pre)).toEqual(o);
        expect(outputRootV0(o)).toBe(keccak256(pre));
      }),
      { numRuns: runs(100) },
    );
    const bad = new Uint8Array(128);
    bad[0] = 1;
    expect(() => decodeOutputV0(bad)).toThrow(DecodeError);
    expect(() => decodeOutputV0(new Uint8Array(127))).toThrow(DecodeError);
  });
});

describe("super root v1", () => {
  it("encodes version, timestamp and chains sorted by id", () => {
    const s = {
      timestamp: 123,
      chains: [
        { chainId: 901n, output: `0x${"22".repeat(32)}` as Hash },
        { chainId: 10n, output: `0x${"11".repeat(32)}` as Hash },
      ],
    };
    const enc = encodeSuperV1(s);
    expect(enc.length).toBe(9 + 128);
    expect(bytesToHex(enc.subarray(0, 9))).toBe("0x01000000000000007b");
    expect(bytesToHex(enc.subarray(9, 41))).toBe(`0x${"0".repeat(62)}0a`);
    expect(bytesToHex(enc.subarray(41, 73))).toBe(`0x${"11".repeat(32)}`);
    expect(superRootV1(s)).toBe(keccak256(enc));
    expect(decodeSuperV1(enc)).toEqual({ timestamp: 123, chains: [s.chains[1], s.chains[0]] });
    expect(superV1ToJson(s)).toEqual({
      timestamp: "0x7b",
      chains: [
        { ChainID: "10", Output: `0x${"11".repeat(32)}` },
        { ChainID: "901", Output: `0x${"22".repeat(32)}` },
      ],
    });
    expect(encodeSuperV1({ timestamp: 5, chains: [] }).length).toBe(9);
    expect(() => encodeSuperV1({ timestamp: 1, chains: [s.chains[0] as never, s.chains[0] as never] })).toThrow(
      DecodeError,
    );
  });

  it("decoder throws only DecodeError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
        try {
          const d = decodeSuperV1(b);
          expect(encodeSuperV1(d).length).toBe(b.length);
        } catch (e) {
          expect(e).toBeInstanceOf(DecodeError);
        }
      }),
    );
  });
});
