import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CHAIN_OPTIONS } from "../../../src/config/chain-options.js";
import { ENV_PREFIX, GLOBAL_OPTIONS } from "../../../src/config/global-options.js";

const DOC = resolve(process.cwd(), "docs", "configuration.md");

describe.skipIf(!existsSync(DOC))("docs/configuration.md", () => {
  const doc = existsSync(DOC) ? readFileSync(DOC, "utf8") : "";
  it("documents every top-level option with its env var", () => {
    for (const s of GLOBAL_OPTIONS) {
      expect(doc, s.name).toContain(`\`--${s.name}\``);
      for (const e of s.env) expect(doc, e).toContain(`\`${ENV_PREFIX}_${e}\``);
    }
  });
  it("documents every per-chain option with its env suffix", () => {
    for (const s of CHAIN_OPTIONS) {
      expect(doc, s.name).toContain(`\`${s.name}\``);
      for (const e of s.env) expect(doc, e).toContain(`\`${e}\``);
    }
  });
});
