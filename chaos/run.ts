/**
 * `npm run chaos` (short seeded run) / `npm run chaos -- --full` (everything) / `--seed N`. Starts the chaos
 * topology (world.ts), runs the scenarios in order, and prints one JSON line per figure on standard output
 * (`{"bench":"chaos","figure":…,"value":…}`); progress goes to standard error. Every process it started is ended
 * by PID (process groups), also on failure. Exit code 0 once the figures are printed (judging them is the caller's).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printFigure } from "../bench/harness.js";
import { Ctx, Figures, note, type Plan } from "./context.js";
import { waitFor } from "./probe.js";
import { elFaultScenario } from "./scenarios/el-faults.js";
import { fuzzScenario } from "./scenarios/fuzz.js";
import { hostileScenario } from "./scenarios/hostile.js";
import { kill9Scenario } from "./scenarios/kill9.js";
import { reorgAcrossFinality, reorgScenario } from "./scenarios/reorg.js";
import { diskFullScenario } from "./scenarios/disk-full.js";
import { exhaustionScenario } from "./scenarios/exhaustion.js";
import { orphansScenario } from "./scenarios/orphans.js";
import { safeDbScenario } from "./scenarios/safedb.js";
import { CHAINS, World } from "./world.js";

function planFrom(argv: readonly string[]): Plan {
  const full = argv.includes("--full");
  const seedAt = argv.indexOf("--seed");
  const seed = seedAt >= 0 ? Number(argv[seedAt + 1]) : 11;
  return full
    ? {
        full,
        seed,
        kill9Points: 50,
        reorgDepths: [1, 2, 4, 8, 16, 32, 64],
        reorgAcrossFinality: true,
        slotsInAnEpoch: 36,
        freezeMs: 60_000,
        elDownMs: 35_000,
        diskFullMs: 20_000,
        hostileModeMs: 15_000,
        oversizedBytes: 400 << 20,
        fuzzRequests: 10_000,
        recoverMs: 90_000,
        elFaults: ["frozen", "killed-restarted", "restarted-wiped"],
        safeDbFaults: ["corrupted", "truncated"],
        freshNode: true,
      }
    : {
        full,
        seed,
        kill9Points: 3,
        reorgDepths: [1, 2, 4, 8],
        reorgAcrossFinality: false,
        slotsInAnEpoch: 6,
        // long enough to be surfaced: a chain is `degraded` after 10 s of failing steps, and a frozen client's
        // first call fails only at its 10 s timeout
        freezeMs: 30_000,
        elDownMs: 20_000,
        diskFullMs: 5_000,
        hostileModeMs: 1_500,
        // 8× the verifier's bound, so the short run really aborts an answer (at the default 64 MiB bound a 64 MiB
        // answer is read whole, and the RSS it leaves behind is noise of the GC, not of the bound)
        oversizedBytes: 64 << 20,
        l1MaxResponseBytes: 8 << 20,
        fuzzRequests: 2_000,
        recoverMs: 45_000,
        elFaults: ["frozen", "killed-restarted"],
        safeDbFaults: ["corrupted"],
        freshNode: false,
      };
}

/** The verifier restarted with nothing (SafeDB and execution clients wiped) must derive the same chain. */
async function freshNodeCheck(ctx: Ctx): Promise<void> {
  const { world, plan, figures } = ctx;
  const target = await ctx.safeHeads("seq");
  await world.kill9Node("ver");
  rmSync(world.node("ver").dataDir, { recursive: true, force: true });
  for (const c of CHAINS) {
    const el = world.el("ver", c.chainId);
    await world.kill9El(el);
    await world.startEl(el, { wipe: true });
  }
  await world.startNode("ver");
  const caughtUp = await waitFor(async () => {
    for (const c of CHAINS) if (((await ctx.safe("ver", c.chainId)) ?? 0) < (target[c.chainId] ?? 0)) return false;
    return true;
  }, plan.recoverMs * 2);
  let differ = 0;
  let checked = 0;
  for (const c of CHAINS) {
    const d = await ctx.disagreements(c.chainId);
    differ += d.differ;
    checked += d.checked;
  }
  figures.add("lost_blocks", differ);
  figures.set("fresh_node_blocks_compared", checked);
  note(`fresh verifier: caught up ${caughtUp === true}, ${checked} blocks compared, ${differ} differ`);
}

