import { describe, expect, it } from "vitest";
import { blockAt } from "../../../src/app/chain-factory.js";
import { ZERO_SYNC_STATUS } from "../../../src/activities/sync-status.js";
import type { ChainConfig } from "../../../src/config/types.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import type { ChainNode } from "../../../src/node/chain-node.js";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;

/** A chain whose genesis is L2 block 0 at time 1000, anchored at L1 block 7; blocks every 2 s, local-safe to 4. */
const chain = {
  chainId: 10n,
  rollup: { block_time: 2, genesis: { l2_time: 1000, l2: { hash: h(100), number: 0 }, l1: { hash: h(7), number: 7 } } },
} as unknown as Pick<ChainConfig, "rollup" | "chainId">;

const node = {
  syncStatus: () => ({ ...ZERO_SYNC_STATUS, local_safe_l2: { ...ZERO_SYNC_STATUS.local_safe_l2, number: 4 } }),
  outputAtBlock: async (n: number) => ({
    blockRef: { hash: h(100 + n), number: n },
    stateRoot: h(200 + n),
    withdrawalStorageRoot: h(300 + n),
  }),
} as unknown as ChainNode;

describe("blockAt: the genesis block's L1 inclusion", () => {
  it("is L1 'block 0' with the zero hash, not the rollup config's genesis.l1 (op-supernode's L1AtSafeHead)", async () => {
    const safeDb = { safeHeadAtL1Block: async () => undefined };
    const b = await blockAt(node, safeDb, chain, 1000);
    expect(b?.l2).toEqual({ hash: h(100), number: 0 });
    expect(b?.requiredL1).toEqual({ hash: h(0), number: 0 });
  });
});
