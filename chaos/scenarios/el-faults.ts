/**
 * Execution-client faults on the verifier's client of chain 902: frozen (SIGSTOP … SIGCONT), killed and restarted
 * with its data, killed and restarted wiped. Each must be surfaced (chain state not `running` or /readyz not 200)
 * and recovered without restarting the supernode; chain 901 keeps moving meanwhile.
 */
import { type Ctx, note } from "../context.js";
import { waitFor } from "../probe.js";
import { sleep } from "../procs.js";

const VICTIM = 902;
const BYSTANDER = 901;

/** Polls until the victim chain is surfaced; resolves with the seconds it took, or undefined after `capMs`. */
async function timeToSurface(ctx: Ctx, t0: number, capMs: number): Promise<number | undefined> {
  while (Date.now() - t0 < capMs) {
    if (await ctx.surfaced("ver", VICTIM).catch(() => false)) return (Date.now() - t0) / 1000;
    await sleep(250);
  }
  return undefined;
}

export async function elFaultScenario(ctx: Ctx): Promise<void> {
  const { world, plan, figures } = ctx;
  const el = world.el("ver", VICTIM);
  for (const fault of plan.elFaults) {
    const before = await ctx.safeHeads("ver");
    const t0 = Date.now();
    let surfacedS: number | undefined;
    if (fault === "frozen") {
      if (el.proc !== undefined) world.procs.freeze(el.proc);
      surfacedS = await timeToSurface(ctx, t0, plan.freezeMs);
      await sleep(Math.max(0, plan.freezeMs - (Date.now() - t0)));
      if (el.proc !== undefined) world.procs.thaw(el.proc);
    } else {
      await world.kill9El(el);
      surfacedS = await timeToSurface(ctx, t0, plan.elDownMs);
      await world.startEl(el, { wipe: fault === "restarted-wiped" });
    }
    const bystander = await ctx.safe("ver", BYSTANDER);
    const bystanderMoved = bystander !== undefined && bystander > (before[BYSTANDER] ?? 0);
    const bystanderRunning = await ctx.running("ver", BYSTANDER);
    // recovered: the chain moves on and is reported healthy again (running, /readyz 200), the supernode untouched
    const recovered =
      (await ctx.progressed("ver", { [VICTIM]: before[VICTIM] ?? 0 }, plan.recoverMs)) &&
      (await waitFor(async () => !(await ctx.surfaced("ver", VICTIM)), plan.recoverMs)) === true;
    figures.add("el_faults");
    // a figure is a measurement or absent: a fault not surfaced within its time fails the run
    if (surfacedS === undefined) {
      figures.add("faults_unsurfaced");
      ctx.cannotMeasure(
        `EL ${fault}: not surfaced within ${(fault === "frozen" ? plan.freezeMs : plan.elDownMs) / 1000} s`,
      );
    } else figures.max("fault_surfaced_s_max", surfacedS);
    if (!recovered) figures.add("faults_unrecovered");
    if (!bystanderMoved || !bystanderRunning) figures.add("faults_spread");
    note(
      `EL ${fault}: surfaced ${surfacedS === undefined ? "NOT" : `after ${surfacedS} s`}, recovered ${recovered}, ` +
        `chain ${BYSTANDER} moved ${bystanderMoved} and running ${bystanderRunning}`,
    );
    if (!recovered) {
      note("restarting the verifier supernode to go on");
      await world.kill9Node("ver");
      await world.startNode("ver");
      await ctx.progressed("ver", before, plan.recoverMs);
    }
  }
}
