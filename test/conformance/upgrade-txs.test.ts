import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../src/core/codec/hex.js";
import { decodeDepositTx, encodeDepositTx } from "../../src/protocol/l2/deposit-tx.js";
import {
  ecotoneUpgradeDeposits,
  fjordUpgradeDeposits,
  isthmusUpgradeDeposits,
  jovianUpgradeDeposits,
} from "../../src/protocol/l2/upgrade-txs.js";
import * as code from "../../src/protocol/l2/upgrade-bytecode.js";
import { CONFORMANCE_DIR, conformanceAvailable, readConformance } from "./conformance-dir.js";

const have = conformanceAvailable("upgrade-txs");

function vector(name: string): string {
  const t = readConformance(`upgrade-txs/${name}.hex`).trim().replace(/\s+/g, "").toLowerCase();
  return t.startsWith("0x") ? t : `0x${t}`;
}

describe.skipIf(!have)("conformance: upgrade transactions byte for byte", () => {
  const groups: [string, () => ReturnType<typeof ecotoneUpgradeDeposits>, number][] = [
    ["ecotone_tx_", ecotoneUpgradeDeposits, 6],
    ["fjord_tx_", fjordUpgradeDeposits, 3],
    ["isthmus_tx_", isthmusUpgradeDeposits, 8],
  ];
  for (const [prefix, build, count] of groups) {
    it(`${prefix}0..${count - 1}`, () => {
      const txs = build();
      expect(txs).toHaveLength(count);
      txs.forEach((tx, i) => {
        const want = vector(`${prefix}${i}`);
        expect(bytesToHex(encodeDepositTx(tx))).toBe(want);
        expect(decodeDepositTx(hexToBytes(want))).toEqual(tx);
      });
    });
  }

  it("jovian deposits use the published creation code", () => {
    const txs = jovianUpgradeDeposits();
    expect(txs).toHaveLength(5);
    expect(txs[0]?.data).toBe(vector("jovian-l1-block-deployment"));
    expect(txs[2]?.data).toBe(vector("jovian-gas-price-oracle-deployment"));
    expect(txs.map((t) => Number(t.gas))).toEqual([447_315, 50_000, 1_750_714, 50_000, 90_000]);
  });

  it("embedded creation codes equal the published files", () => {
    const pairs: [string, string][] = [
      ["l1_block_ecotone", code.L1_BLOCK_ECOTONE],
      ["gpo_ecotone", code.GAS_PRICE_ORACLE_ECOTONE],
      ["eip4788_ecotone", code.BEACON_ROOTS_CONTRACT_ECOTONE],
      ["gpo_fjord", code.GAS_PRICE_ORACLE_FJORD],
      ["l1_block_isthmus", code.L1_BLOCK_ISTHMUS],
      ["gpo_isthmus", code.GAS_PRICE_ORACLE_ISTHMUS],
      ["ofv_isthmus", code.OPERATOR_FEE_VAULT_ISTHMUS],
      ["eip2935_isthmus", code.BLOCK_HASH_HISTORY_ISTHMUS],
      ["jovian-l1-block-deployment", code.L1_BLOCK_JOVIAN],
      ["jovian-gas-price-oracle-deployment", code.GAS_PRICE_ORACLE_JOVIAN],
    ];
    for (const [file, c] of pairs) expect(`0x${c}`, file).toBe(vector(file));
    // Every file in the folder is covered by a test above, except the 13 `*interop*` files: the Interop activation
    // block of spring 2026, replaced upstream by the Lagoon NUT bundle (test/conformance/nut-bundles.test.ts).
    const files = readdirSync(join(CONFORMANCE_DIR, "upgrade-txs")).filter((f) => f.endsWith(".hex"));
    expect(files.length).toBe(40);
  });
});