async function main(): Promise<void> {
  const plan = planFrom(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), "supernode-chaos-"));
  note(`chaos ${plan.full ? "full" : "short"} run, seed ${plan.seed}, in ${dir}`);
  const figures = new Figures();
  // plans are printed as plans; every other figure is a measurement, absent when nothing measured it
  figures.set("kill9_points_planned", plan.kill9Points);
  figures.set("fuzz_requests_planned", plan.fuzzRequests);
  const t0 = Date.now();
  const world = await World.start({
    dir,
    slotsInAnEpoch: plan.slotsInAnEpoch,
    l1BlockTimeSec: 1,
    l2BlockTimeSec: 1,
    oversizedBytes: plan.oversizedBytes,
    ...(plan.l1MaxResponseBytes === undefined ? {} : { l1MaxResponseBytes: plan.l1MaxResponseBytes }),
    slowMs: 20_000,
  });
  let failed = false;
  try {
    note(`topology up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const ctx = new Ctx(world, plan, figures);
    const warm = await ctx.progressed("ver", { 901: 3, 902: 3 }, plan.recoverMs);
    if (!warm) throw new Error("the verifier never derived a block");
    const steps: [string, string, () => Promise<void>][] = [
      ["kill9", "kill -9", () => kill9Scenario(ctx)],
      ["reorgs", "L1 reorgs", () => reorgScenario(ctx)],
      ["el", "execution-client faults", () => elFaultScenario(ctx)],
      ["safedb", "SafeDB damage", () => safeDbScenario(ctx)],
      ["diskfull", "full disk", () => diskFullScenario(ctx)],
      ["exhaustion", "connection exhaustion", () => exhaustionScenario(ctx)],
      ["orphans", "kill -9 of a devnet with a follower", () => orphansScenario(ctx)],
      ["hostile", "hostile L1", () => hostileScenario(ctx)],
      ["fuzz", "fuzz", () => fuzzScenario(ctx)],
    ];
    if (plan.freshNode) steps.push(["fresh", "fresh node", () => freshNodeCheck(ctx)]);
    steps.push(["finality", "reorg across finality", () => reorgAcrossFinality(ctx, 120_000)]);
    const onlyAt = process.argv.indexOf("--only");
    const only = onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? "").split(",") : undefined;
    const chosen = steps.filter(([key]) =>
      only !== undefined ? only.includes(key) : key !== "finality" || plan.reorgAcrossFinality,
    );
    for (const [, name, run] of chosen) {
      note(`— ${name}`);
      await run();
    }
    if (ctx.unmeasured.length > 0) throw new Error(`scenarios could not measure: ${ctx.unmeasured.join("; ")}`);
  } catch (err) {
    failed = true;
    note(`chaos run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    const crashes = world.procs.crashes;
    figures.set("crashes", crashes.filter((c) => c.startsWith("supernode")).length);
    if (crashes.length > 0) note(`unexpected exits: ${crashes.join("; ")}`);
    await world.stop();
  }
  figures.set("run_s", Math.round((Date.now() - t0) / 1000));
  const units: Record<string, string> = { fault_surfaced_s_max: "s", rss_growth_mb: "MB", run_s: "s" };
  for (const [figure, value] of figures.values) printFigure("chaos", { figure, value, unit: units[figure] ?? "count" });
  if (!failed && !process.argv.includes("--keep")) rmSync(dir, { recursive: true, force: true });
  else note(`logs kept in ${dir}`);
  process.exitCode = failed ? 1 : 0;
}

await main();
