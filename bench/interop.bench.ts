/**
 * Benchmark `interop`: catch-up verification throughput of the interop activity — every chain already has
 * `BLOCKS` local-safe blocks (1 s block time), each with 10 initiating logs and 10 executing messages reading the
 * previous block of the next chain; the activity verifies and commits them one timestamp at a time over real
 * LevelDB in a temp dir, laid out as in the supernode (the logs stores are sublevels of the verified store's LevelDB,
 * one batch per round); the chains and L1 are in memory and precomputed, so this measures the activity.
 *
 * Figures, for 2 and 8 chains: wall-clock `timestamps_per_s_N`, process CPU time (main thread and LevelDB's
 * threads) per verified timestamp `cpu_us_per_timestamp_N`, and the same CPU figure for the control — the same
 * chains without logs, measured in the same run — with `messages_cpu_ratio_8` = message CPU / control CPU. The
 * goal (≥ 200 timestamps/s with 8 chains) is checked on CPU time, which a loaded machine does not distort:
 * `cpu_timestamps_per_s_8` = 1e6 / cpu_us_per_timestamp_8 is the rate one idle core sustains. Each figure line on
 * standard error carries the load average at the time.
 *
 * `cpu_us_per_timestamp_8_separate_stores` is the 8-chain run with each chain's logs in a LevelDB of its own (a
 * write per chain and round instead of one batch), for comparison.
 *
 * `INTEROP_BENCH_PROFILE=<dir>` writes a V8 CPU profile of the timed 8-chain rounds only (open it in Chrome
 * DevTools or speedscope).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { InteropActivity, LogsStore, VerifiedStore } from "supernode/node";
import { silentLogger, systemClock } from "supernode/core";
import { makeDependencySet } from "supernode/protocol";
import { WorldChain, WorldL1 } from "../test/unit/activities/interop-world.js";
import { type Bench, note } from "./harness.js";

const BLOCKS = Number(process.env.INTEROP_BENCH_BLOCKS ?? 600);
const PROFILE = process.env.INTEROP_BENCH_PROFILE;
const MESSAGES = 10;
const GENESIS = 1_000;
const GOAL_PER_S = 200;

interface Run {
  readonly perS: number;
  readonly cpuUs: number;
  readonly n: number;
  readonly load: number;
}

async function run(chainsN: number, withMessages: boolean, profile = false, separate = false): Promise<Run> {
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
  for (const c of chains) {
    const id = c.chainId.toString(10);
    logs.set(id, separate ? await LogsStore.open(join(dir, `logs-${id}`)) : await verified.logsStore(id));
  }
  const activity = new InteropActivity(
    { activationTimestamp: GENESIS, dependencySet: makeDependencySet(chains.map((c) => c.chainId)) },
    { chains, logs, verified, l1, clock: systemClock, logger: silentLogger },
  );
  const session = profile ? new Session() : undefined;
  try {
    if (session !== undefined) {
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    while (await activity.round()) n++;
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    if (session !== undefined && PROFILE !== undefined) {
      const { profile: p } = await session.post("Profiler.stop");
      mkdirSync(PROFILE, { recursive: true });
      const file = join(PROFILE, `interop-${chainsN}-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(p));
      note(`profile: ${file}`);
    }
    if (n !== BLOCKS + 1) throw new Error(`verified ${n} timestamps, expected ${BLOCKS + 1}`);
    if (chains.some((c) => c.invalidated.length > 0)) throw new Error("a valid message was rejected");
    return { perS: n / wall, cpuUs: (cpu.user + cpu.system) / n, n, load: loadavg()[0] as number };
  } finally {
    session?.disconnect();
    await verified.close();
    for (const s of logs.values()) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const describe = (label: string, r: Run) =>
  note(
    `${label}: ${r.n} timestamps, ${r.perS.toFixed(0)}/s wall, ${r.cpuUs.toFixed(0)} µs CPU each (load ${r.load.toFixed(1)})`,
  );

const bench: Bench = {
  name: "interop",
  async run(report) {
    await run(2, true); // warm-up (JIT, LevelDB)
    const two = await run(2, true);
    describe("2 chains, 10 messages per block", two);
    report({ figure: "timestamps_per_s_2", value: Math.round(two.perS), unit: "timestamps/s" });
    report({ figure: "cpu_us_per_timestamp_2", value: Math.round(two.cpuUs), unit: "µs" });
    const empty = await run(8, false);
    describe("8 chains, no logs (control)", empty);
    const eight = await run(8, true, PROFILE !== undefined);
    describe("8 chains, 10 messages per block", eight);
    report({ figure: "timestamps_per_s_8", value: Math.round(eight.perS), unit: "timestamps/s" });
    report({ figure: "cpu_us_per_timestamp_8", value: Math.round(eight.cpuUs), unit: "µs" });
    report({ figure: "timestamps_per_s_8_empty", value: Math.round(empty.perS), unit: "timestamps/s" });
    report({ figure: "cpu_us_per_timestamp_8_empty", value: Math.round(empty.cpuUs), unit: "µs" });
    report({ figure: "messages_cpu_ratio_8", value: Number((eight.cpuUs / empty.cpuUs).toFixed(2)), unit: "x" });
    const separate = await run(8, true, false, true);
    describe("8 chains, 10 messages per block, a LevelDB per chain's logs (the earlier layout)", separate);
    report({ figure: "cpu_us_per_timestamp_8_separate_stores", value: Math.round(separate.cpuUs), unit: "µs" });
    const cpuRate = 1e6 / eight.cpuUs;
    report({ figure: "cpu_timestamps_per_s_8", value: Math.round(cpuRate), unit: "timestamps/s" });
    note(
      `goal ≥ ${GOAL_PER_S} timestamps/s with 8 chains (CPU-based: ${cpuRate.toFixed(0)}/s per core): ${cpuRate >= GOAL_PER_S ? "goal met" : "goal NOT met"}`,
    );
  },
};
export default bench;
