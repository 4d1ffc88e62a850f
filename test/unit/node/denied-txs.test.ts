/** Leaving denied transactions out of a sealed block: real signed transactions (viem), senders recovered. */
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import type { Hex } from "../../../src/core/types/primitives.js";
import { depositsOnlyAttributes, nonDepositTxHashes, txHash, withoutExcluded } from "../../../src/node/denied-txs.js";
import { attributesFromHex, transactionsHex } from "../../../src/protocol/l2/attributes.js";

const alice = privateKeyToAccount(`0x${"11".repeat(32)}`);
const bob = privateKeyToAccount(`0x${"22".repeat(32)}`);
const DEPOSIT: Hex = "0x7e00aa";

async function tx(acct: typeof alice, nonce: number): Promise<Hex> {
  return acct.signTransaction({
    chainId: 901,
    type: "eip1559",
    nonce,
    to: "0x00000000000000000000000000000000000000ff",
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
  });
}

describe("denied transactions", () => {
  it("drops the excluded transaction and its sender's later ones, keeps deposits and other senders", async () => {
    const [a0, a1, a2, b0, b1] = await Promise.all([tx(alice, 0), tx(alice, 1), tx(alice, 2), tx(bob, 0), tx(bob, 1)]);
    const block = [DEPOSIT, b0, a0, a1, b1, a2] as Hex[];
    expect(withoutExcluded(block, new Set([txHash(a1 as Hex)]))).toEqual([DEPOSIT, b0, a0, b1]);
    expect(withoutExcluded(block, new Set([txHash(a0 as Hex), txHash(b1 as Hex)]))).toEqual([DEPOSIT, b0]);
    // Nothing excluded is in the block, or nothing is excluded at all: no rebuild.
    expect(withoutExcluded(block, new Set([txHash("0x02ff")]))).toBeUndefined();
    expect(withoutExcluded(block, new Set())).toBeUndefined();
  });

  it("hashes only the non-deposit transactions; a deposits-only replacement keeps the deposits", async () => {
    const a0 = (await tx(alice, 0)) as Hex;
    expect(nonDepositTxHashes([DEPOSIT, a0])).toEqual([txHash(a0)]);
    const attrs = depositsOnlyAttributes(
      attributesFromHex(
        {
          timestamp: 1,
          prevRandao: `0x${"00".repeat(32)}`,
          suggestedFeeRecipient: `0x${"00".repeat(20)}`,
          noTxPool: false,
          gasLimit: 30_000_000n,
        },
        [DEPOSIT, a0, "0x7E01"],
      ),
    );
    expect(transactionsHex(attrs)).toEqual([DEPOSIT.toLowerCase(), "0x7e01"]);
    expect(attrs.fields.noTxPool).toBe(true);
  });
});
