import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { devnetBin } from "../../src/bin-path.js";

/**
 * Issue 26, defect 5: every process the devnet starts (anvil, follower supernodes) ends within seconds when the
 * devnet's main process ends, however it ends — here `kill -9`, which runs no handler of its own.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z");
  } catch {
    return false;
  }
}

/** Every process below `root` (Linux /proc). */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      parentOf.set(Number(e), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [pid, ppid] of parentOf)
      if (ppid === p) {
        out.push(pid);
        walk(pid);
      }
  };
  walk(root);
  return out;
}

describe("supernode-devnet --followers 1 killed with kill -9", () => {
  it("leaves no process behind: anvil and the follower end within seconds", async () => {
    const child = spawn(
      process.execPath,
      [devnetBin(), "--chains", "1", "--followers", "1", "--rpc.port", "0", "--metrics.port", "0"],
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
      const end = Date.now() + 20_000;
      do {
        await new Promise((r) => setTimeout(r, 200));
        left = below.filter(alive);
      } while (left.length > 0 && Date.now() < end);
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
