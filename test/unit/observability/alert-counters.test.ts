/**
 * The counters the alert rules watch with `increase(...)` exist with 0 from start-up (per chain, per severity, per
 * L1 error kind), so the first restart or error is an increase rather than a new series Prometheus cannot compare.
 */
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createL1Metrics, L1_ERROR_KINDS } from "../../../src/io/l1/metrics.js";
import { createChainMetrics } from "../../../src/app/chain-metrics.js";
import { createSupernodeMetrics } from "../../../src/observability/metrics-registry.js";

async function samples(reg: Registry, name: string) {
  const m = reg.getSingleMetric(name);
  if (m === undefined) throw new Error(`${name} not registered`);
  return (await m.get()).values.map((v) => ({ labels: v.labels, value: v.value }));
}

describe("alert counters from start-up", () => {
  it("supernode_chain_restarts_total has 0 for every chain once it has a state", async () => {
    const reg = new Registry();
    const m = createSupernodeMetrics({ version: "t", processMetrics: false }, reg);
    m.setChainState("901", "stopped", false);
    m.setChainState("902", "stopped", false);
    expect(await samples(reg, "supernode_chain_restarts_total")).toEqual([
      { labels: { chain_id: "901" }, value: 0 },
      { labels: { chain_id: "902" }, value: 0 },
    ]);
    m.incChainRestarts("902");
    m.setChainState("902", "running", true);
    expect(await samples(reg, "supernode_chain_restarts_total")).toContainEqual({
      labels: { chain_id: "902" },
      value: 1,
    });
  });

  it("supernode_node_errors_total has 0 per severity for every chain; a restarted chain keeps its counts", async () => {
    const reg = new Registry();
    const a = createChainMetrics(reg, 901n);
    createChainMetrics(reg, 902n);
    a.errors.inc({ severity: "critical" });
    createChainMetrics(reg, 901n); // the chain's next instance
    const got = await samples(reg, "supernode_node_errors_total");
    expect(got).toHaveLength(6);
    expect(got).toContainEqual({ labels: { chain_id: "901", severity: "critical" }, value: 1 });
    expect(got).toContainEqual({ labels: { chain_id: "902", severity: "temporary" }, value: 0 });
  });

  it("supernode_l1_errors_total has 0 per kind; supernode_l1_head_number is registered", async () => {
    const reg = new Registry();
    createL1Metrics(reg);
    const got = await samples(reg, "supernode_l1_errors_total");
    expect(got.map((s) => s.labels.kind).sort()).toEqual([...L1_ERROR_KINDS].sort());
    expect(got.every((s) => s.value === 0)).toBe(true);
    expect(reg.getSingleMetric("supernode_l1_head_number")).toBeDefined();
  });
});
