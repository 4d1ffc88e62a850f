/**
 * Finality (op-node §2.10): remembers, per L1 block, the last L2 block derived from it, and when L1 finalizes a
 * block picks the highest L2 block derived from L1 data at or below it.
 */
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";

export interface FinalityEntry {
  readonly derivedFrom: L1BlockRef;
  readonly l2: L2BlockRef;
}

export const DEFAULT_FINALITY_LOOKBACK = 4 * 32 + 1;

export class Finalizer {
  private entries: FinalityEntry[] = [];
  private readonly lookback: number;

  constructor(lookback = DEFAULT_FINALITY_LOOKBACK) {
    this.lookback = Math.max(1, lookback);
  }

  /** Records that `l2` became safe while deriving from `derivedFrom` (updated in place for the same L1 block). */
  onSafeHead(l2: L2BlockRef, derivedFrom: L1BlockRef): void {
    const last = this.entries[this.entries.length - 1];
    if (last !== undefined && last.derivedFrom.number === derivedFrom.number) {
      this.entries[this.entries.length - 1] = { derivedFrom, l2 };
      return;
    }
    // A lower L1 number means the pipeline was reset; keep only entries below it.
    if (last !== undefined && derivedFrom.number < last.derivedFrom.number) {
      this.entries = this.entries.filter((e) => e.derivedFrom.number < derivedFrom.number);
    }
    this.entries.push({ derivedFrom, l2 });
    if (this.entries.length > this.lookback) this.entries.splice(0, this.entries.length - this.lookback);
  }

  /** The entry with the highest L2 block derived from L1 at or below `finalizedL1Number`. */
  candidate(finalizedL1Number: number): FinalityEntry | undefined {
    let best: FinalityEntry | undefined;
    for (const e of this.entries) {
      if (e.derivedFrom.number > finalizedL1Number) break;
      if (best === undefined || e.l2.number >= best.l2.number) best = e;
    }
    return best;
  }

  /** Drops entries that are now finalized (keeps the newest so the next candidate is never lower). */
  prune(finalizedL2Number: number): void {
    const keepFrom = this.entries.findIndex((e) => e.l2.number > finalizedL2Number);
    if (keepFrom > 1) this.entries.splice(0, keepFrom - 1);
  }

  reset(): void {
    this.entries = [];
  }

  get size(): number {
    return this.entries.length;
  }
}
