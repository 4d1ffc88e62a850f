/**
 * The interop activity's start: the cold start rule (wait for every chain's SafeDB, start at max(activation, the
 * latest first-safe timestamp)), the warm restart from the verified store, the log backfill over real LevelDB stores,
 * and the visible halt on unrecoverable SafeDB history.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InteropActivity } from "../../../src/activities/interop/activity.js";
import type { InteropMetrics, InteropState } from "../../../src/activities/interop/ports.js";
import type { Logger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import { LogsStore } from "../../../src/io/db/interop/logs-store.js";
import { VerifiedStore } from "../../../src/io/db/interop/verified-store.js";
import { makeDependencySet } from "../../../src/protocol/interop/dependency-set.js";
import { WorldChain, WorldL1 } from "./interop-world.js";

const dirs: string[] = [];
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const GENESIS = 1000;

interface Line {
  level: string;
  msg: string;
  obj: Record<string, unknown>;
}

function recorder(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (a: object | string, b?: string): void => {
      if (typeof a === "string") lines.push({ level, msg: a, obj: {} });
      else lines.push({ level, msg: b ?? "", obj: a as Record<string, unknown> });
    };
  const l: Logger = {
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => l,
  };
  return l;
}

function metrics() {
  const seen = { states: [] as InteropState[], progress: new Map<string, number[]>() };
  const m: InteropMetrics = {
    verified: () => {},
    decision: () => {},
    invalidation: () => {},
    denied: () => {},
    rewind: () => {},
    verificationSeconds: () => {},
    state: (s) => {
      seen.states.push(s);
    },
    backfillProgress: (id, f) => {
      seen.progress.set(id, [...(seen.progress.get(id) ?? []), f]);
    },
  };
  return { seen, m };
}

/** Two chains of `height` blocks (1 s), all local-safe; stores in a temp dir (reopened by `open`). */
function world(height: number) {
  const l1 = new WorldL1();
  const a = new WorldChain(901n, 1, GENESIS, l1);
  const b = new WorldChain(902n, 1, GENESIS, l1);
  a.advance(height);
  b.advance(height);
  const dir = mkdtempSync(join(tmpdir(), "interop-cold-"));
  dirs.push(dir);
  const open = async (opts: { activation?: number; backfillDepthS?: number } = {}) => {
    const verified = await VerifiedStore.open(join(dir, "verified"));
    const logs = new Map([
      ["901", await LogsStore.open(join(dir, "logs-901"))],
      ["902", await LogsStore.open(join(dir, "logs-902"))],
    ]);
    opened.push(verified, ...logs.values());
    const lines: Line[] = [];
    const { seen, m } = metrics();
    const activity = new InteropActivity(
      {
        activationTimestamp: opts.activation ?? GENESIS,
        dependencySet: makeDependencySet([901n, 902n]),
        backfillDepthS: opts.backfillDepthS ?? 0,
        idleMs: 5,
        errorMs: 5,
      },
      { chains: [a, b], logs, verified, l1, clock: systemClock, logger: recorder(lines), metrics: m },
    );
    const drain = async () => {
      let n = 0;
      while (await activity.round()) n++;
      return n;
    };
    const close = async () => {
      await verified.close();
      for (const s of logs.values()) await s.close();
    };
    return { activity, verified, logs, lines, seen, drain, close };
  };
  return { l1, a, b, open };
}

/** Runs the activity's loop until `done` holds, then stops it (the loop is awaited). */
async function runUntil(activity: InteropActivity, done: () => boolean): Promise<void> {
  const ac = new AbortController();
  const loop = activity.run(ac.signal);
  try {
    while (!done()) await new Promise((r) => setTimeout(r, 5));
  } finally {
    ac.abort();
    await loop;
  }
}

