/**
 * proxyd in its consensus-aware CL mode in front of two supernodes (test/support/reference-proxyd.ts): proxyd
 * takes both into its consensus group (their `opp2p_peerStats`, `optimism_syncStatus` and `optimism_outputAtBlock`
 * answers as they are), serves a sync status whose safe head is the sequencer's block and never goes backwards,
 * finds no output-root disagreement and answers `optimism_outputAtBlock` as both supernodes do.
 *
 * proxyd comes from `SUPERNODE_REF_PROXYD` only (the Go module proxy refuses its module, so nothing here builds it;
 * docs/reference.md): without it the test skips, also in CI. Blocks: REFERENCE_BLOCKS (default 20, at most 60).
 * Figures: proxyd_sync_status_served, proxyd_group_size, proxyd_outputs_compared.
 */
import { describe, expect, it } from "vitest";
import { printReferenceFigure, referenceSkipReason } from "../support/reference.js";
import { runProxyd } from "../support/reference-proxyd.js";

const BLOCKS = Math.min(Number(process.env.REFERENCE_BLOCKS ?? 20), 60);
const skip = referenceSkipReason("proxyd", ["geth", "proxyd"]);

describe.skipIf(skip !== undefined)("proxyd (consensus-aware CL mode) in front of two supernodes", () => {
  it(`keeps both in its consensus group up to a safe head at ${BLOCKS}`, async () => {
    const r = await runProxyd(BLOCKS);
    printReferenceFigure("proxyd_sync_status_served", r.served, "answers", {
      regressions: r.servedRegressions,
      safe: r.safe,
    });
    printReferenceFigure("proxyd_group_size", r.groupBoth, "backends", { peers: r.peers, in_sync: r.inSync });
    printReferenceFigure("proxyd_outputs_compared", r.outputsCompared, "outputs", {
      disagreements: r.outputRootDisagreements,
      bans: r.outputRootBans,
      halts: r.halts,
    });
    expect(r.mismatches).toEqual([]);
    expect(r.servedRegressions).toBe(0);
    expect(r.groupBoth).toBe(2);
    expect(r.peers.length).toBe(2);
    expect(Math.min(...r.peers), "the peer counts proxyd read from opp2p_peerStats").toBeGreaterThanOrEqual(1);
    expect(r.inSync).toEqual([1, 1]);
    expect(r.outputRootDisagreements + r.outputRootBans + r.halts).toBe(0);
    expect(r.outputsCompared).toBeGreaterThan(0);
  }, 600_000);
});
