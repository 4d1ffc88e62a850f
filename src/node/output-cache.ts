import type { L2BlockRef } from "../core/types/block-ref.js";
import type { OutputAtBlock } from "./chain-view.js";

/**
 * Outputs already computed, answered from memory (`stack_outputAtBlock` does not wait behind derivation for the
 * Engine API or `eth_getProof` again). An entry is served only while it is certainly canonical: its block is at
 * or below the finalized head, or it is the block one of the node's current heads points at (same hash).
 */
export class OutputCache {
  /** `final`: the block was at or below the finalized head when computed (it can never change). */
  private readonly entries = new Map<number, { out: OutputAtBlock; final: boolean }>();

  constructor(private readonly capacity = 512) {}

  /** The cached output of block `n`, when still canonical given the node's `heads`. */
  get(n: number, heads: readonly L2BlockRef[], finalized: number): OutputAtBlock | undefined {
    const hit = this.entries.get(n);
    if (hit === undefined) return undefined;
    if (hit.final) return hit.out;
    if (n <= finalized) {
      // finalized since it was cached: it may have been reorged out before that; ask the EL again
      this.entries.delete(n);
      return undefined;
    }
    return this.isHead(hit.out, heads) ? hit.out : undefined;
  }

  /** Remembers `out` when it is canonical now (otherwise it could go stale unseen). */
  put(out: OutputAtBlock, heads: readonly L2BlockRef[], finalized: number): void {
    const final = out.blockRef.number <= finalized;
    if (!final && !this.isHead(out, heads)) return;
    this.entries.delete(out.blockRef.number);
    this.entries.set(out.blockRef.number, { out, final });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  private isHead(out: OutputAtBlock, heads: readonly L2BlockRef[]): boolean {
    const ref = out.blockRef;
    return heads.some((h) => h.number === ref.number && h.hash === ref.hash);
  }
}
