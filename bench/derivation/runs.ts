/**
 * The derivation bench's measured runs of one phase and their figures: warm-up runs, then Σ CPU / Σ blocks over the
 * measured runs' steady windows, GC per 1,000 blocks, bytes promoted, the build phase's floor control (floor.ts).
 */
import type { Bench } from "../harness.js";
import { note } from "../harness.js";
import { type BlockExchange, type FloorControl, startFloorControl } from "./floor.js";
import { addInto, gcMeter, perBlock, startSurvivorProfile } from "./metering.js";

/** One timed phase: its wall time, and CPU of this process over the whole phase and over the steady window. */
export interface Phase {
  readonly sec: number;
  /** CPU seconds of this process, the whole phase (the restart's walk back from the unsafe head included). */
  readonly wholeSec: number;
  /** CPU seconds from the safe head's first reaching block n/3 to its reaching n, and that window's blocks. */
  readonly steadySec: number;
  readonly steadyBlocks: number;
  /** CPU seconds per thread (main, V8's background threads by name) and engine calls in the steady window. */
  readonly steadyThreads: Map<string, number>;
  readonly steadyCalls: Map<string, number>;
  /** The node's exchange with its EL per block over the whole phase (EL in its own process on Linux only). */
  readonly exchange: BlockExchange | undefined;
  /** One line for stderr. */
  readonly line: string;
}

export type Report = Parameters<Bench["run"]>[0];

/**
 * A phase run `warmup` + `repeat` times in this process, a fresh node each time (see the header): the figure is
 * Σ CPU / Σ blocks over the measured runs' steady windows; the warm-up runs and the first (cold) run are printed.
 */
export async function measuredRuns(
  label: "build" | "consolidate",
  /** Blocks each run derives. */
  n: number,
  warmup: number,
  repeat: number,
  once: () => Promise<Phase>,
  report: Report,
  /** The goal in µs per block, and an optional stretch goal printed beside it. */
  goal: { readonly goal: number; readonly stretch?: number },
) {
  const usOf = (r: Phase) => (r.steadySec * 1e6) / r.steadyBlocks;
  const cold: Phase[] = [];
  for (let k = 0; k < warmup; k++) {
    const r = await once();
    if (k === 0) note(`${label}, first run (cold JIT): ${r.line}`);
    cold.push(r);
  }
  if (cold.length > 0) note(`${label} warm-up runs, µs per block: ${cold.map((r) => Math.round(usOf(r))).join(" ")}`);
  const runs: Phase[] = [];
  const survivors = await startSurvivorProfile();
  const gc = gcMeter();
  /** Runs during which a mark-compact was reported (its entry may arrive in the next run: an approximation). */
  const withMajor = new Set<Phase>();
  // The build phase's floor control (bench/derivation/floor.ts), run after each measured run for as many blocks.
  let floor: FloorControl | undefined;
  const floorSec: number[] = [];
  try {
    for (let k = 0; k < repeat; k++) {
      const majors = gc.majors();
      const r = await once();
      if (k === repeat - 1) note(`${label}, last run: ${r.line}`);
      runs.push(r);
      if (gc.majors() > majors) withMajor.add(r);
      if (label === "build" && r.exchange !== undefined) {
        floor ??= await startFloorControl(r.exchange);
        floorSec.push(await floor.run(r.steadyBlocks));
      }
    }
  } finally {
    await floor?.stop();
  }
  // PerformanceObserver entries are delivered after the GC: let the last ones arrive.
  await new Promise((r) => setImmediate(r));
  const g = gc.stop();
  await survivors?.();
  const sum = (f: (r: Phase) => number) => runs.reduce((a, r) => a + f(r), 0);
  const blocks = sum((r) => r.steadyBlocks);
  const cpu = sum((r) => r.steadySec);
  const threads = new Map<string, number>();
  const engineCalls = new Map<string, number>();
  for (const r of runs) {
    addInto(threads, r.steadyThreads);
    addInto(engineCalls, r.steadyCalls);
  }
  const each = runs.map(usOf).sort((a, b) => a - b);
  const q = (p: number) => Math.round(each[Math.round(p * (each.length - 1))]!);
  const order = runs.map((r) => `${Math.round(usOf(r))}${withMajor.has(r) ? "*" : ""}`).join(" ");
  note(
    `${label}, ${repeat} measured runs (${blocks} blocks, ${cpu.toFixed(2)} s CPU): µs per block by run ${order} (* a mark-compact); min ${q(0)} / median ` +
      `${q(0.5)} / max ${q(1)} µs per block; threads ${perBlock(threads, blocks, 1e6, " µs")}; engine calls per ` +
      `block ${perBlock(engineCalls, blocks, 1, "")}`,
  );
  // GC over the measured runs' whole phases (restart walk included), per 1,000 blocks.
  const k = 1000 / (n * repeat);
  note(
    `${label} GC per 1,000 blocks (measured runs, whole phases): mark-compact ${(g.major * k).toFixed(2)}, ` +
      `scavenge ${(g.minor * k).toFixed(1)}, pause ${(g.ms * k).toFixed(1)} ms (${g.major} mark-compacts in ${repeat} runs); ` +
      `promoted by scavenges ${(g.promoted / (n * repeat) / 1000).toFixed(2)} kB per block`,
  );
  report({ figure: `${label}_major_gc_per_1000_blocks`, value: Number((g.major * k).toFixed(2)), unit: "GCs" });
  report({ figure: `${label}_promoted_bytes_per_block`, value: Math.round(g.promoted / (n * repeat)), unit: "B" });
  const noun = label === "build" ? "built" : "consolidated";
  report({ figure: `${label}_blocks_per_s`, value: Math.round((n * repeat) / sum((r) => r.sec)), unit: "blocks/s" });
  reportCpu(report, `cpu_us_per_${noun}_block`, (cpu * 1e6) / blocks, goal);
  if (floorSec.length === runs.length) reportFloor(report, runs, floorSec, (cpu * 1e6) / blocks);
  report({
    figure: `cpu_us_per_${noun}_block_whole`,
    value: Math.round((sum((r) => r.wholeSec) * 1e6) / (n * repeat)),
    unit: "µs",
  });
  const first = cold[0] ?? runs[0]!;
  report({ figure: `cpu_us_per_${noun}_block_cold`, value: Math.round(usOf(first)), unit: "µs" });
}

