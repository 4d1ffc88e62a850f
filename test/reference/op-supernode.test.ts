/**
 * op-supernode beside ours (test/support/reference-opsupernode.ts): on a two-chain interop devnet with invalid
 * executing messages, our supernode and op-supernode each derive both chains from L1 onto op-geth clients of their
 * own and verify them. Over a bounded run they must agree on the verified timestamps and the
 * `superroot_atTimestamp` answers (every timestamp from the activation on), the invalidations (per chain) and the
 * replacement blocks (every block hash of both chains). Measured in the same run: our CPU per derived block over
 * op-supernode's and our RSS per chain over op-supernode's (both processes read from /proc).
 *
 * Timestamps: max(REFERENCE_BLOCKS, 40) blocks past the activation (`npm run reference`: 200), and at least two
 * replaced invalid blocks (six with 200). Figures: superroots_compared, superroot_mismatches,
 * verified_timestamps_compared, invalidations (per side and chain), replacements_compared, blocks_compared,
 * block_mismatches, cpu_per_block_vs_opsupernode, rss_per_chain_vs_opsupernode.
 */
import { describe, expect, it } from "vitest";
import {
  printCostFigure,
  printReferenceFigure,
  referenceSkipReason,
  supernodeFrom,
  until,
} from "../support/reference.js";
import { CHAINS, startSupernodesRig } from "../support/reference-opsupernode.js";
import {
  compareBlocks,
  compareReplacements,
  compareSuperRoots,
  localSafe,
  metricByChain,
  superRootAt,
  usageSample,
} from "../support/reference-supernodes-compare.js";

const BLOCKS = Math.max(Number(process.env.REFERENCE_BLOCKS ?? 20), 40);
const WANT_REPLACED = BLOCKS >= 200 ? 6 : 2;
const skip = referenceSkipReason("op-supernode beside ours", ["geth", "op-supernode"]);

describe.skipIf(skip !== undefined)("op-supernode beside ours on a two-chain interop devnet", () => {
  it(`the same verified timestamps, super roots, invalidations and replacements over ${BLOCKS} timestamps`, async () => {
    const stops: Array<() => Promise<void>> = [];
    try {
      const rig = await startSupernodesRig({ invalidEveryBlocks: 8 }, stops);
      const { ours, theirs, traffic, activation } = rig;
      const verifiersAt = async (n: number) => {
        for (const v of [ours, theirs]) for (const id of CHAINS) if ((await localSafe(v, id)) < n) return undefined;
        return true;
      };
      await until("both verifiers past block 5", () => verifiersAt(5), 300_000);
      const before = await usageSample(ours, theirs);
      // the end: BLOCKS past activation and past the last replaced block, verified on both
      let end = activation + BLOCKS;
      const name = "supernode_interop_invalidations_total";
      const total = async (v: typeof ours) => Object.values(await metricByChain(v, name)).reduce((a, b) => a + b, 0);
      await until(
        `${WANT_REPLACED} invalid blocks replaced and ${BLOCKS} timestamps verified on both`,
        async () => {
          const s = traffic.stats();
          if (s.invalidSent.length < WANT_REPLACED) return undefined;
          if ((await total(ours)) < WANT_REPLACED || (await total(theirs)) < WANT_REPLACED) return undefined;
          end = Math.max(end, activation + Math.max(...s.invalidSent.map((i) => i.blockNumber)) + 4);
          const [a, b] = await Promise.all([superRootAt(ours, end), superRootAt(theirs, end)]);
          return a.data !== undefined && b.data !== undefined ? true : undefined;
        },
        BLOCKS * 5_000 + 600_000,
      );
      const after = await usageSample(ours, theirs);
      await traffic.stop();

      const roots = await compareSuperRoots(ours, theirs, activation, end);
      printReferenceFigure("superroots_compared", roots.compared, "timestamps");
      printReferenceFigure("superroot_mismatches", roots.mismatches, "timestamps");
      printReferenceFigure("verified_timestamps_compared", roots.verifiedBoth, "timestamps");

      const [invOurs, invTheirs] = [await metricByChain(ours, name), await metricByChain(theirs, name)];
      for (const id of CHAINS) {
        const chain = id.toString(10);
        printReferenceFigure("invalidations", invOurs[chain] ?? 0, "blocks", { side: "supernode", chain });
        printReferenceFigure("invalidations", invTheirs[chain] ?? 0, "blocks", { side: "op-supernode", chain });
      }
      const sent = traffic.stats().invalidSent.filter((s) => s.blockNumber <= end - activation);
      const replacements = await compareReplacements(ours, theirs, sent);
      printReferenceFigure("replacements_compared", sent.length, "blocks", { kinds: sent.map((s) => s.kind) });
      const blocks = await compareBlocks(ours, theirs, end - activation);
      printReferenceFigure("blocks_compared", blocks.compared, "blocks", { case: "op-supernode" });
      printReferenceFigure("block_mismatches", blocks.mismatches, "blocks", { case: "op-supernode" });

      const cpu = (s: { cpuS: number; blocks: number }, t: { cpuS: number; blocks: number }) =>
        (t.cpuS - s.cpuS) / Math.max(1, t.blocks - s.blocks);
      const [cpuOurs, cpuTheirs] = [cpu(before.ours, after.ours), cpu(before.theirs, after.theirs)];
      const from = supernodeFrom(ours.logPath);
      printCostFigure("cpu_per_block_vs_opsupernode", cpuOurs / cpuTheirs, from, {
        supernode_ms_per_block: +(cpuOurs * 1000).toFixed(2),
        opsupernode_ms_per_block: +(cpuTheirs * 1000).toFixed(2),
        blocks: after.ours.blocks - before.ours.blocks,
      });
      printCostFigure("rss_per_chain_vs_opsupernode", after.ours.rssMb / after.theirs.rssMb, from, {
        supernode_mb_per_chain: +(after.ours.rssMb / CHAINS.length).toFixed(1),
        opsupernode_mb_per_chain: +(after.theirs.rssMb / CHAINS.length).toFixed(1),
        // each process's RSS as [anonymous, file-backed] MiB (test/support/proc-usage.ts)
        rss_anon_file_mb: {
          supernode: [after.ours.rssAnonMb, after.ours.rssFileMb],
          opsupernode: [after.theirs.rssAnonMb, after.theirs.rssFileMb],
        },
      });

      for (const m of [...roots.first, ...replacements, ...blocks.first]) process.stderr.write(`disagreement: ${m}\n`);
      expect(roots.first).toEqual([]);
      expect(roots.verifiedBoth).toBeGreaterThan(0);
      expect(replacements).toEqual([]);
      expect(blocks.first).toEqual([]);
      for (const id of CHAINS) expect(invOurs[id.toString(10)] ?? 0).toBe(invTheirs[id.toString(10)] ?? 0);
      expect(sent.length).toBeGreaterThanOrEqual(WANT_REPLACED);
    } finally {
      for (const s of stops.reverse()) await s().catch(() => {});
    }
  }, 3_600_000);
});
