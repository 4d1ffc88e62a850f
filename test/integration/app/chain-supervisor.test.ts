import { describe, expect, it } from "vitest";
import { ChainSupervisor } from "../../../src/app/chain-supervisor.js";
import { AbortedError } from "../../../src/core/errors/supernode-error.js";
import type { Clock } from "../../../src/core/time/clock.js";
import { FakeChainControl, testLogger, waitFor } from "./fake-chains.js";

/** A clock whose sleeps resolve immediately (recording the requested delay) and whose time only moves on demand. */
class InstantClock implements Clock {
  now = 0;
  sleeps: number[] = [];
  nowMs(): number {
    return this.now;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new AbortedError();
    this.sleeps.push(ms);
    await new Promise((r) => setTimeout(r, 1));
    if (signal?.aborted) throw new AbortedError();
  }
}

describe("ChainSupervisor", () => {
  it("backs off exponentially up to the cap while a chain cannot start, then runs it", async () => {
    const ctl = new FakeChainControl(7n);
    ctl.failStarts = 7;
    const clock = new InstantClock();
    const states: string[] = [];
    const sup = new ChainSupervisor(
      7n,
      ctl.factory,
      { logger: testLogger, clock, onState: (s) => states.push(s) },
      {
        initialBackoffMs: 1_000,
        maxBackoffMs: 30_000,
      },
    );
    sup.start();
    await waitFor(() => sup.state === "running");
    expect(clock.sleeps).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(sup.health()).toMatchObject({ state: "running", restarts: 7, lastError: "engine unreachable" });
    expect(states.slice(0, 4)).toEqual(["starting", "stopping", "backoff", "starting"]);
    await sup.stop();
    expect(sup.state).toBe("stopped");
    expect(ctl.stops).toBe(8);
  });

  it("resets the backoff after the chain ran stably, and restarts a crashed instance", async () => {
    const ctl = new FakeChainControl(8n);
    const clock = new InstantClock();
    const sup = new ChainSupervisor(
      8n,
      ctl.factory,
      { logger: testLogger, clock },
      { initialBackoffMs: 100, stableAfterMs: 60_000 },
    );
    sup.start();
    await waitFor(() => sup.state === "running");
    ctl.failStarts = 1;
    ctl.live!.crash();
    await waitFor(() => sup.state === "running" && ctl.starts === 3);
    expect(clock.sleeps).toEqual([100, 200]);
    clock.now += 120_000; // ran stably for two minutes
    ctl.live!.crash();
    await waitFor(() => ctl.starts === 4 && sup.state === "running");
    expect(clock.sleeps).toEqual([100, 200, 100]);
    await sup.stop();
  });

  it("keeps the last good status while the chain is down, flagged stale", async () => {
    const ctl = new FakeChainControl(9n);
    const sup = new ChainSupervisor(
      9n,
      ctl.factory,
      { logger: testLogger, clock: new InstantClock() },
      { initialBackoffMs: 50 },
    );
    expect(await sup.syncStatus()).toBeUndefined();
    sup.start();
    await waitFor(() => sup.state === "running");
    const live = await sup.syncStatus();
    expect(live?.stale).toBe(false);
    ctl.failStarts = 1_000;
    ctl.live!.crash();
    await waitFor(() => sup.state !== "running");
    const stale = await sup.syncStatus();
    expect(stale).toEqual({ status: live?.status, stale: true });
    // the chain's methods answer "not running" with the same names (admin flag kept)
    const spec = sup.methods.get("stack_syncStatus");
    await expect(spec?.handler([], {})).rejects.toThrow(/chain 9 is not running/);
    expect(sup.methods.get("admin_stopSequencer")?.admin).toBe(true);
    await sup.stop();
    expect(sup.state).toBe("stopped");
  });

  it("stop before start is immediate", async () => {
    const sup = new ChainSupervisor(1n, new FakeChainControl(1n).factory, {
      logger: testLogger,
      clock: new InstantClock(),
    });
    await sup.stop();
    expect(sup.state).toBe("stopped");
  });
});
