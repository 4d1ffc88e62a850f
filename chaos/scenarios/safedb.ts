/**
 * A corrupted and a truncated SafeDB (LevelDB under `<data-dir>/chain-901/safedb`) on the verifier, killed with
 * `kill -9` first. The outcome counts as handled when the chain is surfaced as not running or keeps deriving
 * correctly; silently stuck is not handled. The store is then recovered as docs/running.md says (the damaged
 * store moved aside, the chain re-derives from its execution client's heads) and the chain must move on.
 */
import { existsSync, openSync, readdirSync, renameSync, statSync, truncateSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { type Ctx, note } from "../context.js";
import { waitFor } from "../probe.js";

const VICTIM = 901;

function damage(dir: string, how: "corrupted" | "truncated", rand: () => number): string | undefined {
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .map((f) => ({ f, size: statSync(join(dir, f)).size }))
    .filter((x) => x.size > 0);
  const pick = (re: RegExp) => files.filter((x) => re.test(x.f)).sort((a, b) => b.size - a.size)[0];
  if (how === "truncated") {
    const m = pick(/^MANIFEST-/) ?? pick(/\.log$/);
    if (m === undefined) return undefined;
    truncateSync(join(dir, m.f), Math.floor(m.size / 3));
    return m.f;
  }
  const t = pick(/\.ldb$/) ?? pick(/\.log$/);
  if (t === undefined) return undefined;
  const fd = openSync(join(dir, t.f), "r+");
  const junk = Buffer.alloc(Math.min(4096, t.size), 0);
  for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(rand() * 256);
  writeSync(fd, junk, 0, junk.length, Math.floor(t.size / 4));
  closeSync(fd);
  return t.f;
}

export async function safeDbScenario(ctx: Ctx): Promise<void> {
  const { world, plan, figures } = ctx;
  const dir = join(world.node("ver").dataDir, `chain-${VICTIM}`, "safedb");
  for (const how of plan.safeDbFaults) {
    const before = await ctx.safeHeads("ver");
    await world.kill9Node("ver");
    const file = damage(dir, how, ctx.rand);
    await world.startNode("ver");
    const outcome = await waitFor(
      async () => {
        if (await ctx.surfaced("ver", VICTIM)) return "surfaced";
        const s = await ctx.safe("ver", VICTIM);
        return s !== undefined && s > (before[VICTIM] ?? 0) + 2 ? "derives" : false;
      },
      plan.recoverMs,
      500,
    );
    figures.add("safedb_faults");
    if (outcome !== undefined) figures.add("safedb_faults_handled");
    // damage must be surfaced (the chain `failed`, not ready), not just survived: the store is read whole at open
    if (outcome === "surfaced") figures.add("safedb_damage_surfaced");
    // recovery: the damaged store moved aside; the chain resumes from its execution client's heads
    await world.kill9Node("ver");
    if (existsSync(dir)) renameSync(dir, `${dir}.damaged-${how}`);
    await world.startNode("ver");
    const recovered = await ctx.progressed("ver", before, plan.recoverMs);
    if (!recovered) figures.add("safedb_unrecovered");
    note(`SafeDB ${how} (${file ?? "no file"}): ${outcome ?? "silently stuck"}; after recovery moving ${recovered}`);
  }
}
