/**
 * A full disk under the verifier's data dir: the data dir moved onto a small tmpfs (made here; where the machine
 * refuses the mount the scenario says so and is skipped), filled to the last byte while the node derives, then space
 * freed, then a restart. Measured: how long until the node surfaces it, whether it recovers, and how many SafeDB
 * answers (`stack_safeHeadAtL1Block` over the L1 blocks of the whole episode) differ after the restart from what
 * the node answered before it: `disk_full_records_lost`, which must be 0.
 */
import { cpSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Ctx, note } from "../context.js";
import { rpc, waitFor } from "../probe.js";
import { sleep } from "../procs.js";
import { fillUp, mountTmpfs, unmount } from "../small-fs.js";
import { CHAINS } from "../world.js";

const SIZE_KIB = 8 * 1024;

/** Every chain's answer for each L1 block in [from, to] (a JSON text per block; errors as text too). */
async function sample(url: string, from: number, to: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const c of CHAINS)
    for (let n = from; n <= to; n++) {
      const key = `${c.chainId}@${n}`;
      try {
        const r = await rpc<unknown>(`${url}/${c.chainId}/`, "stack_safeHeadAtL1Block", [`0x${n.toString(16)}`]);
        out.set(key, JSON.stringify(r));
      } catch (err) {
        out.set(key, `error ${(err as Error).message}`);
      }
    }
  return out;
}

export async function diskFullScenario(ctx: Ctx): Promise<void> {
  const { world, plan, figures } = ctx;
  const node = world.node("ver");
  const dir = node.dataDir;
  const stash = `${dir}.stash`;
  await world.kill9Node("ver");
  renameSync(dir, stash);
  mkdirSync(dir);
  try {
    mountTmpfs(dir, SIZE_KIB);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    renameSync(stash, dir);
    await world.startNode("ver");
    note(`disk full: SKIPPED (${(err as Error).message})`);
    return;
  }
  try {
    cpSync(stash, dir, { recursive: true });
    await world.startNode("ver");
    const before = await ctx.safeHeads("ver");
    if (!(await ctx.progressed("ver", before, plan.recoverMs))) ctx.cannotMeasure("disk full: no progress on tmpfs");
    const l1From = (await ctx.status("ver", CHAINS[0]!.chainId))?.current_l1.number ?? 0;
    const t0 = Date.now();
    fillUp(join(dir, "filler"));
    // The first write that fails may come late: LevelDB appends its log in place, and on tmpfs an append that still
    // fits the log's last page (4 KiB, ~40 SafeDB records at one per L1 block) needs no new space. Hence a longer
    // bound than a recovery's (a bound, not a sleep: it ends as soon as the node reports the fault).
    const surfaced = await waitFor(async () => {
      for (const c of CHAINS) if (await ctx.surfaced("ver", c.chainId)) return (Date.now() - t0) / 1000;
      return false;
    }, plan.recoverMs * 3);
    if (surfaced === undefined) ctx.cannotMeasure("disk full: never surfaced");
    else figures.set("disk_full_surfaced_s", Math.round(surfaced * 10) / 10);
    await sleep(plan.diskFullMs);
    rmSync(join(dir, "filler"));
    const atFree = await ctx.safeHeads("ver");
    const recovered =
      (await ctx.progressed("ver", atFree, plan.recoverMs)) &&
      (await waitFor(async () => !(await ctx.surfaced("ver", CHAINS[0]!.chainId)), plan.recoverMs)) === true;
    figures.set("disk_full_recovered", recovered ? 1 : 0);
    // a few more L1 blocks recorded after the space came back, then the answers before and after a restart
    await ctx.progressed("ver", await ctx.safeHeads("ver"), plan.recoverMs);
    const l1To = (await ctx.status("ver", CHAINS[0]!.chainId))?.current_l1.number ?? l1From;
    const answers = await sample(node.rpcUrl, l1From, l1To);
    if (node.proc !== undefined) await world.procs.stop(node.proc);
    await world.startNode("ver");
    await waitFor(async () => (await ctx.status("ver", CHAINS[0]!.chainId)) !== undefined, plan.recoverMs);
    const again = await sample(node.rpcUrl, l1From, l1To);
    let lost = 0;
    for (const [k, v] of answers) if (again.get(k) !== v) lost++;
    figures.set("disk_full_records_lost", lost);
    figures.set("disk_full_records_compared", answers.size);
    note(
      `disk full: surfaced ${surfaced === undefined ? "NOT" : `after ${surfaced} s`}, recovered ${recovered}; ` +
        `L1 ${l1From}..${l1To}: ${lost} of ${answers.size} SafeDB answers changed by the restart`,
    );
  } finally {
    await world.kill9Node("ver");
    rmSync(stash, { recursive: true, force: true });
    cpSync(dir, stash, { recursive: true });
    unmount(dir);
    rmSync(dir, { recursive: true, force: true });
    renameSync(stash, dir);
    await world.startNode("ver");
  }
}
