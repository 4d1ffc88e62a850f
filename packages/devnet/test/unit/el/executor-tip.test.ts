import { describe, expect, it } from "vitest";
import type { Address, Hash } from "supernode/core";
import { DEFAULT_EIP1559, buildBlock, makeGenesis } from "../../../src/el/block-builder.js";
import type { SimTx } from "../../../src/el/types.js";

const FROM = "0x00000000000000000000000000000000000000aa" as Address;
const TO = "0x00000000000000000000000000000000000000bb" as Address;
const COINBASE = "0x00000000000000000000000000000000000000cc" as Address;
const p = { chainId: 901n, forks: { regolith: 0, canyon: 0 }, eip1559: DEFAULT_EIP1559 };

function tx(nonce: bigint, fees: Partial<SimTx>): SimTx {
  return {
    raw: new Uint8Array([2, Number(nonce)]),
    hash: `0x${(nonce + 1n).toString(16).padStart(64, "0")}` as Hash,
    type: fees.gasPrice === undefined ? 2 : 0,
    from: FROM,
    to: TO,
    value: 0n,
    gas: 21_000n,
    input: "0x",
    nonce,
    chainId: 901n,
    ...fees,
  };
}

describe("simulated EL fees", () => {
  it("charges a dynamic-fee transaction without a tip the base fee only, and a legacy one its gas price", async () => {
    const genesis = makeGenesis(p, { timestamp: 1000, gasLimit: 30_000_000n, alloc: { [FROM]: 10n ** 20n } });
    const feeCap = 50_000_000_000n;
    const block = await buildBlock(
      p,
      genesis,
      {
        timestamp: 1002,
        prevRandao: `0x${"11".repeat(32)}`,
        suggestedFeeRecipient: COINBASE,
        withdrawals: [],
        transactions: [],
        noTxPool: false,
      },
      [
        tx(0n, { maxFeePerGas: feeCap }),
        tx(1n, { maxFeePerGas: feeCap, maxPriorityFeePerGas: 7n }),
        tx(2n, { gasPrice: feeCap }),
      ],
    );
    const base = block.header.baseFeePerGas!;
    expect(block.receipts.map((r) => r.effectiveGasPrice)).toEqual([base, base + 7n, feeCap]);
    expect(block.state.account(COINBASE).balance).toBe(21_000n * (7n + feeCap - base));
  });
});