describe("interop cold start", () => {
  it("waits until every chain's SafeDB has an entry, then starts at the latest first-safe timestamp", async () => {
    const w = world(12);
    w.a.firstSafe = undefined;
    w.b.firstSafe = 4;
    const s = await w.open();
    expect(await s.activity.prepare()).toBe(false);
    expect(s.activity.state).toBe("awaiting_safedb");
    expect(s.seen.states.at(-1)).toBe("awaiting_safedb");
    expect(s.activity.status().state).toBe("awaiting_safedb");
    expect(await s.activity.prepare()).toBe(false); // still waiting: no second log line
    const waiting = s.lines.filter((l) => l.msg.includes("waiting for a SafeDB entry"));
    expect(waiting.map((l) => l.obj.chains)).toEqual([["901"]]);

    w.a.firstSafe = 7; // chain 901's SafeDB now starts at block 7 (timestamp 1007), later than 902's
    expect(await s.activity.prepare()).toBe(true);
    expect(s.lines.find((l) => l.msg === "interop cold start")?.obj.start).toBe(GENESIS + 7);
    expect(await s.drain()).toBe(6); // 1007..1012
    expect(s.verified.firstTimestamp()).toBe(GENESIS + 7);
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 12);
  });

  it("starts at the activation when it is later than every first-safe timestamp", async () => {
    const w = world(10);
    w.a.firstSafe = 2;
    w.b.firstSafe = 3;
    const s = await w.open({ activation: GENESIS + 6 });
    expect(await s.activity.prepare()).toBe(true);
    await s.drain();
    expect(s.verified.firstTimestamp()).toBe(GENESIS + 6);
  });

  it("resumes a warm restart from the verified store without waiting for the SafeDB", async () => {
    const w = world(8);
    const s1 = await w.open();
    expect(await s1.activity.prepare()).toBe(true);
    expect(await s1.drain()).toBe(9); // 1000..1008
    await s1.close();
    w.a.advance(3);
    w.b.advance(3);
    w.a.firstSafe = undefined; // the chain has not recorded a safe head since its restart
    const s2 = await w.open();
    expect(await s2.activity.prepare()).toBe(true);
    expect(s2.lines.some((l) => l.msg.includes("resuming from the verified store"))).toBe(true);
    expect(await s2.drain()).toBe(3);
    expect(s2.verified.firstTimestamp()).toBe(GENESIS);
    expect(s2.verified.last()?.timestamp).toBe(GENESIS + 11);
  });

  it("halts visibly on unrecoverable SafeDB history, and goes on once the history is back", async () => {
    const w = world(6);
    const s1 = await w.open();
    await s1.activity.prepare();
    expect(await s1.drain()).toBe(7); // 1000..1006
    await s1.close();
    w.a.advance(4);
    w.b.advance(4);
    w.b.firstSafe = 9; // the SafeDB was lost: it now begins at 1009, but 1007 is the next timestamp to verify
    const s2 = await w.open();
    let st = s2.activity.status();
    await runUntil(s2.activity, () => {
      st = s2.activity.status(); // what supernode_syncStatus.interop shows
      return st.state === "halted";
    });
    expect(st.state).toBe("halted");
    expect(st.error).toContain("chain 902: its SafeDB begins at timestamp 1009");
    expect(s2.seen.states).toContain("halted");
    expect(s2.lines.some((l) => l.level === "error" && String(l.obj.err).includes("SafeDB begins"))).toBe(true);
    expect(s2.verified.last()?.timestamp).toBe(GENESIS + 6); // nothing verified past the gap

    w.b.firstSafe = 0; // restored
    await runUntil(s2.activity, () => s2.verified.last()?.timestamp === GENESIS + 10);
    expect(s2.activity.status().error).toBeNull();
  });
});

