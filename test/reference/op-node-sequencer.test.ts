/**
 * op-node sequences, op-batcher posts its batches, the supernode verifies
 * (test/support/reference-op-node-sequencer.ts): every safe and finalized head of ours seen over the run is
 * op-node's block, our current_l1 keeps up with op-node's and reaches it, and every block hash and output root
 * (`optimism_outputAtBlock`) agree up to the compared height.
 *
 * Blocks: REFERENCE_BLOCKS (default 20, the first case only; `npm run reference` asks for 200 and adds the blobs
 * and batcher-gap cases). Figures per case: blocks_compared, block_mismatches, outputs_compared, batches_posted_by_op_batcher,
 * safe_heads_checked, finalized_heads_checked, current_l1_lag_blocks, deposit_only_blocks.
 */
import { describe, expect, it } from "vitest";
import { devnetForkOffsets } from "supernode-devnet/config";
import { printReferenceFigure, referenceSkipReason } from "../support/reference.js";
import { runOpNodeSequencer, type SequencerCase } from "../support/reference-op-node-sequencer.js";

const BLOCKS = Number(process.env.REFERENCE_BLOCKS ?? 20);
const skip = referenceSkipReason("op-node sequencing", ["geth", "op-node", "op-batcher"]);

const CASES: SequencerCase[] = [
  // Ecotone → Jovian activating on op-node's running chain: the upgrade blocks are op-node's.
  {
    name: "calldata-forks-at-offsets",
    dataMode: "calldata",
    forkOffsets: devnetForkOffsets({ ecotone: 4, fjord: 6, granite: 8, holocene: 10, isthmus: 12, jovian: 14 }),
  },
  { name: "blobs-jovian-at-genesis", dataMode: "blobs" },
  // op-batcher stopped for 30 L1 blocks with a sequencing window of 10: the epochs without batches end in
  // deposit-only blocks that replace the ones op-node sequenced (its unsafe chain reorganised by its own derivation).
  {
    name: "calldata-batcher-gap-window-expires",
    dataMode: "calldata",
    seqWindowSize: 10,
    batcherGap: { atSafe: 6, l1Blocks: 30 },
  },
];
// `npm test` (REFERENCE_BLOCKS unset) runs the first case only, to keep the CI run short; `npm run reference` all.
const FULL = process.env.REFERENCE_BLOCKS !== undefined;
if (!FULL && skip === undefined)
  process.stderr.write("op-node sequencing: the blobs case runs with npm run reference\n");

describe.skipIf(skip !== undefined)("op-node sequences, op-batcher posts, the supernode verifies", () => {
  it.each(FULL ? CASES : CASES.slice(0, 1))(
    `$name: our safe heads are op-node's, current_l1 keeps up, blocks and outputs agree up to ${BLOCKS}`,
    async (c) => {
      const r = await runOpNodeSequencer(c, BLOCKS);
      const extra = { case: `op-node-sequencer-${c.name}`, user_txs: r.userTxs, deposits: r.deposits };
      printReferenceFigure("batches_posted_by_op_batcher", r.batchesPosted, "transactions", extra);
      printReferenceFigure("blocks_compared", r.blocksCompared, "blocks", extra);
      printReferenceFigure("block_mismatches", r.blockMismatches, "blocks", extra);
      printReferenceFigure("outputs_compared", r.outputsCompared, "outputs", extra);
      printReferenceFigure("safe_heads_checked", r.headsChecked.safe, "heads", extra);
      printReferenceFigure("finalized_heads_checked", r.headsChecked.finalized, "heads", extra);
      const l1 = r.currentL1;
      printReferenceFigure("current_l1_lag_blocks", l1.medianLag, "blocks", {
        ...extra,
        samples: l1.samples,
        max_lag: l1.maxLag,
        max_lead: l1.maxLead,
        last_lag: l1.lastLag,
        catch_up_ms: l1.catchUpMs,
      });
      printReferenceFigure("deposit_only_blocks", r.depositOnlyBlocks, "blocks", {
        ...extra,
        ...(r.gap === undefined ? {} : { batcher_stopped_l1: [r.gap.fromL1, r.gap.toL1] }),
      });
      expect(r.mismatches).toEqual([]);
      if (c.batcherGap !== undefined) expect(r.gap, "op-batcher stopped and started again").toBeDefined();
      if (c.batcherGap !== undefined) expect(r.depositOnlyBlocks).toBeGreaterThan(0);
      expect(r.batchesPosted).toBeGreaterThan(0);
      expect(r.userTxs).toBeGreaterThan(0);
      expect(r.headsChecked.safe).toBeGreaterThan(1);
    },
    900_000,
  );
});
