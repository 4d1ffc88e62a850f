import type { Counter, Registry } from "prom-client";
import { registeredCounter } from "./registered-metrics.js";
import { SupernodeError } from "../../core/errors/supernode-error.js";

/**
 * Bounds on the size of response bodies the node reads from its upstreams, each sized from the largest legitimate
 * answer with about 2x headroom (docs/configuration.md repeats the arithmetic):
 * - L1 JSON-RPC: the largest answer is a block with full transactions or its receipts. At 60M gas, a block of
 *   zero-byte calldata (4 gas a byte) holds 15 MB, 30 MB as hex; logs cost 8 gas a data byte, 7.5 MB, 15 MB as hex.
 *   A receipts batch of the per-transaction fallback is at most that block's receipts. → 64 MiB.
 * - Beacon: a blob is 128 KiB, 256 KiB + 2 bytes as hex; a sidecar with commitment, proof, inclusion proof and
 *   header is under 266 KiB. 64 blobs per block (three times Fusaka's BPO2 maximum of 21) → 17 MiB. → 32 MiB.
 * - Engine API / L2 reads: a block must fit in a channel to be derived (Fjord: at most 100,000,000 bytes of RLP per
 *   channel), so a payload's transactions are at most 100 MB, 200 MB as hex, plus the envelope. → 256 MiB.
 */
export const DEFAULT_L1_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_BEACON_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
export const DEFAULT_ENGINE_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/**
 * A response body was larger than its bound; the transfer was aborted (the connection closed) before more was read.
 * Temporary: the upstream may be a misbehaving proxy that recovers, or a fallback may answer; every occurrence is
 * counted (`supernode_upstream_response_too_large_total`) and logged by the caller.
 */
export class ResponseTooLargeError extends SupernodeError {
  readonly limit: number;
  constructor(limit: number, what = "response") {
    super("RPC_RESPONSE_TOO_LARGE", `${what} larger than the limit of ${limit} bytes; aborted`, {
      severity: "temporary",
      meta: { limit },
    });
    this.limit = limit;
  }
}

export type Upstream = "l1" | "beacon" | "engine";

const METRIC = "supernode_upstream_response_too_large_total";

/**
 * The counter of aborted oversized responses, by upstream and chain (`chain_id="supernode"` for the shared L1 and
 * beacon clients). Registered once per registry; later calls return the same counter.
 */
export function responseTooLargeCounter(register: Registry): Counter<"upstream" | "chain_id"> {
  return registeredCounter(
    register,
    METRIC,
    "Upstream responses aborted because their body exceeded the configured size limit, by upstream (l1, beacon, engine)",
    ["upstream", "chain_id"],
  );
}
