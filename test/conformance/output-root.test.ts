import { keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../src/core/codec/hex.js";
import { decodeOutputV0, encodeOutputV0, type OutputV0, outputRootV0 } from "../../src/protocol/output-root.js";
import { computeOutputAtBlock } from "../../src/node/output.js";
import type { ExecutionEngine, ExecutionPayloadEnvelope } from "../../src/node/ports.js";
import type { L2BlockRef } from "../../src/core/types/block-ref.js";
import type { RollupConfig } from "../../src/protocol/rollup-config.js";
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

describe.skipIf(!have)(
  "conformance: the node's output at a block (stack_outputAtBlock) uses the vector-tested hashing",
  () => {
    it("hashes an execution client's state root, message-passer storage root and block hash as the vector says", async () => {
      const o = readConformanceJson("op-service/output_v0.json") as OutputV0;
      // An engine port that holds one pre-Isthmus block with the vector's fields (storage root from eth_getProof).
      const env = { executionPayload: { stateRoot: o.stateRoot, blockHash: o.blockHash, timestamp: 10 } };
      const engine = {
        payloadByNumber: async (n: number) => (n === 7 ? env : undefined),
        getProof: async (addr: string, _slots: unknown, hash: string) => {
          expect(addr).toBe("0x4200000000000000000000000000000000000016");
          expect(hash).toBe(o.blockHash);
          return { storageHash: o.messagePasserStorageRoot, accountProof: [], storageProof: [] };
        },
      } as unknown as ExecutionEngine;
      const cfg = { genesis: { l2_time: 0 }, block_time: 2 } as unknown as RollupConfig;
      const out = await computeOutputAtBlock(cfg, engine, (_e: ExecutionPayloadEnvelope) => ({}) as L2BlockRef, 7);
      expect(out.version).toBe(`0x${"00".repeat(32)}`);
      expect(out.outputRoot).toBe(keccak256(encodeOutputV0(o)));
      expect(out.withdrawalStorageRoot).toBe(o.messagePasserStorageRoot);
    });
  },
);
