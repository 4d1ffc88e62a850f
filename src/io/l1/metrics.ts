import { Counter, Gauge, type Registry } from "prom-client";
import { responseTooLargeCounter } from "../common/response-limit.js";

/** Metrics of the shared L1 client (one set per process: the client is shared by all chains). */
export interface L1Metrics {
  /** JSON-RPC calls sent to L1, by method. */
  readonly requests: Counter<"method">;
  /**
   * Cache lookups by kind (`label`, `number`, `header`, `txs`, `receipts`, `storage`, `chain_id`: one name per
   * kind, whether a cache hit or a coalesced call) and result (`hit`, `miss`, `coalesced`).
   */
  readonly cache: Counter<"kind" | "result">;
  /** Failed calls and rejected responses, by kind (`timeout`, `network`, `http_error`, `rpc_error`, `decode`, `invalid`, `not_found`). */
  readonly errors: Counter<"kind">;
  /** Block number of the last polled `latest`, `safe` and `finalized` L1 blocks. */
  readonly head: Gauge<"label">;
  /** Responses aborted for exceeding the size bound (`supernode_upstream_response_too_large_total{upstream="l1"}`). */
  readonly tooLarge: { inc(n?: number): void };
}

/** Error kinds, each exported with 0 from start-up so that `increase(...)` alerts see the first error. */
export const L1_ERROR_KINDS = [
  "timeout",
  "network",
  "http_error",
  "rpc_error",
  "decode",
  "invalid",
  "not_found",
  "too_large",
] as const;

export function createL1Metrics(register: Registry, prefix = "supernode_l1_"): L1Metrics {
  const m: L1Metrics = {
    requests: new Counter({
      name: `${prefix}requests_total`,
      help: "JSON-RPC calls sent to the L1 endpoint, by method",
      labelNames: ["method"],
      registers: [register],
    }),
    cache: new Counter({
      name: `${prefix}cache_total`,
      help: "Shared L1 cache lookups by kind (label, number, header, txs, receipts, storage, chain_id) and result (hit, miss, coalesced)",
      labelNames: ["kind", "result"],
      registers: [register],
    }),
    errors: new Counter({
      name: `${prefix}errors_total`,
      help: "L1 request failures and rejected L1 responses, by kind",
      labelNames: ["kind"],
      registers: [register],
    }),
    head: new Gauge({
      name: `${prefix}head_number`,
      help: "Block number of the last polled L1 block by label (latest, safe, finalized)",
      labelNames: ["label"],
      registers: [register],
    }),
    tooLarge: responseTooLargeCounter(register).labels({ upstream: "l1", chain_id: "supernode" }),
  };
  for (const kind of L1_ERROR_KINDS) m.errors.inc({ kind }, 0);
  m.tooLarge.inc(0);
  return m;
}
