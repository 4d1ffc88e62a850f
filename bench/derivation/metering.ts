/**
 * What the derivation bench measures with: CPU time of this process (every thread) and per thread, of another
 * process, the main thread's sleeps, the Engine API calls made, window bounds taken in the SafeDB callback, and an
 * optional V8 CPU profile per timed phase. Linux /proc where it is read; elsewhere the per-thread and per-process
 * figures are empty.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { GCProfiler, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** CPU seconds of this process, every thread. */
export const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** utime + stime of a Linux process from /proc (clock ticks at the usual 100 Hz); undefined elsewhere. */
export function procCpuSec(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Bytes a Linux process has read and written through its read- and write-like system calls (sockets included). */
export function procIoBytes(pid: number | undefined): { read: number; written: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    const read = /rchar:\s*(\d+)/.exec(io);
    const written = /wchar:\s*(\d+)/.exec(io);
    return read === null || written === null ? undefined : { read: Number(read[1]), written: Number(written[1]) };
  } catch {
    return undefined;
  }
}

/** CPU seconds per thread of this process by thread name (Linux /proc; empty elsewhere). */
export function threadCpuSec(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync("/proc/self/task")) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const key = tid === String(process.pid) ? "main" : name;
      out.set(key, (out.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
    }
  } catch {
    // not Linux
  }
  return out;
}

