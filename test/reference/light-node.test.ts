/**
 * An op-node light node (`--l2.follow.source` on the supernode's chain route) follows the supernode's safe and
 * finalized heads, its op-geth EL-syncing the blocks from the supernode's op-geth
 * (test/support/reference-light-node.ts).
 *
 * Blocks: REFERENCE_BLOCKS (default 20; `npm run reference` asks for 200). Figure: light_node_safe_lag_blocks (the
 * median lag, sampled every poll once the light node had a safe head; the largest and the last beside it).
 */
import { describe, expect, it } from "vitest";
import { printReferenceFigure, referenceSkipReason } from "../support/reference.js";
import { runLightNode } from "../support/reference-light-node.js";

const BLOCKS = Number(process.env.REFERENCE_BLOCKS ?? 20);
const skip = referenceSkipReason("light node", ["geth", "op-node"]);

describe.skipIf(skip !== undefined)("op-node light node following the supernode", () => {
  it(`its safe head reaches ${BLOCKS} and its safe and finalized blocks are the supernode's`, async () => {
    const r = await runLightNode(BLOCKS);
    const extra = {
      case: "light-node",
      last_lag: r.lastSafeLag,
      max_lag: r.maxSafeLag,
      safe: r.safe,
      finalized: r.finalized,
    };
    printReferenceFigure("light_node_safe_lag_blocks", r.medianSafeLag, "blocks", extra);
    expect(r.mismatches).toEqual([]);
    expect(r.finalized).toBeGreaterThan(0);
  }, 900_000);
});
