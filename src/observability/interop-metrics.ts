import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { METRICS_PREFIX } from "./metrics-registry.js";

import { INTEROP_STATES as STATES } from "../protocol/interop/types.js";

/** The interop activity's series (names of the Go op-supernode's, under this project's prefix). */
export function createInteropMetrics(registry: Registry) {
  const registers = [registry];
  const p = `${METRICS_PREFIX}interop_`;
  const verifiedTotal = new Counter({
    name: `${p}timestamps_verified_total`,
    help: "Timestamps the interop activity verified and committed",
    registers,
  });
  const verifiedTs = new Gauge({
    name: `${p}verified_timestamp`,
    help: "The newest timestamp verified across all chains of the dependency set",
    registers,
  });
  const invalidations = new Counter({
    name: `${p}invalidations_total`,
    help: "Blocks replaced because of an invalid executing message, by chain",
    labelNames: ["chain_id"],
    registers,
  });
  const decisions = new Counter({
    name: `${p}round_decisions_total`,
    help: "Round decisions of the interop activity (wait, advance, invalidate, rewind)",
    labelNames: ["decision"],
    registers,
  });
  const rewinds = new Counter({
    name: `${p}rewinds_total`,
    help: "Rewinds of verified results after their L1 inclusion was reorged out",
    registers,
  });
  const duration = new Histogram({
    name: `${p}verification_duration_seconds`,
    help: "Time to verify and commit one timestamp",
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
    registers,
  });
  const state = new Gauge({
    name: `${p}activity_state`,
    help: "State of the interop activity (1 for the current state: starting, awaiting_safedb, backfilling, waiting, verifying, degraded, stalled, halted, stopped)",
    labelNames: ["state"],
    registers,
  });
  const backfill = new Gauge({
    name: `${p}log_backfill_progress`,
    help: "Log backfill progress per chain (0 to 1)",
    labelNames: ["chain_id"],
    registers,
  });
  const denied = new Counter({
    name: `${p}denylist_entries_total`,
    help: "Blocks added to a chain's deny list",
    labelNames: ["chain_id"],
    registers,
  });
  return {
    verified(ts: number) {
      verifiedTotal.inc();
      verifiedTs.set(ts);
    },
    decision(kind: string) {
      decisions.inc({ decision: kind });
    },
    invalidation(chainId: string) {
      invalidations.inc({ chain_id: chainId });
    },
    denied(chainId: string) {
      denied.inc({ chain_id: chainId });
    },
    rewind() {
      rewinds.inc();
    },
    verificationSeconds(s: number) {
      duration.observe(s);
    },
    state(s: string) {
      for (const x of STATES) state.set({ state: x }, x === s ? 1 : 0);
    },
    backfillProgress(chainId: string, fraction: number) {
      backfill.set({ chain_id: chainId }, fraction);
    },
  };
}
