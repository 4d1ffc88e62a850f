/**
 * The short seeded chaos run (chaos/run.ts: a few kill -9 points, L1 reorgs up to depth 8, execution-client
 * faults, a damaged SafeDB, a hostile L1, 2,000 malformed JSON-RPC requests) against the real binary and real parts
 * in separate processes; asserts its figures. The run ends every process it started; this test ends the run's
 * process group if it fails or times out.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

describe("chaos suite (short run)", () => {
  let pid: number | undefined;
  afterAll(() => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      // already gone
    }
  });

  it("survives kill -9, L1 reorgs, EL faults, SafeDB damage, a hostile L1 and fuzzing", async () => {
    const child = spawn(
      process.execPath,
      ["--conditions=supernode-source", "--import", "tsx", join(ROOT, "chaos", "run.ts"), "--seed", "11"],
      {
        cwd: ROOT,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    pid = child.pid;
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString("utf8");
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    pid = undefined;
    const fig: Record<string, number> = {};
    for (const line of out.split("\n")) {
      if (!line.startsWith("{")) continue;
      const f = JSON.parse(line) as { bench: string; figure: string; value: number };
      if (f.bench === "chaos") fig[f.figure] = f.value;
    }
    const progress = err
      .split("\n")
      .filter((l) => l.startsWith("[chaos"))
      .join("\n");
    expect(code, progress).toBe(0);
    expect(fig.crashes, progress).toBe(0);
    expect(fig.lost_blocks, progress).toBe(0);
    expect(fig.kill9_points, progress).toBeGreaterThanOrEqual(3);
    expect(fig.kill9_resumed, progress).toBe(fig.kill9_points);
    expect(fig.reorg_depth_max_survived, progress).toBeGreaterThanOrEqual(8);
    expect(fig.safedb_faults_handled, progress).toBe(fig.safedb_faults);
    expect(fig.hostile_l1_recovered, progress).toBe(1);
    // the verifier's memory stays bounded after a 64 MB answer from the hostile L1 (aborted at its 8 MiB bound)
    expect(fig.rss_growth_mb, progress).toBeLessThan(64);
    // execution-client faults never reach the other chain, and the client is recovered without a supernode restart
    expect(fig.el_faults, progress).toBeGreaterThanOrEqual(2);
    expect(fig.faults_spread ?? 0, progress).toBe(0);
    expect(fig.faults_unrecovered ?? 0, progress).toBe(0);
    expect(fig.fuzz_requests, progress).toBeGreaterThanOrEqual(2_000);
    expect(fig.fuzz_mismatches, progress).toBe(0);
    expect(fig.fuzz_transport_errors, progress).toBe(0);
    // figures are measurements: an execution-client fault the run could not see surfaced fails it (issue 26)
    expect(fig.faults_unsurfaced ?? 0, progress).toBe(0);
    expect(fig.fault_surfaced_s_max, progress).toBeGreaterThan(0);
    expect(fig.kill9_points_planned, progress).toBe(3);
    expect(fig.safedb_damage_surfaced, progress).toBe(fig.safedb_faults);
    expect(fig.health_reachable_under_exhaustion, progress).toBe(1);
    expect(fig.orphans_after_parent_kill, progress).toBe(0);
    // a full disk under the verifier's data dir (a tmpfs the run mounts; skipped, and said so, where it cannot)
    if (!progress.includes("disk full: SKIPPED") || process.env.CI === "true") {
      expect(fig.disk_full_records_lost, progress).toBe(0);
      expect(fig.disk_full_recovered, progress).toBe(1);
    }
  }, 900_000);
});
