import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InteropActivity } from "../../../src/activities/interop/activity.js";
import type { InteropState } from "../../../src/activities/interop/ports.js";
import { LogsStore } from "../../../src/io/db/interop/logs-store.js";
import { VerifiedStore } from "../../../src/io/db/interop/verified-store.js";
import { makeDependencySet } from "../../../src/protocol/interop/dependency-set.js";
import { ManualClock, recordingLogger } from "../node/fakes.js";
import { WorldChain, WorldL1 } from "./interop-world.js";

/**
 * An interop activity that commits nothing says so (the project's rule: a stall is never silent): a round held by a
 * call that never returns (a chain's driver loop that does not answer an invalidation) and rounds that keep waiting
 * for a chain both end in the `stalled` state (status, metric) with one WARN line naming where it is stuck, and
 * one INFO line when it verifies again.
 */
const GENESIS = 1000;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

async function until<T>(what: string, f: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function start(world: { a: WorldChain; b: WorldChain; l1: WorldL1 }) {
  const dir = mkdtempSync(join(tmpdir(), "interop-stall-"));
  const verified = await VerifiedStore.open(join(dir, "verified"));
  const logs = new Map([
    ["901", await LogsStore.open(join(dir, "logs-901"))],
    ["902", await LogsStore.open(join(dir, "logs-902"))],
  ]);
  const clock = new ManualClock(1_000_000);
  const logger = recordingLogger();
  const lines = logger.lines;
  const states: InteropState[] = [];
  const activity = new InteropActivity(
    { activationTimestamp: GENESIS, dependencySet: makeDependencySet([901n, 902n]), idleMs: 1, stallAfterMs: 60_000 },
    {
      chains: [world.a, world.b],
      logs,
      verified,
      l1: world.l1,
      clock,
      logger,
      metrics: {
        verified: () => {},
        decision: () => {},
        invalidation: () => {},
        denied: () => {},
        rewind: () => {},
        verificationSeconds: () => {},
        state: (s) => states.push(s),
        backfillProgress: () => {},
      },
    },
  );
  const ac = new AbortController();
  const run = activity.run(ac.signal);
  cleanup.push(async () => {
    ac.abort();
    await run;
    await verified.close();
    for (const s of logs.values()) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const warns = () => lines.filter((l) => l.level === "warn" && l.msg.startsWith("interop activity stalled"));
  return { activity, verified, clock, lines, states, warns };
}

function world() {
  const l1 = new WorldL1();
  return { l1, a: new WorldChain(901n, 1, GENESIS, l1), b: new WorldChain(902n, 1, GENESIS, l1) };
}

describe("interop activity stall reporting", () => {
  it("reports a round held by an invalidation the chain never answers", async () => {
    const w = world();
    const { a, b } = w;
    a.push([WorldChain.initiating("a1")]);
    b.push([]);
    a.push([]);
    b.push([a.executing(1, 0, {}, `0x${"ab".repeat(32)}`)]); // a wrong payload hash: invalid
    a.localSafe = b.localSafe = 2;
    let asked = 0;
    let fail: ((err: Error) => void) | undefined;
    b.invalidate = () => {
      asked++;
      // the chain's driver loop never runs the request (until the node stops and fails its requests)
      return new Promise((_resolve, reject) => {
        fail = reject;
      });
    };
    cleanup.push(async () => fail?.(new Error("virtual node stopped")));
    const s = await start(w);
    await until("the invalidation request", () => asked === 1);
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 1);
    s.clock.now += 59_000;
    // The watch timer runs (its sleeps are short real timers) but a minute has not passed: nothing yet.
    const sleeps = s.clock.sleeps;
    await until("a few watch checks", () => s.clock.sleeps >= sleeps + 3);
    expect(s.warns()).toEqual([]);
    s.clock.now += 2_000;
    const [warn] = await until("the stall warning", () => (s.warns().length > 0 ? s.warns() : undefined));
    expect(warn?.obj).toMatchObject({ phase: "applying invalidate", timestamp: GENESIS + 2, chains: ["902"] });
    expect(s.activity.status().state).toBe("stalled");
    expect(s.states.at(-1)).toBe("stalled");
    // One line per change: the stall is not logged again while it lasts.
    const more = s.clock.sleeps;
    s.clock.now += 30_000;
    await until("more watch checks", () => s.clock.sleeps >= more + 3);
    expect(s.warns()).toHaveLength(1);
  });

  it("reports rounds that keep waiting for a chain, and says when it verifies again", async () => {
    const w = world();
    const { a, b } = w;
    a.advance(3);
    b.advance(1); // chain 902 has no local-safe block at GENESIS + 2 yet
    const s = await start(w);
    await until("timestamps up to GENESIS + 1", () => s.verified.last()?.timestamp === GENESIS + 1);
    await until("a waiting round", () => s.activity.status().last_decision === "wait:chains-not-ready");
    s.clock.now += 61_000;
    const [warn] = await until("the stall warning", () => (s.warns().length > 0 ? s.warns() : undefined));
    expect(warn?.obj).toMatchObject({ phase: "wait:chains-not-ready", timestamp: GENESIS + 2, chains: ["902"] });
    await until("the stalled state", () => s.activity.status().state === "stalled");
    // The rounds go on waiting: the state stays stalled (no flapping back to waiting), one line in all.
    const sleeps = s.clock.sleeps;
    await until("more rounds", () => s.clock.sleeps >= sleeps + 10);
    expect(s.activity.status().state).toBe("stalled");
    expect(s.warns()).toHaveLength(1);
    b.advance(2);
    await until("GENESIS + 3 verified", () => s.verified.last()?.timestamp === GENESIS + 3);
    await until("the state after the stall", () => s.activity.status().state !== "stalled");
    expect(s.lines.filter((l) => l.msg === "interop activity verifying again")).toHaveLength(1);
    expect(s.states).toContain("stalled");
    expect(s.states.at(-1)).not.toBe("stalled");
  });
});