/** The floor control's figures next to the built blocks' (bench/derivation/floor.ts). */
function reportFloor(report: Report, runs: readonly Phase[], floorSec: readonly number[], builtUs: number) {
  const x = runs[0]!.exchange!;
  const trips = runs.reduce((a, r) => a + r.steadyBlocks, 0);
  const floorUs = (floorSec.reduce((a, b) => a + b, 0) * 1e6) / trips;
  const pairs = runs.map(
    (r, i) =>
      `${Math.round((r.steadySec * 1e6) / r.steadyBlocks)}/${Math.round((floorSec[i]! * 1e6) / r.steadyBlocks)}`,
  );
  note(
    `build floor control: one round trip of ${(x.requestBytes / 1000).toFixed(1)} kB out and ${(x.responseBytes / 1000).toFixed(1)} kB back ` +
      `to a peer busy ${Math.round(x.elBusyUs)} µs (the EL's CPU per block), no node logic: ${Math.round(floorUs)} µs per block; ` +
      `built/floor by run ${pairs.join(" ")} µs; the node's own work ${Math.round(builtUs - floorUs)} µs per built block`,
  );
  report({ figure: "cpu_us_per_block_floor", value: Math.round(floorUs), unit: "µs" });
  report({ figure: "cpu_us_per_built_block_above_floor", value: Math.round(builtUs - floorUs), unit: "µs" });
}

export const runsFromEnv = (name: string, fallback: number, min: number) =>
  Math.max(min, Number(process.env[name] ?? fallback));

function reportCpu(report: Report, figure: string, us: number, g: { goal: number; stretch?: number }): void {
  const met = (limit: number) => (us <= limit ? "met" : "NOT met");
  const stretch = g.stretch === undefined ? "" : `; stretch goal ≤ ${g.stretch} µs: ${met(g.stretch)}`;
  note(`${figure}: ${Math.round(us)} µs (goal ≤ ${g.goal} µs: ${met(g.goal)}${stretch})`);
  report({ figure, value: Math.round(us), unit: "µs" });
}
