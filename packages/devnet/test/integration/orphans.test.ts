import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { descendants, survivors } from "../../../../chaos/process-tree.js";
import { devnetBin } from "../../src/bin-path.js";

/**
 * Issue 26, defect 5: every process the devnet starts (anvil, follower supernodes) ends within seconds when the
 * devnet's main process ends, however it ends — here `kill -9`, which runs no handler of its own.
 */
describe("supernode-devnet --followers 1 killed with kill -9", () => {
  it("leaves no process behind: anvil and the follower end within seconds", async () => {
    const child = spawn(
      process.execPath,
      [devnetBin(), "--chains", "1", "--followers", "1", "--rpc.port", "0", "--metrics.port", "0", "--el.port", "0"],
      { stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    const lines: string[] = [];
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    let left: number[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out:\n${lines.join("\n")}\n${stderr}`)), 120_000);
        createInterface({ input: child.stdout }).on("line", (line) => {
          lines.push(line);
          if (/^\s+chain 901\s+peer ID/.test(line)) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once("exit", () => reject(new Error(`exited early:\n${lines.join("\n")}\n${stderr}`)));
      });
      const below = descendants(child.pid!);
      expect(below.length).toBeGreaterThanOrEqual(2); // anvil (under its guard) and the follower
      process.kill(child.pid!, "SIGKILL");
      left = await survivors(below, 20_000);
      expect(left, `still running after 20 s: ${left.join(", ")}`).toEqual([]);
    } finally {
      for (const pid of [child.pid!, ...left]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
    }
  }, 180_000);
});
