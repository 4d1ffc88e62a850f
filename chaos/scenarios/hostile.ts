/**
 * A hostile L1 and beacon in front of the verifier: garbage, an oversized body, slow answers, HTTP 500, each for a
 * while; then honest answers again. The verifier must not crash, must move on afterwards, and its memory must come
 * back down (`rss_growth_mb`: RSS after recovery minus RSS before).
 */
import { type Ctx, note } from "../context.js";
import { rssMb, sleep } from "../procs.js";

export async function hostileScenario(ctx: Ctx): Promise<void> {
  const { world, plan, figures } = ctx;
  const pid = world.node("ver").proc?.pid ?? 0;
  const rssBefore = rssMb(pid);
  const before = await ctx.safeHeads("ver");
  for (const mode of ["garbage", "oversized", "slow", "http500"] as const) {
    world.proxy.mode = mode;
    await sleep(plan.hostileModeMs);
    note(`hostile L1 ${mode}: ${world.proxy.hostile} hostile answers so far, verifier RSS ${rssMb(pid).toFixed(0)} MB`);
  }
  world.proxy.mode = "pass";
  const recovered = await ctx.progressed("ver", before, plan.recoverMs + plan.hostileModeMs);
  await sleep(2_000);
  const growth = rssMb(pid) - rssBefore;
  figures.set("rss_growth_mb", Math.round(growth * 10) / 10);
  figures.set("hostile_l1_recovered", recovered ? 1 : 0);
  note(`hostile L1 over: verifier moved on ${recovered}, RSS ${rssBefore.toFixed(0)} → ${rssMb(pid).toFixed(0)} MB`);
}
