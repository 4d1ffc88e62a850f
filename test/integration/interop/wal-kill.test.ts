/**
 * Crash safety of the interop activity: a process verifying into real LevelDB stores is killed with SIGKILL at
 * arbitrary points; a new activity over the same directory replays the written-ahead transition and finishes with
 * exactly the verified results and logs of an uninterrupted run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BLOCKS, openWorld } from "./wal-world.js";

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) process.kill(c.pid, "SIGKILL");
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "interop-wal-"));
  dirs.push(d);
  return d;
};

/** Runs the child until it has committed `killAfter` more timestamps and killed itself with SIGKILL. */
function runAndKill(dir: string, killAfter: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(__dirname, "wal-child.ts"), dir, String(killAfter)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    let last = 0;
    let buf = "";
    child.stdout?.on("data", (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split("\n");
      buf = lines.pop() ?? "";
      for (const l of lines) if (l.startsWith("ts ")) last = Number(l.slice(3));
    });
    child.on("exit", (_code, signal) =>
      signal === "SIGKILL" ? resolve(last) : reject(new Error("child ended early")),
    );
    child.on("error", reject);
  });
}

async function snapshot(dir: string) {
  const w = await openWorld(dir);
  try {
    while (await w.activity.round()) {}
    const results = [];
    for (let ts = 1000; ts <= (w.verified.last()?.timestamp ?? 0); ts++) results.push(await w.verified.get(ts));
    return {
      results,
      pending: await w.verified.pending(),
      logs: [...w.logs.entries()].map(([id, s]) => [id, s.first(), s.latest()]),
    };
  } finally {
    await w.close();
  }
}

describe("interop write-ahead transitions survive kill -9", () => {
  it("replays to the same verified store", { timeout: 120_000 }, async () => {
    const reference = await snapshot(tmp());
    expect(reference.results).toHaveLength(BLOCKS + 1);
    const dir = tmp();
    const first = await runAndKill(dir, 37);
    const second = await runAndKill(dir, 151);
    expect(second).toBeGreaterThan(first);
    expect(await snapshot(dir)).toEqual(reference);
  });
});
