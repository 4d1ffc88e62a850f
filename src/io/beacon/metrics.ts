import { Counter, type Registry } from "prom-client";
import { BEACON_ERROR_KINDS, type BeaconErrorKind } from "./beacon-client.js";

/** Metrics of the shared beacon client (one per process, like the L1 client's). */
export interface BeaconMetrics {
  /** Failed beacon requests and rejected answers, by kind; every kind exists with 0 from start-up. */
  readonly errors: Counter<"kind">;
  onError(kind: BeaconErrorKind): void;
}

export function createBeaconMetrics(register: Registry, prefix = "supernode_beacon_"): BeaconMetrics {
  const errors = new Counter({
    name: `${prefix}errors_total`,
    help: "Beacon (blob) request failures and rejected answers, by kind (network, http_error, decode, too_large, invalid_blob, unavailable, genesis)",
    labelNames: ["kind"],
    registers: [register],
  });
  for (const kind of BEACON_ERROR_KINDS) errors.inc({ kind }, 0);
  return { errors, onError: (kind) => errors.inc({ kind }) };
}
