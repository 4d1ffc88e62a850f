/**
 * What a loop should do with an error:
 * - temporary: retry the same step with backoff;
 * - reset: reset the derivation pipeline / re-derive from a consistent point;
 * - critical: stop this chain (the supernode reports it and keeps the other chains running).
 */
export type Severity = "temporary" | "reset" | "critical";
