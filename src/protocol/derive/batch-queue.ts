/**
 * Pre-Holocene batch queue (op-node `BatchQueue`) as a pure state machine. Batches are buffered with their L1
 * inclusion block; each `nextBatch` call pulls at most one batch from the source, then scans the buffer in
 * arrival order (future → keep, drop → discard, accept → emit, undecided → wait) and, when nothing is accepted,
 * generates an empty batch once the sequencing window of the current epoch has expired.
 */
import { CriticalError, ResetError } from "../../core/errors/supernode-error.js";
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { SingularBatch } from "./batch-singular.js";
import { toSingularBatches } from "./batch-span.js";
import {
  BaseBatchStage,
  type BatchSource,
  type BatchStageResult,
  EOF,
  type InputBatch,
  NOT_ENOUGH_DATA,
} from "./batch-stage-base.js";
import { type BatchValidity, checkSingularBatch, checkSpanBatch, type SafeBlockLookup } from "./batch-validity.js";

/** A buffered batch and the L1 block it was included in. */
export interface BufferedBatch {
  readonly batch: InputBatch;
  readonly inclusion: L1BlockRef;
}

export class BatchQueue extends BaseBatchStage {
  private batches: BufferedBatch[] = [];

  /** Buffered batches (for inspection). */
  get buffered(): readonly BufferedBatch[] {
    return this.batches;
  }

  override reset(base: L1BlockRef): void {
    super.reset(base);
    this.batches = [];
  }

  private check(b: BufferedBatch, parent: L2BlockRef, l2: SafeBlockLookup, missing: number[]): BatchValidity {
    if (b.batch.kind === "singular") {
      return checkSingularBatch(this.cfg, this.l1Blocks, parent, b.batch.batch, b.inclusion);
    }
    const r = checkSpanBatch(this.cfg, this.l1Blocks, parent, b.batch.batch, b.inclusion, l2);
    for (const n of r.missing) if (!missing.includes(n)) missing.push(n);
    return r.validity;
  }

  /**
   * Returns the next singular batch on top of `parent` (the pending safe head).
   * Throws `ResetError` when the buffered epoch is inconsistent with `parent`, `CriticalError` on broken invariants.
   */
  nextBatch(parent: L2BlockRef, source: BatchSource, l2: SafeBlockLookup): BatchStageResult {
    const fromSpan = this.nextFromSpanBatch(parent);
    if (fromSpan !== undefined) return { kind: "batch", batch: fromSpan.batch, concluding: fromSpan.last };
    this.updateOrigins(source, parent);
    const behind = this.originBehind(source, parent);
    const missing: number[] = [];
    const incoming = source.next();
    const outOfData = incoming === undefined;
    if (incoming !== undefined && !behind) {
      if (this.l1Blocks.length === 0) throw new CriticalError("BATCH_QUEUE", "cannot add batch, no origin prepared");
      const b: BufferedBatch = { batch: incoming, inclusion: this.originRef };
      if (this.check(b, parent, l2, missing) !== "drop") this.batches.push(b);
    }
    if (behind) return outOfData ? EOF : NOT_ENOUGH_DATA;
    const found = this.deriveNextBatch(outOfData, parent, l2, missing);
    if (found === undefined) return { kind: outOfData ? "eof" : "not-enough-data", missingL2: missing };
    if (found.kind === "singular") return { kind: "batch", batch: found.batch, concluding: true };
    const conv = toSingularBatches(found.batch, this.l1Blocks, parent);
    if (!conv.ok) throw new CriticalError("BATCH_QUEUE", conv.error);
    this.nextSpan = conv.batches;
    const batch = this.popNextBatch(parent);
    return { kind: "batch", batch, concluding: this.nextSpan.length === 0 };
  }

  private deriveNextBatch(
    outOfData: boolean,
    parent: L2BlockRef,
    l2: SafeBlockLookup,
    missing: number[],
  ): InputBatch | { kind: "singular"; batch: SingularBatch } | undefined {
    if (this.l1Blocks.length === 0) throw new CriticalError("BATCH_QUEUE", "cannot derive next batch, no origin");
    if (!this.epochConsistent(parent)) {
      throw new ResetError("BATCH_QUEUE_EPOCH", "buffered L1 epoch does not match safe head origin", {
        epoch: this.l1Blocks[0]!.number,
        parentOrigin: parent.l1origin.number,
      });
    }
    const remaining: BufferedBatch[] = [];
    let accepted: BufferedBatch | undefined;
    for (let i = 0; i < this.batches.length; i++) {
      const b = this.batches[i]!;
      const v = this.check(b, parent, l2, missing);
      if (v === "future") remaining.push(b);
      else if (v === "drop") continue;
      else if (v === "accept") {
        accepted = b;
        remaining.push(...this.batches.slice(i + 1));
        break;
      } else if (v === "undecided") {
        remaining.push(...this.batches.slice(i));
        this.batches = remaining;
        return undefined;
      } else {
        throw new CriticalError("BATCH_QUEUE", `unexpected batch validity ${v}`);
      }
    }
    this.batches = remaining;
    if (accepted !== undefined) return accepted.batch;
    const empty = this.deriveNextEmptyBatch(outOfData, parent);
    return empty === undefined ? undefined : { kind: "singular", batch: empty };
  }
}
