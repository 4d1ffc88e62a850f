/**
 * Benchmark `interop`: catch-up verification throughput of the interop activity — every chain already has
 * `BLOCKS` local-safe blocks (1 s block time), each with 10 initiating logs and 10 executing messages reading the
 * previous block of the next chain; the activity verifies and commits them one timestamp at a time over real
 * LevelDB stores in a temp dir (the chains and L1 are in memory, so this measures the activity itself).
 *
 * Figures: `timestamps_per_s_2` / `timestamps_per_s_8` (wall clock), `cpu_us_per_timestamp_8` (process CPU time
 * per verified timestamp), and the control `timestamps_per_s_8_empty` (the same chains without logs) with
 * `messages_cost_ratio_8` = empty rate / message rate. Goal: ≥ 200 timestamps/s with 8 chains.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InteropActivity } from "../src/activities/interop/activity.js";
import { silentLogger } from "../src/core/logger.js";
import { systemClock } from "../src/core/time/clock.js";
import { LogsStore } from "../src/io/db/interop/logs-store.js";
import { VerifiedStore } from "../src/io/db/interop/verified-store.js";
import { makeDependencySet } from "../src/protocol/interop/dependency-set.js";
import { WorldChain, WorldL1 } from "../test/unit/activities/interop-world.js";
import { type Bench, note } from "./harness.js";

const BLOCKS = Number(process.env.INTEROP_BENCH_BLOCKS ?? 600);
const MESSAGES = 10;
const GENESIS = 1_000;

async function run(chainsN: number, withMessages: boolean): Promise<{ perS: number; cpuUs: number; n: number }> {
  const l1 = new WorldL1();
  const chains = Array.from({ length: chainsN }, (_, i) => new WorldChain(BigInt(901 + i), 1, GENESIS, l1));
  for (let n = 1; n <= BLOCKS; n++) {
    chains.forEach((c, i) => {
      const logs = [];
      if (withMessages) {
        for (let k = 0; k < MESSAGES; k++) logs.push(WorldChain.initiating(`${c.chainId}-${n}-${k}`));
        const src = chains[(i + 1) % chainsN] as WorldChain;
        if (n > 1) for (let k = 0; k < MESSAGES; k++) logs.push(src.executing(n - 1, k));
      }
      c.push(logs);
    });
  }
  for (const c of chains) c.localSafe = BLOCKS;
  const dir = mkdtempSync(join(tmpdir(), "interop-bench-"));
  const verified = await VerifiedStore.open(join(dir, "verified"));
  const logs = new Map<string, LogsStore>();
  for (const c of chains) logs.set(c.chainId.toString(10), await LogsStore.open(join(dir, `logs-${c.chainId}`)));
  const activity = new InteropActivity(
    { activationTimestamp: GENESIS, dependencySet: makeDependencySet(chains.map((c) => c.chainId)) },
    { chains, logs, verified, l1, clock: systemClock, logger: silentLogger },
  );
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    while (await activity.round()) n++;
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    if (n !== BLOCKS + 1) throw new Error(`verified ${n} timestamps, expected ${BLOCKS + 1}`);
    if (chains.some((c) => c.invalidated.length > 0)) throw new Error("a valid message was rejected");
    return { perS: n / wall, cpuUs: (cpu.user + cpu.system) / n, n };
  } finally {
    await verified.close();
    for (const s of logs.values()) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Bench = {
  name: "interop",
  async run(report) {
    await run(2, true); // warm-up (JIT, LevelDB)
    const two = await run(2, true);
    note(`2 chains: ${two.n} timestamps, ${two.perS.toFixed(0)}/s`);
    report({ figure: "timestamps_per_s_2", value: Math.round(two.perS), unit: "timestamps/s" });
    const eight = await run(8, true);
    note(`8 chains: ${eight.n} timestamps, ${eight.perS.toFixed(0)}/s, ${eight.cpuUs.toFixed(0)} µs CPU each`);
    report({ figure: "timestamps_per_s_8", value: Math.round(eight.perS), unit: "timestamps/s" });
    report({ figure: "cpu_us_per_timestamp_8", value: Math.round(eight.cpuUs), unit: "µs" });
    const empty = await run(8, false);
    report({ figure: "timestamps_per_s_8_empty", value: Math.round(empty.perS), unit: "timestamps/s" });
    report({ figure: "messages_cost_ratio_8", value: Number((empty.perS / eight.perS).toFixed(2)), unit: "x" });
  },
};
export default bench;
