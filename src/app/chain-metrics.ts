/**
 * Per-chain metrics of one virtual node. Every series carries a `chain_id` label so all chains share one registry
 * (and one scrape endpoint). Creating the metrics twice on one registry (a restarted chain) reuses the series.
 */
import { Histogram, type Registry } from "prom-client";
import { registeredCounter as counter, registeredGauge as gauge, reuseOr } from "../io/common/registered-metrics.js";
import type { ChainMetrics } from "../node/metrics.js";

/** The node's `ChainMetrics` port (node/metrics.ts) on a prom-client registry. */
export function createChainMetrics(register: Registry, chainId: bigint): ChainMetrics {
  const chain = chainId.toString(10);
  const headGauge = gauge(register, "supernode_node_head_number", "L2 block number of each head of the virtual node", [
    "chain_id",
    "head",
  ]);
  const origin = gauge(
    register,
    "supernode_node_derivation_l1_origin",
    "L1 block number the derivation pipeline is reading",
    ["chain_id"],
  );
  const derived = counter(
    register,
    "supernode_node_derived_blocks_total",
    "L2 blocks made safe from L1 data, by path (build or consolidate)",
    ["chain_id", "path"],
  );
  const built = counter(register, "supernode_node_blocks_built_total", "L2 blocks built through the Engine API", [
    "chain_id",
  ]);
  const sequenced = counter(register, "supernode_node_sequenced_blocks_total", "L2 blocks produced by the sequencer", [
    "chain_id",
  ]);
  const latencyName = "supernode_node_engine_call_seconds";
  const latency = reuseOr(
    register,
    latencyName,
    () =>
      new Histogram<"chain_id" | "method">({
        name: latencyName,
        help:
          "Latency of engine operations by the node's port method (`startBuild`, `insertAsHead`, " +
          "`forkchoiceUpdated`, `newPayload`, `getPayload`, `headersByNumber`, `payloadByNumber`; one operation may " +
          "be one JSON-RPC batch)",
        labelNames: ["chain_id", "method"],
        buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
        registers: [register],
      }),
  );
  const resets = counter(register, "supernode_node_resets_total", "Derivation pipeline / engine resets by reason", [
    "chain_id",
    "reason",
  ]);
  const errors = counter(
    register,
    "supernode_node_errors_total",
    "Errors of the virtual node's driver loop by severity",
    ["chain_id", "severity"],
  );
  // Counters alerts use exist from start-up with 0, so `increase(...)` sees the first error of a chain.
  for (const severity of ["temporary", "reset", "critical"]) errors.inc({ chain_id: chain, severity }, 0);
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

/** Derived-block build starts sent with a predicted payload id, by outcome (the Engine API client reports them). */
export function payloadIdPredictionCounter(
  register: Registry,
  chainId: bigint,
): { inc(labels: { outcome: "hit" | "miss" }): void } {
  const chain = chainId.toString(10);
  const predictions = counter(
    register,
    "supernode_node_payload_id_predictions_total",
    "Derived-block build starts sent with getPayload of a locally computed payload id in the same request " +
      "(docs/performance.md), by outcome (hit: the EL returned that id, the payload came with the build start; miss: " +
      "another id or the batched getPayload failed: the payload was fetched on its own and prediction stopped for " +
      "that EL, logged once at info)",
    ["chain_id", "outcome"],
  );
  return { inc: (l) => predictions.inc({ chain_id: chain, outcome: l.outcome }) };
}
