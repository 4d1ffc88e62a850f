/**
 * What one virtual node reports as metrics (a port: the prom-client implementation is
 * observability/chain-metrics.ts). Every series carries the chain's `chain_id` label there.
 */
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
