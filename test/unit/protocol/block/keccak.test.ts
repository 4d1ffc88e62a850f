import { keccak_256 } from "@noble/hashes/sha3.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../../src/core/codec/hex.js";
import { keccak, keccakHex } from "../../../../src/protocol/block/keccak.js";
import { runs } from "../../../support/property.js";

describe("keccak entry point", () => {
  it("hashes the known vectors", () => {
    expect(keccakHex(new Uint8Array())).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    expect(keccakHex(Uint8Array.of(0x80))).toBe("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
  });

  it("agrees with @noble/hashes for any input (including views into larger buffers)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), fc.nat(16), (data, off) => {
        const buf = new Uint8Array(off + data.length + 3);
        buf.set(data, off);
        const view = buf.subarray(off, off + data.length);
        const want = keccak_256(data);
        expect(keccak(view)).toEqual(want);
        expect(keccakHex(view)).toBe(bytesToHex(want));
      }),
      { numRuns: runs(300) },
    );
  });
});
