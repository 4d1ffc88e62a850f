import { describe, expect, it } from "vitest";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import { upgradeDepositSourceHash } from "../../../../src/protocol/l1/source-hash.js";
import { decodeDepositTx } from "../../../../src/protocol/l2/deposit-tx.js";
import { parseNutBundle } from "../../../../src/protocol/l2/nut-bundle.js";

/** op-node's test bundle shape (`op-node/rollup/derive/testdata/test-nut.json`), plus a creation (`to` null). */
const BUNDLE = JSON.stringify({
  metadata: { version: "1.0.0" },
  transactions: [
    {
      intent: "First Transaction",
      to: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      data: "0xabcdef",
      gasLimit: 1000000,
      from: "0x0000000000000000000000000000000000000000",
    },
    { Intent: "Deploy", To: null, Data: "0x60", GasLimit: 5000000, From: "0x000000000000000000000000000000000000abba" },
  ],
});

describe("parseNutBundle (op-node's NUT bundle format)", () => {
  it("each transaction a deposit: source hash over '<Fork> <i>: <intent>', mint and value 0, gas = gasLimit", () => {
    const b = parseNutBundle("karst", BUNDLE);
    expect(b.gas).toBe(6_000_000n);
    expect(b.deposits[0]).toEqual({
      sourceHash: upgradeDepositSourceHash("Karst 0: First Transaction"),
      from: "0x0000000000000000000000000000000000000000",
      to: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
      mint: 0n,
      value: 0n,
      gas: 1_000_000n,
      isSystemTx: false,
      data: "0xabcdef",
    });
    // keys matched case-insensitively (Go's decoder), `to: null` is a creation
    expect(b.deposits[1]?.to).toBeNull();
    expect(b.deposits[1]?.sourceHash).toBe(upgradeDepositSourceHash("Karst 1: Deploy"));
    expect(b.encoded.map((e) => decodeDepositTx(e))).toEqual(b.deposits);
    // Lagoon keeps the label "Interop" (upstream kept the source hashes through the rename)
    expect(parseNutBundle("lagoon", BUNDLE).deposits[0]?.sourceHash).toBe(
      upgradeDepositSourceHash("Interop 0: First Transaction"),
    );
  });

  it("rejects another version, a missing intent, bad fields and non-JSON", () => {
    const doc = JSON.parse(BUNDLE);
    const variant = (f: (d: typeof doc) => void) => {
      const d = JSON.parse(BUNDLE);
      f(d);
      return JSON.stringify(d);
    };
    expect(() =>
      parseNutBundle(
        "karst",
        variant((d) => (d.metadata.version = "2.0.0")),
      ),
    ).toThrow(/unsupported NUT bundle version: got "2.0.0"/);
    expect(() =>
      parseNutBundle(
        "karst",
        variant((d) => (d.transactions[0].intent = "")),
      ),
    ).toThrow(/missing intent/);
    expect(() =>
      parseNutBundle(
        "karst",
        variant((d) => (d.transactions[0].gasLimit = -1)),
      ),
    ).toThrow(/gasLimit/);
    expect(() =>
      parseNutBundle(
        "karst",
        variant((d) => (d.transactions[0].from = "0x12")),
      ),
    ).toThrow(/from/);
    expect(() => parseNutBundle("karst", "{")).toThrow(DecodeError);
    expect(doc.transactions).toHaveLength(2);
  });
});
