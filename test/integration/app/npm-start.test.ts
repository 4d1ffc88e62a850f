import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { devnetBin } from "supernode-devnet";
import { describe, expect, it } from "vitest";

/**
 * `npm start` end to end: the devnet package's binary (`supernode-devnet`, what `npm start` runs) (ephemeral ports here), both chains sync, both
 * deposits arrive on L2, and a Ctrl-C stops everything cleanly (exit code 0, temporary directory removed). The Ctrl-C is
 * sent as a terminal sends it, to the whole foreground process group: the devnet's children (anvil's guard, the
 * supernode) sit in groups of their own, so only the devnet gets it and stops its parts in order, the L1 last (with
 * anvil in the devnet's group it died first and the batchers and supernode logged failed L1 reads on the way out).
 */
const BIN = devnetBin();

describe("supernode-devnet (npm start)", () => {
  it("shows two chains syncing, the deposits arriving, and stops cleanly on a terminal's Ctrl-C, the L1 last", async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        ...["--rpc.port", "0", "--metrics.port", "0", "--el.port", "0", "--l1-block-time", "1", "--l2-block-time", "1"],
        ...["--followers", "1"],
      ],
      { stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    const lines: string[] = [];
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const seen = new Set<string>();
        const timer = setTimeout(
          () => reject(new Error(`timed out; output:\n${lines.join("\n")}\n${stderr}`)),
          100_000,
        );
        createInterface({ input: child.stdout }).on("line", (line) => {
          lines.push(line);
          const m = /^chain (90[12]) \[running\] unsafe (\d+)\s+safe (\d+).*deposit arrived on L2/.exec(line);
          if (m !== null && Number(m[3]) > 0) seen.add(m[1]!);
          if (seen.size === 2) {
            clearTimeout(timer);
            resolve();
          }
        });
        void exited.then(() => reject(new Error(`exited early:\n${lines.join("\n")}\n${stderr}`)));
      });
      const dirLine = lines.find((l) => l.startsWith("starting devnet in "));
      // The variant B note comes before any supernode starts (each logs its end-of-support warning at start).
      expect(lines.indexOf(dirLine ?? "")).toBe(0);
      expect(lines[1]).toMatch(/^variant B chains run the legacy execution client on purpose/);
      expect(lines.some((l) => /^supernode RPC\s+http:\/\/127\.0\.0\.1:\d+\//.test(l))).toBe(true);
      expect(lines.some((l) => /^metrics\s+http:\/\/127\.0\.0\.1:\d+\/metrics/.test(l))).toBe(true);
      const before = { lines: lines.length, stderr: stderr.length };
      process.kill(-child.pid!, "SIGINT");
      expect(await exited).toBe(0);
      const onTheWayOut = [...lines.slice(before.lines), stderr.slice(before.stderr)].join("\n");
      expect(onTheWayOut).not.toMatch(/L1 head poll failed|batcher step failed|ECONNREFUSED/);
      expect(lines.at(-1)).toBe("devnet stopped");
      const dir = dirLine?.replace("starting devnet in ", "").replace(/ …$/, "");
      expect(dir !== undefined && existsSync(dir)).toBe(false);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
    }
  }, 120_000);
});
