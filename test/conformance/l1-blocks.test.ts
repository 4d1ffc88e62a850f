import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BlockValidationError,
  validateRpcBlock,
  validateRpcHeader,
} from "../../src/protocol/block/l1-block-validate.js";
import { CONFORMANCE_DIR, conformanceAvailable, readConformanceJson } from "./conformance-dir.js";

interface Meta {
  name: string;
  fail?: boolean;
  reason?: string;
}

function cases(sub: string): string[] {
  return readdirSync(join(CONFORMANCE_DIR, sub))
    .filter((f) => f.endsWith("_metadata.json"))
    .map((f) => f.slice(0, -"_metadata.json".length))
    .sort();
}

const haveBlocks = conformanceAvailable("op-service/l1-blocks");
const haveHeaders = conformanceAvailable("op-service/l1-headers");

describe.skipIf(!haveBlocks)("conformance: op-service l1-blocks", () => {
  const names = haveBlocks ? cases("op-service/l1-blocks") : [];
  it("has cases", () => expect(names.length).toBeGreaterThanOrEqual(12));
  for (const name of names) {
    it(name, () => {
      const meta = readConformanceJson(`op-service/l1-blocks/${name}_metadata.json`) as Meta;
      const data = readConformanceJson(`op-service/l1-blocks/${name}_data.json`) as Record<string, unknown>;
      if (meta.fail) {
        let err: unknown;
        try {
          validateRpcBlock(data);
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(BlockValidationError);
        if (meta.reason !== undefined) expect((err as Error).message).toContain(meta.reason);
      } else {
        const v = validateRpcBlock(data);
        expect(v.hash).toBe(data.hash);
        expect(v.transactions?.length).toBe((data.transactions as unknown[]).length);
        // Computed tx hashes agree with the RPC's own hashes.
        expect(v.txHashes).toEqual((data.transactions as { hash: string }[]).map((t) => t.hash));
      }
    });
  }
});

describe.skipIf(!haveHeaders)("conformance: op-service l1-headers", () => {
  const names = haveHeaders ? cases("op-service/l1-headers") : [];
  it("has cases", () => expect(names.length).toBeGreaterThanOrEqual(7));
  for (const name of names) {
    it(name, () => {
      const meta = readConformanceJson(`op-service/l1-headers/${name}_metadata.json`) as Meta;
      const data = readConformanceJson(`op-service/l1-headers/${name}_data.json`) as Record<string, unknown>;
      if (meta.fail) {
        expect(() => validateRpcHeader(data)).toThrow(BlockValidationError);
        expect(() => validateRpcBlock(data)).toThrow(BlockValidationError);
      } else {
        expect(validateRpcHeader(data).hash).toBe(data.hash);
        const v = validateRpcBlock(data);
        expect(v.txHashes.length).toBe((data.transactions as unknown[]).length);
      }
    });
  }
});
