import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkedBody, checkedHeader } from "../../../src/io/l1/validate.js";

const DIR = resolve(process.cwd(), "../shared/conformance/op-service/l1-blocks");
const present = existsSync(DIR);
if (!present) console.warn(`skipping L1 block conformance: ${DIR} not found`);

interface Meta {
  readonly name: string;
  readonly fail?: boolean;
  readonly reason?: string;
}

const cases = present
  ? readdirSync(DIR)
      .filter((f) => f.endsWith("_metadata.json"))
      .map((f) => JSON.parse(readFileSync(join(DIR, f), "utf8")) as Meta)
  : [];

describe.skipIf(!present)("L1 block validation (op-service conformance)", () => {
  it("has the expected cases", () => {
    expect(cases.length).toBe(12);
  });

  for (const meta of cases) {
    it(`${meta.name}: ${meta.fail ? `rejected (${meta.reason})` : "accepted"}`, () => {
      const raw = JSON.parse(readFileSync(join(DIR, `${meta.name}_data.json`), "utf8"));
      if (meta.fail) {
        expect(() => checkedBody(raw, false)).toThrow();
        // With --l1.trustrpc nothing is verified, but malformed (nil) entries still fail to decode.
      } else {
        const { info, txs } = checkedBody(raw, false);
        expect(info.hash).toBe(raw.hash);
        expect(txs.length).toBe(raw.transactions.length);
        for (let i = 0; i < txs.length; i++) expect(txs[i]?.hash).toBe(raw.transactions[i].hash.toLowerCase());
        expect(checkedHeader(raw, false).number).toBe(Number(raw.number));
      }
    });
  }

  it("a header whose hash was tampered with is rejected unless trusted", () => {
    const raw = JSON.parse(readFileSync(join(DIR, "post-shanghai-success_data.json"), "utf8"));
    const bad = { ...raw, gasUsed: "0x1" };
    expect(() => checkedHeader(bad, false)).toThrow(/block hash/);
    expect(checkedHeader(bad, true).gasUsed).toBe(1n);
  });
});
