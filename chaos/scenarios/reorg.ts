/**
 * L1 reorgs (`anvil_reorg`) of growing depth inside the L1 finality distance: both supernodes must move on past
 * their safe heads from before the reorg and keep agreeing on every block hash. Then, optionally, one reorg across
 * L1 finality, which must be surfaced as critical (the chains fail, /readyz is not 200).
 */
import { CHAINS } from "../world.js";
import { type Ctx, note } from "../context.js";
import { waitFor } from "../probe.js";
import { sleep } from "../procs.js";

export async function reorgScenario(ctx: Ctx): Promise<void> {
  const { world, plan, figures } = ctx;
  let maxSurvived = 0;
  let chainIntact = true;
  for (const depth of plan.reorgDepths) {
    // the chain must be deeper than the reorg, and the reorg should hit batches (wait a random moment)
    await waitFor(async () => (await world.l1.anvil.blockNumber()) > depth + 4, 120_000, 500);
    await sleep(ctx.randInt(0, 1_000));
    const [seqBefore, verBefore] = [await ctx.safeHeads("seq"), await ctx.safeHeads("ver")];
    await world.l1.anvil.reorg(depth);
    figures.add("reorgs");
    const timeout = plan.recoverMs + depth * 1_000;
    const [seqOk, verOk] = await Promise.all([
      ctx.progressed("seq", seqBefore, timeout),
      ctx.progressed("ver", verBefore, timeout),
    ]);
    // A node that is still resetting may report a safe head its execution client has just replaced: judge the
    // agreement once it has settled (a real divergence does not go away).
    let differ = 0;
    await waitFor(
      async () => {
        differ = 0;
        for (const c of CHAINS) differ += (await ctx.disagreements(c.chainId)).differ;
        return differ === 0;
      },
      30_000,
      1_000,
    );
    const survived = seqOk && verOk && differ === 0;
    if (survived && chainIntact) maxSurvived = depth;
    if (!survived) {
      chainIntact = false;
      await ctx.diagnose(`L1 reorg depth ${depth}`);
    }
    figures.add("lost_blocks", differ);
    note(
      `L1 reorg depth ${depth}: sequencer moved on ${seqOk}, verifier moved on ${verOk}, hashes differ at ${differ} ` +
        `heights → ${survived ? "survived" : "NOT survived"}`,
    );
  }
  figures.set("reorg_depth_max_survived", maxSurvived);
}

/** One reorg deeper than the finality distance; returns whether both nodes surfaced it within `timeoutMs`. */
export async function reorgAcrossFinality(ctx: Ctx, timeoutMs: number): Promise<void> {
  const { world, plan, figures } = ctx;
  // deep enough to replace the L1 finalized block and the L1 origin of the verifier's finalized L2 block
  await waitFor(async () => ((await ctx.status("ver", 901))?.finalized_l2.number ?? 0) > 0, 120_000, 500);
  const head = await world.l1.anvil.blockNumber();
  const origin = (await ctx.status("ver", 901))?.finalized_l2.l1origin?.number ?? 0;
  const depth = Math.min(head - 1, Math.max(2 * plan.slotsInAnEpoch + 3, head - origin + 2));
  await world.l1.anvil.reorg(depth);
  const t0 = Date.now();
  const surfaced = await waitFor(async () => {
    for (const role of ["seq", "ver"] as const)
      for (const c of CHAINS) if (!(await ctx.surfaced(role, c.chainId))) return false;
    return true;
  }, timeoutMs);
  figures.set("reorg_across_finality_surfaced", surfaced === true ? 1 : 0);
  note(
    `L1 reorg depth ${depth} across finality (distance ${2 * plan.slotsInAnEpoch}, finalized L2 origin ${origin}, ` +
      `head ${head}): ` +
      (surfaced === true ? `surfaced on both nodes in ${(Date.now() - t0) / 1000} s` : "NOT surfaced"),
  );
}
