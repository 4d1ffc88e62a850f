/**
 * A devnet with a follower (`supernode-devnet --followers 1`: anvil under its guard, a follower supernode) whose
 * main process is killed with `kill -9`: `orphans_after_parent_kill` counts the processes it had started that still
 * run 20 s later (must be 0).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { devnetBin } from "supernode-devnet";
import { type Ctx, note } from "../context.js";
import { descendants, survivors } from "../process-tree.js";

export async function orphansScenario(ctx: Ctx): Promise<void> {
  const args = ["--chains", "1", "--followers", "1", "--rpc.port", "0", "--metrics.port", "0", "--el.port", "0"];
  const child = spawn(process.execPath, [devnetBin(), ...args], {
    stdio: ["ignore", "pipe", "ignore"],
    detached: true,
  });
  let below: number[] = [];
  let left: number[] = [];
  try {
    const up = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ctx.plan.recoverMs * 2);
      createInterface({ input: child.stdout }).on("line", (line) => {
        if (/^\s+chain 901\s+peer ID/.test(line)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once("exit", () => resolve(false));
    });
    if (!up || child.pid === undefined) {
      ctx.cannotMeasure("orphans: the devnet with a follower did not come up");
      return;
    }
    below = descendants(child.pid);
    process.kill(child.pid, "SIGKILL");
    left = await survivors(below, 20_000);
    ctx.figures.set("orphans_after_parent_kill", left.length);
    note(
      `orphans: devnet killed with kill -9; ${left.length} of its ${below.length} processes still running after 20 s`,
    );
  } finally {
    for (const pid of [child.pid ?? 0, ...left].filter((p) => p > 0))
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
  }
}
