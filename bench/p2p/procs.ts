/**
 * Plumbing shared by the `p2p` benchmark's processes: the `READY <json>` hand-shake on standard output, stopping a
 * child by PID, JSON that keeps bigints, the one clock every process times blocks with, and the head reports and
 * loop-delay answers the execution-client host processes send over IPC.
 */
import type { ChildProcess } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";

/**
 * Milliseconds on the machine's monotonic clock (`process.hrtime`, CLOCK_MONOTONIC on Linux): the same clock in
 * every process of the machine, with sub-microsecond resolution, so a time taken in one process can be subtracted
 * from a time taken in another.
 */
export function machineMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** A head change of one execution client, as an EL host process reports it (`t`: {@link machineMs}). */
export interface HeadReport {
  readonly kind: "head";
  readonly chain: number;
  readonly number: number;
  readonly hash: string;
  readonly t: number;
}

/** Event-loop delay of a process over the last window (ms beyond the sampling interval). */
export interface LoopReport {
  readonly kind: "loop";
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** JSON with bigints as `{"$n": "<decimal>"}`. */
export function toJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? { $n: x.toString(10) } : x));
}

export function fromJson<T>(s: string): T {
  return JSON.parse(s, (_k, x) =>
    x !== null && typeof x === "object" && typeof x.$n === "string" && Object.keys(x).length === 1 ? BigInt(x.$n) : x,
  ) as T;
}

/** Resolves with the payload of the first `READY <payload>` line of the child's standard output. */
export function ready(child: ChildProcess, what: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} not ready after ${timeoutMs} ms`)), timeoutMs);
    const rl = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    rl.on("line", (line) => {
      if (!line.startsWith("READY ")) {
        process.stderr.write(`${what}: ${line}\n`);
        return;
      }
      clearTimeout(timer);
      resolve(line.slice(6));
    });
    child.once("exit", (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code ?? sig}) before it was ready`));
    });
  });
}

/** SIGTERM by PID, SIGKILL after `graceMs`; resolves when the child has exited. */
export async function stopChild(child: ChildProcess | undefined, graceMs = 30_000): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(t);
}

/**
 * In an EL host process: answers "loop" messages with this process's event-loop delay since the last one (10-ms
 * sampling), and ends the process through `stop` on SIGTERM, SIGINT or when the parent goes away.
 */
export function serveHostProcess(stop: () => Promise<void>): void {
  const RES = 10;
  const h = monitorEventLoopDelay({ resolution: RES });
  h.enable();
  const beyond = (ns: number) => Math.max(0, ns / 1e6 - RES);
  process.on("message", (m) => {
    if (m !== "loop") return;
    const r: LoopReport = {
      kind: "loop",
      p50: beyond(h.percentile(50)),
      p99: beyond(h.percentile(99)),
      max: beyond(h.max),
    };
    h.reset();
    process.send?.(r);
  });
  let stopping = false;
  const end = () => {
    if (stopping) return;
    stopping = true;
    void stop()
      .catch(() => {})
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", end);
  process.on("SIGINT", end);
  process.on("disconnect", end);
}
