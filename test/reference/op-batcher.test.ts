/**
 * A real op-batcher posts batches for the supernode's sequencer (its `--rollup-rpc` on the supernode's chain route,
 * the `optimism_*` names) and op-node (verifier) derives them: both safe heads reach the compared height and every
 * block hash and output root agree (test/support/reference-op-batcher.ts).
 *
 * Blocks: REFERENCE_BLOCKS (default 20; `npm run reference` asks for 200). Figures: batches_posted_by_op_batcher,
 * blocks_compared, block_mismatches, outputs_compared.
 */
import { describe, expect, it } from "vitest";
import { printReferenceFigure, referenceSkipReason } from "../support/reference.js";
import { runOpBatcher } from "../support/reference-op-batcher.js";

const BLOCKS = Number(process.env.REFERENCE_BLOCKS ?? 20);
const skip = referenceSkipReason("op-batcher", ["geth", "op-node", "op-batcher"]);

describe.skipIf(skip !== undefined)("op-batcher posts the supernode's blocks, op-node derives them", () => {
  it.each(["calldata", "blobs"] as const)(
    `%s: op-node's and the supernode's safe heads reach ${BLOCKS}, every block and output agree`,
    async (mode) => {
      const r = await runOpBatcher(mode, BLOCKS);
      const extra = { case: `op-batcher-${mode}`, user_txs: r.userTxs };
      printReferenceFigure("batches_posted_by_op_batcher", r.batchesPosted, "transactions", extra);
      printReferenceFigure("blocks_compared", r.blocksCompared, "blocks", extra);
      printReferenceFigure("block_mismatches", r.blockMismatches, "blocks", extra);
      printReferenceFigure("outputs_compared", r.outputsCompared, "outputs", extra);
      expect(r.batchesPosted).toBeGreaterThan(0);
      expect(r.mismatches).toEqual([]);
    },
    900_000,
  );
});
