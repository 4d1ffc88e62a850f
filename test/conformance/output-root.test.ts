import { keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../src/core/codec/hex.js";
import { decodeOutputV0, encodeOutputV0, type OutputV0, outputRootV0 } from "../../src/protocol/output-root.js";
import { conformanceAvailable, readConformanceJson } from "./conformance-dir.js";

const have = conformanceAvailable("op-service/output_v0.json");

describe.skipIf(!have)("conformance: op-service output_v0.json", () => {
  it("encodes the 128-byte preimage and hashes it", () => {
    const o = readConformanceJson("op-service/output_v0.json") as OutputV0;
    const pre = encodeOutputV0(o);
    expect(bytesToHex(pre)).toBe(
      `0x${"00".repeat(32)}${o.stateRoot.slice(2)}${o.messagePasserStorageRoot.slice(2)}${o.blockHash.slice(2)}`,
    );
    expect(outputRootV0(o)).toBe(keccak256(pre));
    expect(decodeOutputV0(pre)).toEqual(o);
  });
});