describe("interop log backfill", () => {
  /** Chain 901 initiates at block 3; chain 902's block 15 executes that log (12 s later), block 16 a forged one. */
  function withOldMessage(forged = false) {
    const w = world(0);
    for (let n = 1; n <= 20; n++) {
      w.a.push(n === 3 ? [WorldChain.initiating("old")] : []);
      w.b.push(n === 15 ? [w.a.executing(3, 0)] : n === 16 && forged ? [w.a.executing(3, 0, { logIndex: 4 })] : []);
    }
    w.a.localSafe = w.b.localSafe = 20;
    w.a.firstSafe = w.b.firstSafe = 12; // a fresh, EL-synced node: safe heads known from block 12 only
    return w;
  }

  it("lets a fresh node verify a message whose initiating log is older than its start", async () => {
    const w = withOldMessage();
    const s = await w.open({ backfillDepthS: 10 });
    expect(await s.activity.prepare()).toBe(true);
    expect(s.seen.states).toContain("backfilling");
    // Window [max(activation, 1012 − 10), 1012) = blocks 2..11 of each chain.
    for (const id of ["901", "902"]) {
      expect(s.logs.get(id)?.first()?.number).toBe(2);
      expect(s.logs.get(id)?.latest()?.number).toBe(11);
      expect(s.seen.progress.get(id)?.at(-1)).toBe(1);
    }
    expect(s.lines.some((l) => l.msg === "interop log backfill complete")).toBe(true);
    const reads = w.a.blockLogsAtCalls;
    expect(await s.drain()).toBe(9); // 1012..1020
    expect(w.b.invalidated).toEqual([]);
    expect(w.a.blockLogsAtCalls).toBe(reads); // found in the backfilled logs
    expect(s.verified.firstTimestamp()).toBe(GENESIS + 12);
  });

  it("without (or with too short) a backfill reads the old block from the EL instead of rejecting", async () => {
    for (const depth of [0, 5]) {
      const w = withOldMessage(true);
      const s = await w.open({ backfillDepthS: depth });
      expect(await s.activity.prepare()).toBe(true);
      const reads = w.a.blockLogsAtCalls;
      await s.drain();
      // The valid message at 15 holds; the forged one (no log 4 in block 3) is still rejected.
      expect(w.b.invalidated.map((i) => i.head.number)).toEqual([16]);
      expect(w.a.blockLogsAtCalls - reads).toBe(1); // block 3, read once (cached for the second reference)
      await s.close();
    }
  });

  it("waits (temporary error) when the EL cannot serve such an old block", async () => {
    const w = withOldMessage();
    w.a.unavailable.add(3);
    const s = await w.open();
    await s.activity.prepare();
    await expect(s.drain()).rejects.toMatchObject({ code: "INTEROP_OLD_BLOCK" });
    expect(w.b.invalidated).toEqual([]);
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 14);
    w.a.unavailable.clear();
    await s.drain();
    expect(w.b.invalidated).toEqual([]);
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 20);
  });

  it("after its logs store was removed, a warm restart reads older blocks from the EL", async () => {
    const w = world(0);
    for (let n = 1; n <= 8; n++) {
      w.a.push(n === 3 ? [WorldChain.initiating("old")] : []);
      w.b.push([]);
    }
    w.a.localSafe = w.b.localSafe = 8;
    const s1 = await w.open();
    await s1.activity.prepare();
    expect(await s1.drain()).toBe(9); // 1000..1008
    await s1.logs.get("901")?.clear(); // the operator removed chain-901/interop
    await s1.close();
    w.a.push([]);
    w.b.push([w.a.executing(3, 0)]);
    w.a.localSafe = w.b.localSafe = 9;
    const s2 = await w.open();
    expect(await s2.activity.prepare()).toBe(true); // warm
    expect(await s2.drain()).toBe(1);
    expect(w.b.invalidated).toEqual([]);
    expect(w.a.blockLogsAtCalls).toBe(1);
  });

  it("clamps the window to the activation", async () => {
    const w = withOldMessage();
    const s = await w.open({ backfillDepthS: 3600, activation: GENESIS + 5 });
    await s.activity.prepare();
    expect(s.logs.get("901")?.first()?.number).toBe(5);
    expect(s.logs.get("902")?.latest()?.number).toBe(11);
  });

  it("resumes an interrupted backfill where it stopped", async () => {
    const w = world(60);
    w.a.firstSafe = w.b.firstSafe = 50;
    w.a.unavailable.add(40); // the EL fails half-way through chain 901's window [10, 49]
    const s = await w.open({ backfillDepthS: 40 });
    await expect(s.activity.prepare()).rejects.toThrow("block 40 is not available");
    const reached = s.logs.get("901")?.latest()?.number as number;
    expect(reached).toBeGreaterThanOrEqual(10);
    expect(reached).toBeLessThan(40);
    expect(s.seen.progress.get("901")?.at(-1)).toBe((reached - 10 + 1) / 40);
    w.a.unavailable.clear();
    const before = w.a.blockLogsCalls;
    expect(await s.activity.prepare()).toBe(true);
    expect(w.a.blockLogsCalls - before).toBe(49 - reached); // only the rest is fetched again
    expect(s.logs.get("901")?.first()?.number).toBe(10);
    expect(s.logs.get("901")?.latest()?.number).toBe(49);
    expect(await s.drain()).toBe(11); // 1050..1060
  });

  it("a full rewind keeps the backfilled logs", async () => {
    const w = withOldMessage();
    const s = await w.open({ backfillDepthS: 10 });
    await s.activity.prepare();
    await s.drain();
    await s.activity.apply({ kind: "rewind", rewindAtOrAfter: GENESIS + 12 });
    expect(s.verified.last()).toBeUndefined();
    expect(s.logs.get("901")?.latest()?.number).toBe(11);
    expect(s.logs.get("901")?.first()?.number).toBe(2);
    expect(await s.drain()).toBe(9);
    expect(w.b.invalidated).toEqual([]);
  });
});
