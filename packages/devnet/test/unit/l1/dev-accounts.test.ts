import { describe, expect, it } from "vitest";
import {
  ANVIL_ACCOUNT_COUNT,
  batcherAccountIndex,
  devAccount,
  fundedByAnvil,
  MAX_DEVNET_CHAINS,
} from "../../../src/l1/dev-accounts.js";

describe("dev accounts", () => {
  it("derives anvil's well-known first accounts from the mnemonic", () => {
    expect(devAccount(0).address).toBe("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    expect(devAccount(1).address).toBe("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
  });

  it("gives at least 16 chains distinct batcher accounts, derived past anvil's ten", () => {
    const idx = Array.from({ length: 16 }, (_, i) => batcherAccountIndex(i));
    expect(new Set(idx.map((i) => devAccount(i).address)).size).toBe(16);
    expect(idx).not.toContain(0);
    expect(idx.filter((i) => !fundedByAnvil(i))).toEqual([10, 11, 12, 13, 14, 15, 16]);
    expect(fundedByAnvil(ANVIL_ACCOUNT_COUNT - 1)).toBe(true);
    expect(() => batcherAccountIndex(MAX_DEVNET_CHAINS)).toThrow(/at most/);
    expect(() => batcherAccountIndex(-1)).toThrow();
  });
});