/** Voluntary context switches of this process's main thread (each a sleep of the event loop, then a wake-up). */
export function mainThreadSleeps(): number {
  try {
    const m = /voluntary_ctxt_switches:\s*(\d+)/.exec(readFileSync(`/proc/self/task/${process.pid}/status`, "utf8"));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

/** JSON-RPC calls to the EL by method during a timed phase (a batch counts each of its calls). */
export const calls = new Map<string, number>();

/** What the process had used when the safe head first reached a block: the bounds of a CPU window. */
export interface Mark {
  readonly cpu: number;
  readonly threads: Map<string, number>;
  readonly calls: Map<string, number>;
}

/**
 * A window bound. Reading the threads' CPU from /proc costs the bench a fraction of a millisecond: a window's start
 * reads this process's CPU time last and its end reads it first, so that cost stays outside every window.
 */
export const mark = (end: boolean): Mark => {
  if (end) return { cpu: cpuNow(), threads: threadCpuSec(), calls: new Map(calls) };
  const threads = threadCpuSec();
  const c = new Map(calls);
  return { threads, calls: c, cpu: cpuNow() };
};

/** `a − b` per key, positive differences only. */
export const diff = (a: Map<string, number>, b: Map<string, number>): Map<string, number> =>
  new Map([...a].map(([k, v]) => [k, v - (b.get(k) ?? 0)] as const).filter(([, v]) => v > 0));

/** Adds `b` into `a`. */
export const addInto = (a: Map<string, number>, b: Map<string, number>): void => {
  for (const [k, v] of b) a.set(k, (a.get(k) ?? 0) + v);
};

/** Each value of `m` × `scale` / `blocks`, rounded, with `unit`. */
export const perBlock = (m: Map<string, number>, blocks: number, scale: number, unit: string): string =>
  [...m].map(([k, v]) => `${k} ${Math.round((v * scale) / blocks)}${unit}`).join(", ");

let profiles = 0;

/**
 * DERIVATION_BENCH_PROFILE=<dir>: a V8 CPU profile of this process for each timed phase alone (without the setup),
 * written to <dir>/derivation-<k>.cpuprofile.
 */
export async function startProfile(): Promise<(() => Promise<void>) | undefined> {
  const dir = process.env.DERIVATION_BENCH_PROFILE;
  if (dir === undefined || dir === "") return undefined;
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  // 100 µs between samples (V8's default is 1 ms): a phase of a few hundred ms needs the finer grain.
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `derivation-${profiles++}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * DERIVATION_BENCH_HEAP_PROFILE=<file>: V8's sampling heap profiler over the measured runs, keeping only samples of
 * objects that survived the scavenges (`includeObjectsCollectedByMinorGC: false`; those a mark-compact later
 * collected are kept): where what is promoted is allocated (docs/performance.md). Read it from a window without a
 * mark-compact (no `*` run): a mark-compact also frees the young generation's garbage of that moment, and those
 * samples stay in the profile as if promoted (docs/performance.md). A scavenge is forced just before the profile stops (the
 * inspector's stop runs a full GC, which would keep the garbage allocated since the last scavenge in it too).
 * DERIVATION_BENCH_ALLOC_PROFILE=<file> instead: the same profiler keeping every allocation (where the bytes that
 * fill the young generation, and so set how often it is scavenged, are allocated).
 */
export async function startSurvivorProfile(): Promise<(() => Promise<void>) | undefined> {
  const all = process.env.DERIVATION_BENCH_ALLOC_PROFILE;
  const file = all !== undefined && all !== "" ? all : process.env.DERIVATION_BENCH_HEAP_PROFILE;
  if (file === undefined || file === "") return undefined;
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    // DERIVATION_BENCH_ALLOC_PROFILE: every allocation (what paces the scavenges), not only the survivors.
    includeObjectsCollectedByMinorGC: file === all,
  });
  // A scavenge right before the profile stops: objects allocated since the last one and already dead would otherwise
  // stay in it (up to one scavenge interval of plain allocation, ~14 MB: as much as ~20 runs promote). Profiling
  // mode only: --expose-gc is set for this process here, never in a figure run.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (o: { type: "minor" | "major"; execution: "sync" }) => void;
  return async () => {
    gc({ type: "minor", execution: "sync" });
    const { profile } = await session.post("HeapProfiler.stopSampling");
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** Garbage collections of this process by kind (PerformanceObserver 'gc' entries) and their pause time. */
export interface GcCounts {
  minor: number;
  major: number;
  /** Milliseconds of GC pause (every kind). */
  ms: number;
  /**
   * Bytes that scavenges moved into the old generation (old space's used size after − before each scavenge, from
   * `v8.GCProfiler`): what survived two scavenges, the garbage a later mark-compact has to find. Independent of the
   * machine's load.
   */
  promoted: number;
}

interface SpaceStat {
  readonly spaceName: string;
  readonly spaceUsedSize: number;
}
interface GcStat {
  readonly gcType: string;
  readonly beforeGC: { readonly heapSpaceStatistics: readonly SpaceStat[] };
  readonly afterGC: { readonly heapSpaceStatistics: readonly SpaceStat[] };
}

const oldUsed = (spaces: readonly SpaceStat[]) => spaces.find((sp) => sp.spaceName === "old_space")?.spaceUsedSize ?? 0;

/**
 * Counts every GC of this process from now on (entries arrive shortly after each GC); `majors()` is the count of
 * mark-compacts so far, `stop()` ends the count and returns it.
 */
export function gcMeter(): { majors(): number; stop(): GcCounts } {
  const counts: GcCounts = { minor: 0, major: 0, ms: 0, promoted: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) counts.major++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) counts.minor++;
      counts.ms += e.duration;
    }
  });
  obs.observe({ entryTypes: ["gc"] });
  const profiler = new GCProfiler();
  profiler.start();
  return {
    majors: () => counts.major,
    stop: () => {
      obs.disconnect();
      const data = profiler.stop() as { statistics?: readonly GcStat[] } | undefined;
      const stats = data?.statistics ?? [];
      if (process.env.DERIVATION_BENCH_GC_DUMP)
        writeFileSync(process.env.DERIVATION_BENCH_GC_DUMP, JSON.stringify(data));
      for (const g of stats) {
        if (g.gcType !== "Scavenge") continue;
        counts.promoted += Math.max(
          0,
          oldUsed(g.afterGC.heapSpaceStatistics) - oldUsed(g.beforeGC.heapSpaceStatistics),
        );
      }
      return { ...counts };
    },
  };
}
