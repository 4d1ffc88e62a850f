import { afterEach, describe, expect, it } from "vitest";
import { ChainSupervisor, type SupervisorOptions } from "../../../src/app/chain-supervisor.js";
import { AbortedError, CriticalError } from "../../../src/core/errors/supernode-error.js";
import type { Logger } from "../../../src/core/logger.js";
import type { Clock } from "../../../src/core/time/clock.js";
import { FakeChainControl, testLogger, waitFor } from "./fake-chains.js";

const HEALTH_MS = 7;

/**
 * A clock whose sleeps resolve immediately (recording the requested delay, health checks apart) and whose time
 * only moves on demand. With `holdBackoff`, backoff sleeps never end (until aborted).
 */
class InstantClock implements Clock {
  now = 0;
  sleeps: number[] = [];
  healthChecks = 0;
  holdBackoff = false;
  nowMs(): number {
    return this.now;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new AbortedError();
    if (ms === HEALTH_MS) this.healthChecks++;
    else this.sleeps.push(ms);
    if (ms !== HEALTH_MS && this.holdBackoff) {
      await new Promise<void>((r) => signal?.addEventListener("abort", () => r(), { once: true }));
    } else {
      await new Promise((r) => setTimeout(r, 1));
    }
    if (signal?.aborted) throw new AbortedError();
  }
}

/** Collects the supervisor's log lines by level. */
function recordingLogger(lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }>): Logger {
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, msg: string): void => {
      lines.push({ level, msg, fields });
    };
  const logger = {
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => logger,
  };
  return logger as unknown as Logger;
}

const supervisors: ChainSupervisor[] = [];
/** Every supervisor a test makes is stopped afterwards, also when an expectation failed. */
function supervise(
  chainId: bigint,
  ctl: FakeChainControl,
  deps: ConstructorParameters<typeof ChainSupervisor>[2],
  opts: Partial<SupervisorOptions> = {},
): ChainSupervisor {
  const sup = new ChainSupervisor(chainId, ctl.factory, deps, { healthCheckMs: HEALTH_MS, ...opts });
  supervisors.push(sup);
  return sup;
}
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.stop()));
});

describe("ChainSupervisor", () => {
  it("a stop while the instance is starting ends once the start returns, not never (issue 26, defect 8)", async () => {
    const ctl = new FakeChainControl(9n);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const held: typeof ctl.factory = async (attempt) => {
      const inst = await ctl.factory(attempt);
      const start = inst.start.bind(inst);
      inst.start = async (signal) => {
        await gate;
        await start(signal);
      };
      return inst;
    };
    const sup = new ChainSupervisor(
      9n,
      held,
      { logger: testLogger, clock: new InstantClock() },
      {
        healthCheckMs: HEALTH_MS,
      },
    );
    sup.start();
    await waitFor(() => ctl.starts === 1);
    const stopping = sup.stop();
    release();
    const outcome = await Promise.race([
      stopping.then(() => "stopped"),
      new Promise((r) => setTimeout(() => r("still stopping after 5 s"), 5_000)),
    ]);
    expect(outcome).toBe("stopped");
    expect(sup.state).toBe("stopped");
    expect(ctl.stops).toBe(1);
  });

  it("backs off exponentially up to the cap while a chain cannot start, then runs it", async () => {
    const ctl = new FakeChainControl(7n);
    ctl.failStarts = 7;
    const clock = new InstantClock();
    const states: string[] = [];
    const sup = supervise(
      7n,
      ctl,
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
    const sup = supervise(8n, ctl, { logger: testLogger, clock }, { initialBackoffMs: 100, stableAfterMs: 60_000 });
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
    const sup = supervise(9n, ctl, { logger: testLogger, clock: new InstantClock() }, { initialBackoffMs: 50 });
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
    const sup = supervise(1n, new FakeChainControl(1n), {
      logger: testLogger,
      clock: new InstantClock(),
    });
    await sup.stop();
    expect(sup.state).toBe("stopped");
  });

  it("folds the node's health into the state, logging each change once", async () => {
    const ctl = new FakeChainControl(5n);
    const clock = new InstantClock();
    const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
    const states: string[] = [];
    const sup = supervise(5n, ctl, {
      logger: recordingLogger(lines),
      clock,
      onState: (s, r) => states.push(r === undefined ? s : `${s}: ${r}`),
    });
    sup.start();
    await waitFor(() => sup.state === "running");
    ctl.health = {
      condition: "degraded",
      reason: "failing for 10s: RPC_TIMEOUT: engine_newPayloadV4: request timed out",
    };
    await waitFor(() => sup.state === "degraded");
    // the reason may change (the age grows) without a new log line or state change
    ctl.health = {
      condition: "degraded",
      reason: "failing for 11s: RPC_TIMEOUT: engine_newPayloadV4: request timed out",
    };
    await waitFor(() => sup.reason?.startsWith("failing for 11s") === true);
    const checks = clock.healthChecks;
    await waitFor(() => clock.healthChecks > checks + 20);
    ctl.health = { condition: "stalled", reason: "no progress for 60s while L1 advanced 30 blocks" };
    await waitFor(() => sup.state === "stalled");
    ctl.health = { condition: "ok" };
    await waitFor(() => sup.state === "running");
    expect(sup.health()).toMatchObject({ state: "running", ready: true, restarts: 0 });
    expect(states).toEqual([
      "starting",
      "running",
      "degraded: failing for 10s: RPC_TIMEOUT: engine_newPayloadV4: request timed out",
      "stalled: no progress for 60s while L1 advanced 30 blocks",
      "running",
    ]);
    const loud = lines.filter((l) => l.level === "warn" || l.level === "error").map((l) => l.msg);
    expect(loud).toEqual(["chain degraded", "chain stalled"]);
    expect(lines.filter((l) => l.msg === "chain recovered")).toHaveLength(1);
    expect(ctl.starts).toBe(1);
  });

  it("fails a chain on a critical error, once, and never restarts it", async () => {
    const ctl = new FakeChainControl(6n);
    const clock = new InstantClock();
    clock.holdBackoff = true; // a restart would park in `backoff`, never reach `failed`
    const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
    const states: string[] = [];
    const sup = supervise(6n, ctl, { logger: recordingLogger(lines), clock, onState: (s) => states.push(s) });
    sup.start();
    await waitFor(() => sup.state === "running");
    ctl.live!.crash(new CriticalError("L1_FINALIZED_REORG", "L1 block 12 was finalized and has been reorged out"));
    await waitFor(() => sup.state === "failed");
    expect(sup.health()).toMatchObject({
      state: "failed",
      ready: false,
      restarts: 0,
      reason: "L1_FINALIZED_REORG: L1 block 12 was finalized and has been reorged out",
    });
    expect(lines.filter((l) => l.level === "error")).toHaveLength(1);
    expect(ctl.stops).toBe(1);
    await sup.stop();
    expect(states).toEqual(["starting", "running", "failed", "stopped"]);
    expect(clock.sleeps).toEqual([]);
  });
});
