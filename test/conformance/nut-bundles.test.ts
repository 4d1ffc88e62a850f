import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../src/core/codec/hex.js";
import { defaultNutsDir, loadNutBundle, NUT_BUNDLE_SHA256 } from "../../src/config/nut-bundles.js";
import { parseRegistryToml } from "../../src/config/registry-toml.js";
import { upgradeDepositSourceHash } from "../../src/protocol/l1/source-hash.js";
import { decodeDepositTx } from "../../src/protocol/l2/deposit-tx.js";
import { upgradeTransactionsAt } from "../../src/protocol/l2/upgrade-txs.js";
import type { RollupConfig } from "../../src/protocol/rollup-config.js";
import { EVERY_FORK_AT_GENESIS } from "../support/fork-times.js";
import { testRollupConfig } from "../unit/node/fakes.js";
import { conformanceAvailable, readConformance } from "./conformance-dir.js";

/**
 * The NUT bundles the product ships (config/nuts) are upstream's, byte for byte, with the sha256 of upstream's
 * fork_lock.toml; the Karst and Lagoon activation blocks' upgrade transactions are exactly the bundles' transactions.
 */
const have = conformanceAvailable("nuts");
const FORKS = [
  ["karst", "Karst"],
  ["lagoon", "Interop"],
] as const;

interface BundleTx {
  intent: string;
  from: string;
  to: string | null;
  data: string;
  gasLimit: number;
}

describe.skipIf(!have)("conformance: NUT bundles (upstream op-core/nuts)", () => {
  const lock = have ? parseRegistryToml(readConformance("nuts/fork_lock.toml")) : {};

  it("the shipped bundles are upstream's bytes, with the sha256 of fork_lock.toml, pinned in the code", () => {
    for (const [fork] of FORKS) {
      const entry = lock[fork] as { hash: string; bundle: string };
      const shipped = readFileSync(join(defaultNutsDir(), `${fork}_nut_bundle.json`));
      expect(shipped.equals(Buffer.from(readConformance(`nuts/${fork}_nut_bundle.json`), "utf8")), fork).toBe(true);
      const sum = createHash("sha256").update(shipped).digest("hex");
      expect(`sha256:${sum}`, fork).toBe(entry.hash);
      expect(`sha256:${NUT_BUNDLE_SHA256[fork]}`, fork).toBe(entry.hash);
      expect(entry.bundle).toBe(`op-core/nuts/bundles/${fork}_nut_bundle.json`);
    }
  });

  for (const [fork, label] of FORKS) {
    it(`the ${fork} activation block's upgrade transactions are the bundle's, in order`, () => {
      const doc = JSON.parse(readConformance(`nuts/${fork}_nut_bundle.json`)) as { transactions: BundleTx[] };
      const over: Partial<RollupConfig> =
        fork === "karst" ? { karst_time: 1_700_000_002 } : { karst_time: 0, lagoon_time: 1_700_000_002 };
      const cfg = testRollupConfig({ ...EVERY_FORK_AT_GENESIS, ...over });
      const bundle = loadNutBundle(fork);
      const txs = upgradeTransactionsAt(cfg, 1_700_000_002, { nutBundles: { [fork]: bundle } });
      expect(txs).toHaveLength(doc.transactions.length);
      doc.transactions.forEach((t, i) => {
        const d = decodeDepositTx(txs[i]!);
        expect(d.sourceHash, `${fork} ${i}`).toBe(upgradeDepositSourceHash(`${label} ${i}: ${t.intent}`));
        expect(d.from).toBe(t.from.toLowerCase());
        expect(d.to).toBe(t.to === null ? null : t.to.toLowerCase());
        expect(d.data).toBe(t.data.toLowerCase());
        expect(d.gas).toBe(BigInt(t.gasLimit));
        expect([d.mint, d.value, d.isSystemTx]).toEqual([0n, 0n, false]);
        expect(bytesToHex(txs[i]!)).toBe(bytesToHex(bundle.encoded[i]!));
      });
      expect(bundle.gas).toBe(doc.transactions.reduce((s, t) => s + BigInt(t.gasLimit), 0n));
    });
  }
});
