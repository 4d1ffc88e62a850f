import { createRequire } from "node:module";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSupernodeMetrics, EVENT_LOOP_SAMPLE_MS } from "../../../src/observability/metrics-registry.js";

// prom-client's process collectors reach perf_hooks through require(): the same module object as this one.
const perfHooks = createRequire(import.meta.url)("node:perf_hooks") as typeof import("node:perf_hooks");

afterEach(() => vi.restoreAllMocks());

describe("the event-loop delay monitor of the process metrics", () => {
  it("samples every 100 ms, not prom-client's 10 ms (each wake-up of the thread costs CPU)", async () => {
    const monitor = vi.spyOn(perfHooks, "monitorEventLoopDelay");
    const registry = new Registry();
    createSupernodeMetrics({ version: "t" }, registry);
    expect(EVENT_LOOP_SAMPLE_MS).toBe(100);
    expect(monitor).toHaveBeenCalledTimes(1);
    expect(monitor.mock.calls[0]?.[0]).toEqual({ resolution: EVENT_LOOP_SAMPLE_MS });
    // the lag series are still there
    const text = await registry.metrics();
    expect(text).toMatch(/^supernode_nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it("is not started without process metrics", () => {
    const monitor = vi.spyOn(perfHooks, "monitorEventLoopDelay");
    createSupernodeMetrics({ version: "t", processMetrics: false }, new Registry());
    expect(monitor).not.toHaveBeenCalled();
  });
});
