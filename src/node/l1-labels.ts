/**
 * The L1 labels one virtual node works with (head / safe / finalized), polled once per driver turn from the shared
 * L1 client, and the check that L1 never reorgs the block the node saw as finalized.
 */
import { CriticalError, severityOf } from "../core/errors/supernode-error.js";
import type { L1BlockRef } from "../core/types/block-ref.js";
import { ZERO_L1_REF } from "./engine/heads.js";
import type { L1Source } from "./ports.js";

export interface L1LabelSet {
  readonly head: L1BlockRef;
  readonly safe: L1BlockRef;
  readonly finalized: L1BlockRef;
}

export class L1Labels {
  private last: L1LabelSet = { head: ZERO_L1_REF, safe: ZERO_L1_REF, finalized: ZERO_L1_REF };

  constructor(private readonly l1: L1Source) {}

  get current(): L1LabelSet {
    return this.last;
  }

  /** Reads the labels (the client's last poll when it tracks them; a temporary failure keeps the previous value). */
  async poll(): Promise<void> {
    const l1 = this.l1;
    const label = async (name: "latest" | "safe" | "finalized", prev: L1BlockRef) => {
      const cached = l1.getLabel?.(name);
      if (cached !== undefined) return cached;
      try {
        return await l1.l1BlockRefByLabel(name);
      } catch (err) {
        if (severityOf(err) === "temporary") return prev;
        throw err;
      }
    };
    const finalized = await label("finalized", this.last.finalized);
    await this.checkFinalized(this.last.finalized, finalized);
    this.last = {
      head: await label("latest", this.last.head),
      safe: await label("safe", this.last.safe),
      finalized,
    };
  }

  /**
   * L1 finality is final: if the block the node last saw as finalized is no longer canonical, the L1 reorged
   * finalized data, which derivation cannot survive (what was derived from it may already be relied upon). As in
   * op-node, that is a critical error for this chain, surfaced once.
   */
  private async checkFinalized(prev: L1BlockRef, next: L1BlockRef): Promise<void> {
    if (prev.number === 0 || next.hash === prev.hash) return;
    let canonical: L1BlockRef | undefined;
    if (next.number === prev.number) canonical = next;
    else {
      try {
        canonical = await this.l1.l1BlockRefByNumber(prev.number);
      } catch (err) {
        if (severityOf(err) === "temporary") return; // checked again on the next poll
        throw err;
      }
    }
    if (canonical.hash === prev.hash) return;
    throw new CriticalError(
      "L1_FINALIZED_REORG",
      `L1 reorged finalized block ${prev.number} (${prev.hash} replaced by ${canonical.hash})`,
      { number: prev.number, was: prev.hash, now: canonical.hash },
    );
  }
}
