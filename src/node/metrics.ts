/**
 * Per-chain metrics of one virtual node. Every series carries a `chain_id` label so all chains share one registry
 * (and one scrape endpoint). Creating the metrics twice on one registry (a restarted chain) reuses the series.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export interface ChainMetrics {
  /** L2 heads by kind (`unsafe`, `safe`, `local_safe`, `pending_safe`, `finalized`). */
  readonly headNumber: { set(labels: { head: string }, value: number): void };
  /** L1 block the derivation pipeline is reading. */
  readonly derivationOrigin: { set(value: number): void };
  readonly derivedBlocks: { inc(labels: { path: "build" | "consolidate" }): void };
  readonly blocksBuilt: { inc(): void };
  readonly sequencedBlocks: { inc(): void };
  readonly engineLatency: { startTimer(labels: { method: string }): () => void };
  readonly resets: { inc(labels: { reason: string }): void };
  readonly errors: { inc(labels: { severity: string }): void };
}

function getOrCreate<T>(register: Registry, name: string, make: () => T): T {
  return (register.getSingleMetric(name) as T | undefined) ?? make();
}

export function createChainMetrics(register: Registry, chainId: bigint): ChainMetrics {
  const chain = chainId.toString(10);
  const headGauge = getOrCreate(
    register,
    "supernode_node_head_number",
    () =>
      new Gauge({
        name: "supernode_node_head_number",
        help: "L2 block number of each head of the virtual node",
        labelNames: ["chain_id", "head"] as const,
        registers: [register],
      }),
  );
  const origin = getOrCreate(
    register,
    "supernode_node_derivation_l1_origin",
    () =>
      new Gauge({
        name: "supernode_node_derivation_l1_origin",
        help: "L1 block number the derivation pipeline is reading",
        labelNames: ["chain_id"] as const,
        registers: [register],
      }),
  );
  const derived = getOrCreate(
    register,
    "supernode_node_derived_blocks_total",
    () =>
      new Counter({
        name: "supernode_node_derived_blocks_total",
        help: "L2 blocks made safe from L1 data, by path (build or consolidate)",
        labelNames: ["chain_id", "path"] as const,
        registers: [register],
      }),
  );
  const built = getOrCreate(
    register,
    "supernode_node_blocks_built_total",
    () =>
      new Counter({
        name: "supernode_node_blocks_built_total",
        help: "L2 blocks built through the Engine API",
        labelNames: ["chain_id"] as const,
        registers: [register],
      }),
  );
  const sequenced = getOrCreate(
    register,
    "supernode_node_sequenced_blocks_total",
    () =>
      new Counter({
        name: "supernode_node_sequenced_blocks_total",
        help: "L2 blocks produced by the sequencer",
        labelNames: ["chain_id"] as const,
        registers: [register],
      }),
  );
  const latency = getOrCreate(
    register,
    "supernode_node_engine_call_seconds",
    () =>
      new Histogram({
        name: "supernode_node_engine_call_seconds",
        help: "Latency of Engine API calls by method",
        labelNames: ["chain_id", "method"] as const,
        buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
        registers: [register],
      }),
  );
  const resets = getOrCreate(
    register,
    "supernode_node_resets_total",
    () =>
      new Counter({
        name: "supernode_node_resets_total",
        help: "Derivation pipeline / engine resets by reason",
        labelNames: ["chain_id", "reason"] as const,
        registers: [register],
      }),
  );
  const errors = getOrCreate(
    register,
    "supernode_node_errors_total",
    () =>
      new Counter({
        name: "supernode_node_errors_total",
        help: "Errors of the virtual node's driver loop by severity",
        labelNames: ["chain_id", "severity"] as const,
        registers: [register],
      }),
  );
  return {
    headNumber: { set: (l, v) => headGauge.set({ chain_id: chain, head: l.head }, v) },
    derivationOrigin: { set: (v) => origin.set({ chain_id: chain }, v) },
    derivedBlocks: { inc: (l) => derived.inc({ chain_id: chain, path: l.path }) },
    blocksBuilt: { inc: () => built.inc({ chain_id: chain }) },
    sequencedBlocks: { inc: () => sequenced.inc({ chain_id: chain }) },
    engineLatency: { startTimer: (l) => latency.startTimer({ chain_id: chain, method: l.method }) },
    resets: { inc: (l) => resets.inc({ chain_id: chain, reason: l.reason }) },
    errors: { inc: (l) => errors.inc({ chain_id: chain, severity: l.severity }) },
  };
}
