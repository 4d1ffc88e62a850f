/**
 * op-geth (the Go reference variant B client) as the supernode's execution client
 * (test/support/reference-el-scenarios.ts): sequencing and deriving on op-geth with deposits, user transactions and
 * forks Ecotone → Jovian at offsets, an L1 reorg inside finality, a restart of the supernode and op-geth with heads
 * kept, every block and output root equal to op-node's; and EL sync of a fresh op-geth from a devp2p peer.
 *
 * Blocks: REFERENCE_BLOCKS (default 20; `npm run reference` asks for 200). Figures: cpu_per_block_vs_opnode and
 * rss_per_chain_vs_opnode (our verifier supernode, its own process hosting one chain, against op-node, both deriving
 * the same blocks in verifier mode; goal ≤ 1.0), el_sync_ms.
 */
import { describe, expect, it } from "vitest";
import { printCostFigure, printReferenceFigure, referenceSkipReason } from "../support/reference.js";
import { runElSync, runSequencerOnOpGeth } from "../support/reference-el-scenarios.js";

const BLOCKS = Number(process.env.REFERENCE_BLOCKS ?? 20);
const skip = referenceSkipReason("op-geth as the execution client", ["geth", "op-node"]);

describe.skipIf(skip !== undefined)("op-geth as the supernode's execution client", () => {
  it(`sequences and derives through Jovian, across an L1 reorg and a restart, equal to op-node up to ${BLOCKS} blocks`, async () => {
    const r = await runSequencerOnOpGeth(BLOCKS);
    const c = r.cost;
    const extra = { case: "op-geth-sequencer", blocks: r.blocks };
    printCostFigure("cpu_per_block_vs_opnode", c.ourCpuMsPerBlock / c.opNodeCpuMsPerBlock, r.supernodeFrom, {
      ...extra,
      supernode_cpu_ms_per_block: c.ourCpuMsPerBlock,
      op_node_cpu_ms_per_block: c.opNodeCpuMsPerBlock,
      window_blocks: c.windowBlocks,
    });
    printCostFigure("rss_per_chain_vs_opnode", c.ourRssMb / c.opNodeRssMb, r.supernodeFrom, {
      ...extra,
      supernode_rss_mb: c.ourRssMb,
      op_node_rss_mb: c.opNodeRssMb,
      rss_anon_file_mb: c.rssAnonFileMb,
    });
    printReferenceFigure("l1_reorg_depth", r.reorg.depth, "blocks", { ...extra, ...r.reorg });
    const heads = (s: typeof r.restart.before) => [s.unsafe_l2.number, s.safe_l2.number, s.finalized_l2.number];
    printReferenceFigure("restart_unsafe_kept", r.restart.after.unsafe_l2.number, "block", {
      ...extra,
      before: heads(r.restart.before),
      after: heads(r.restart.after),
      op_geth_after: r.restart.afterEl,
    });
    expect(r.mismatches).toEqual([]);
    expect(r.deposits).toBeGreaterThan(0);
    expect(r.userTxs).toBeGreaterThan(0);
    expect(r.reorg.depth).toBeGreaterThan(0);
    expect(r.reorg.safeAfter).toBeGreaterThan(r.reorg.safeBefore);
    // Heads kept: op-geth restarts at its head, and the supernode at the heads it had.
    const { before, after, afterEl } = r.restart;
    expect(afterEl.latest).toBeGreaterThanOrEqual(before.unsafe_l2.number);
    expect(after.unsafe_l2.number).toBeGreaterThanOrEqual(before.unsafe_l2.number);
    expect(after.safe_l2.number).toBeGreaterThanOrEqual(before.safe_l2.number);
    expect(after.finalized_l2.number).toBeGreaterThanOrEqual(before.finalized_l2.number);
  }, 900_000);

  it("EL sync: a fresh op-geth, peered over devp2p, fills the gap for a supernode in execution-layer sync mode", async () => {
    const r = await runElSync(BLOCKS);
    printReferenceFigure("el_sync_ms", r.elSyncMs, "ms", { case: "op-geth-el-sync", gap_blocks: r.gap });
    expect(r.mismatches).toEqual([]);
    expect(r.final.unsafe_l2.number).toBeGreaterThan(r.gap);
    expect(r.final.safe_l2.number).toBeGreaterThan(r.gap);
  }, 600_000);
});
