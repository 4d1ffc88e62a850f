import { describe, expect, it } from "vitest";
import { CriticalError, TemporaryError } from "../../../src/core/errors/supernode-error.js";
import type { Clock } from "../../../src/core/time/clock.js";
import { describeError, HealthTracker, RESET_LOOP } from "../../../src/node/health.js";

class ManualClock implements Clock {
  now = 1_000_000;
  nowMs(): number {
    return this.now;
  }
  async sleep(): Promise<void> {}
}

const mark = (l1Head: number, origin: number, unsafe: number, safe: number) => ({ l1Head, origin, unsafe, safe });

describe("HealthTracker", () => {
  it("is degraded once every step has failed for degradedAfterMs, ok again after one good step", () => {
    const clock = new ManualClock();
    const t = new HealthTracker(clock, { degradedAfterMs: 10_000, stallAfterMs: 60_000 });
    t.stepOk(mark(10, 5, 20, 18));
    const err = new TemporaryError("RPC_NETWORK", "engine_forkchoiceUpdatedV3: connect ECONNREFUSED 127.0.0.1:18652");
    t.stepFailed(err);
    clock.now += 9_999;
    t.stepFailed(err);
    expect(t.report()).toEqual({ condition: "ok" });
    clock.now += 1;
    expect(t.report()).toEqual({
      condition: "degraded",
      reason: "failing for 10s: RPC_NETWORK: engine_forkchoiceUpdatedV3: connect ECONNREFUSED <endpoint>",
    });
    // a loop blocked in one request still ages
    clock.now += 20_000;
    expect(t.report().reason).toMatch(/^failing for 30s/);
    t.stepOk(mark(10, 6, 21, 18));
    expect(t.report()).toEqual({ condition: "ok" });
  });

  it("is stalled when nothing moves up for stallAfterMs while L1 advances, not while L1 stands still", () => {
    const clock = new ManualClock();
    const t = new HealthTracker(clock, { degradedAfterMs: 10_000, stallAfterMs: 30_000 });
    t.stepOk(mark(100, 90, 50, 40));
    clock.now += 45_000;
    t.stepOk(mark(100, 90, 50, 40)); // L1 did not move: nothing to do is not a stall
    expect(t.report()).toEqual({ condition: "ok" });
    t.stepOk(mark(104, 90, 50, 40));
    expect(t.report()).toEqual({ condition: "stalled", reason: "no progress for 45s while L1 advanced 4 blocks" });
    // heads going back (a reset) are not progress; any of origin/unsafe/safe going up is
    t.stepOk(mark(104, 80, 45, 40));
    expect(t.report().condition).toBe("stalled");
    t.stepOk(mark(105, 80, 46, 40));
    expect(t.report()).toEqual({ condition: "ok" });
  });

  it("calls a reset loop stalled", () => {
    const clock = new ManualClock();
    const t = new HealthTracker(clock, { stallAfterMs: 60_000 });
    for (let i = 0; i < RESET_LOOP; i++) {
      expect(t.report().condition).toBe("ok");
      t.resetDone("L1_REORG");
      t.stepOk(mark(10 + i, 5 + i, 20 + i, 18)); // progress between resets does not hide the loop
      clock.now += 1_000;
    }
    expect(t.report()).toEqual({
      condition: "stalled",
      reason: `reset loop: ${RESET_LOOP} resets within 60s (last: L1_REORG)`,
    });
    clock.now += 60_000; // old resets age out
    expect(t.report()).toEqual({ condition: "ok" });
  });

  it("describes errors on one line, without endpoints", () => {
    expect(describeError(new CriticalError("SAFEDB_CORRUPT", "corrupted\nat /data/chain-1/safedb"))).toBe(
      "SAFEDB_CORRUPT: corrupted at /data/chain-1/safedb",
    );
    expect(describeError(new Error("GET http://10.1.2.3:8551/x failed"))).toBe("GET <endpoint> failed");
    expect(describeError("x".repeat(300))).toHaveLength(200);
  });
});
