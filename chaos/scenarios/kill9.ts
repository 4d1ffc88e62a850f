/**
 * `kill -9` of a supernode at seeded random points: right after a restart (mid-reset), or a random moment into
 * steady running (mid-derivation, mid-SafeDB write, mid-sequencing). After each restart: the SafeDB still answers
 * what it answered before, the node resumes from its SafeDB and execution client (the first safe head it reports is
 * not below the finalized head before the kill), its safe heads move on, and safe never went backwards.
 */
import { CHAINS, type Role } from "../world.js";
import { type Ctx, note } from "../context.js";
import { rpc, waitFor } from "../probe.js";
import { sleep } from "../procs.js";

interface Before {
  readonly safe: Record<number, number>;
  readonly finalized: Record<number, number>;
  /** L1 block → the SafeDB's answer (safe head hash). */
  readonly safeDb: Record<number, { l1: number; hash: string } | undefined>;
}

async function snapshot(ctx: Ctx, role: Role): Promise<Before> {
  const safe: Record<number, number> = {};
  const finalized: Record<number, number> = {};
  const safeDb: Before["safeDb"] = {};
  const url = ctx.world.node(role).rpcUrl;
  for (const c of CHAINS) {
    const s = await ctx.status(role, c.chainId);
    safe[c.chainId] = s?.safe_l2.number ?? 0;
    finalized[c.chainId] = s?.finalized_l2.number ?? 0;
    const l1 = (s?.current_l1.number ?? 0) - 3;
    if (l1 > 0) {
      const r = await rpc<{ safeHead: { hash: string } }>(`${url}/${c.chainId}/`, "stack_safeHeadAtL1Block", [
        `0x${l1.toString(16)}`,
      ]).catch(() => undefined);
      safeDb[c.chainId] = r === undefined ? undefined : { l1, hash: r.safeHead.hash };
    }
  }
  return { safe, finalized, safeDb };
}

/** The first safe head each chain reports after a restart (once it reports any L1 progress). */
async function firstSafe(ctx: Ctx, role: Role, timeoutMs: number): Promise<Record<number, number> | undefined> {
  const out: Record<number, number> = {};
  const done = await waitFor(
    async () => {
      for (const c of CHAINS) {
        if (out[c.chainId] !== undefined) continue;
        const s = await ctx.status(role, c.chainId);
        if (s !== undefined && (s.safe_l2.number > 0 || s.current_l1.number > 0)) out[c.chainId] = s.safe_l2.number;
      }
      return CHAINS.every((c) => out[c.chainId] !== undefined);
    },
    timeoutMs,
    100,
  );
  return done === true ? out : undefined;
}

export async function kill9Scenario(ctx: Ctx): Promise<void> {
  const { world, plan, figures } = ctx;
  let previousWasRestart = false;
  for (let i = 0; i < plan.kill9Points; i++) {
    // both nodes in turn (the sequencer first), at random moments
    const role: Role = i % 2 === 0 ? "seq" : "ver";
    // A third of the points hit a node that was just restarted (reset, SafeDB reads); the others a running node.
    const midReset = previousWasRestart && ctx.rand() < 0.33;
    const before = await snapshot(ctx, role);
    const delay = midReset ? ctx.randInt(0, 1_500) : ctx.randInt(200, 3_000);
    await sleep(delay);
    const kind = midReset ? "mid-reset" : role === "seq" ? "mid-sequencing" : "mid-derivation";
    await world.kill9Node(role);
    figures.add("kill9_points");
    await world.startNode(role);
    if (role === "seq") await world.ensureSequencing();
    const first = await firstSafe(ctx, role, plan.recoverMs);
    const moved = await ctx.progressed(role, before.safe, plan.recoverMs);
    let intact = true;
    for (const c of CHAINS) {
      const q = before.safeDb[c.chainId];
      if (q === undefined) continue;
      const r = await waitFor(
        () =>
          rpc<{ safeHead: { hash: string } }>(`${world.node(role).rpcUrl}/${c.chainId}/`, "stack_safeHeadAtL1Block", [
            `0x${q.l1.toString(16)}`,
          ]),
        plan.recoverMs,
      );
      if (r?.safeHead.hash !== q.hash) intact = false;
    }
    let resumed = first !== undefined && moved && intact;
    for (const c of CHAINS) {
      const f = first?.[c.chainId] ?? 0;
      if (f < (before.finalized[c.chainId] ?? 0) || (f === 0 && (before.safe[c.chainId] ?? 0) > 0)) resumed = false;
      if (f < (before.safe[c.chainId] ?? 0)) figures.add("safe_regressions");
    }
    if (resumed) figures.add("kill9_resumed");
    note(
      `kill -9 #${i + 1} ${role} (${kind}, +${delay} ms): safe before ${JSON.stringify(before.safe)}, first after ` +
        `${JSON.stringify(first)}, progressed ${moved}, SafeDB intact ${intact} → ${resumed ? "resumed" : "NOT resumed"}`,
    );
    previousWasRestart = true;
  }
}
