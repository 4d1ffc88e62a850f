import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { devnetBin } from "supernode-devnet";
import { describe, expect, it } from "vitest";

/**
 * `supernode-devnet --chains 3 --supernode-process child`: the devnet runs in the command's process and the supernode
 * in a child process of its own; every chain becomes safe, and SIGINT stops both.
 */
const BIN = devnetBin();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("supernode-devnet --supernode-process child", () => {
  it("runs the supernode apart from the devnet, syncs every chain, and stops both on SIGINT", async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        "--chains",
        "3",
        "--supernode-process",
        "child",
        "--rpc.port",
        "0",
        "--metrics.port",
        "0",
        "--el.port",
        "0",
        "--l1-block-time",
        "1",
        "--l2-block-time",
        "1",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const lines: string[] = [];
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let supernodePid: number | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out:\n${lines.join("\n")}\n${stderr}`)), 100_000);
        createInterface({ input: child.stdout }).on("line", (line) => {
          lines.push(line);
          const pid = /^supernode\s+pid (\d+), RPC http:\/\/127\.0\.0\.1:\d+\//.exec(line);
          if (pid !== null) supernodePid = Number(pid[1]);
          const m = /^3\/3 chains serving\s+unsafe \d+…\d+\s+safe (\d+)…\d+/.exec(line);
          if (m !== null && Number(m[1]) > 0) {
            clearTimeout(timer);
            resolve();
          }
        });
        void exited.then(() => reject(new Error(`exited early:\n${lines.join("\n")}\n${stderr}`)));
      });
      expect(supernodePid).toBeDefined();
      expect(supernodePid).not.toBe(child.pid);
      expect(alive(supernodePid as number)).toBe(true);
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(lines.at(-1)).toBe("devnet stopped");
      expect(alive(supernodePid as number)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      if (supernodePid !== undefined && alive(supernodePid)) process.kill(supernodePid, "SIGKILL");
    }
  }, 120_000);
});
