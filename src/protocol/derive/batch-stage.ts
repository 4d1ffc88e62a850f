/**
 * Holocene batch stage (op-node `BatchStage`) as a pure state machine: no buffering of future batches; span
 * batches pass the prefix checks and are expanded; an invalid batch flushes the rest of its channel; past
 * batches are skipped; when the upstream is exhausted an empty batch may be generated (sequencing window expiry).
 */
import { CriticalError, ResetError } from "../../core/errors/supernode-error.js";
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { SingularBatch } from "./batch-singular.js";
import { type SpanBatch, toSingularBatches } from "./batch-span.js";
import type { BatchQueue } from "./batch-queue.js";
import { BaseBatchStage, type BatchSource, type BatchStageResult, NOT_ENOUGH_DATA } from "./batch-stage-base.js";
import { checkSingularBatch, checkSpanBatchPrefix, type SafeBlockLookup } from "./batch-validity.js";

type Candidate =
  | { readonly kind: "batch"; readonly batch: SingularBatch }
  | { readonly kind: "eof" }
  | { readonly kind: "retry"; readonly missingL2: readonly number[] };

export class BatchStage extends BaseBatchStage {
  /** A span batch whose prefix check is waiting for L2 data from the caller. */
  private pendingSpan: { batch: SpanBatch; inclusion: L1BlockRef } | undefined;

  /** Holocene activation: takes over the batch queue's buffered L1 blocks and origin. */
  static fromBatchQueue(queue: BatchQueue, cfg: ConstructorParameters<typeof BatchStage>[0]): BatchStage {
    const stage = new BatchStage(cfg, queue.origin);
    stage.l1Blocks = [...queue.bufferedL1Blocks];
    return stage;
  }

  override reset(base: L1BlockRef): void {
    super.reset(base);
    this.pendingSpan = undefined;
  }

  /** Drops the cached span and flushes the upstream channel. */
  flushChannel(source: BatchSource): void {
    this.nextSpan = [];
    this.pendingSpan = undefined;
    source.flushChannel();
  }

  /**
   * Returns the next singular batch on top of `parent` (the pending safe head); every emitted batch is
   * concluding. Throws `ResetError` when the buffered epoch is inconsistent with `parent`.
   */
  nextBatch(parent: L2BlockRef, source: BatchSource, l2: SafeBlockLookup): BatchStageResult {
    this.updateOrigins(source, parent);
    if (this.originBehind(source, parent) || parent.l1origin.number === this.originRef.number) {
      // Drain upstream until the origin is ahead of the parent's origin.
      return source.next() === undefined ? { kind: "eof", missingL2: [] } : NOT_ENOUGH_DATA;
    }
    if (this.l1Blocks.length < 2) {
      throw new CriticalError("BATCH_STAGE", "unexpected low buffered origin count", {
        origin: this.originRef.number,
        parentOrigin: parent.l1origin.number,
      });
    }
    if (!this.epochConsistent(parent)) {
      throw new ResetError("BATCH_STAGE_EPOCH", "buffered L1 epoch does not match safe head origin", {
        epoch: this.l1Blocks[0]!.number,
        parentOrigin: parent.l1origin.number,
      });
    }
    const cand = this.nextCandidate(parent, source, l2);
    if (cand.kind === "eof") {
      const empty = this.deriveNextEmptyBatch(true, parent);
      return empty === undefined ? { kind: "eof", missingL2: [] } : { kind: "batch", batch: empty, concluding: true };
    }
    if (cand.kind === "retry") return { kind: "not-enough-data", missingL2: cand.missingL2 };
    switch (checkSingularBatch(this.cfg, this.l1Blocks, parent, cand.batch, this.originRef)) {
      case "accept":
        return { kind: "batch", batch: cand.batch, concluding: true };
      case "past":
      case "undecided":
        return NOT_ENOUGH_DATA;
      case "drop":
        this.flushChannel(source);
        return NOT_ENOUGH_DATA;
      default:
        throw new CriticalError("BATCH_STAGE", "impossible batch validity (future) under Holocene");
    }
  }

  private nextCandidate(parent: L2BlockRef, source: BatchSource, l2: SafeBlockLookup): Candidate {
    const fromSpan = this.nextFromSpanBatch(parent);
    if (fromSpan !== undefined) return { kind: "batch", batch: fromSpan.batch };
    let span: { batch: SpanBatch; inclusion: L1BlockRef };
    if (this.pendingSpan !== undefined) {
      span = this.pendingSpan;
      this.pendingSpan = undefined;
    } else {
      const input = source.next();
      if (input === undefined) return { kind: "eof" };
      if (input.kind === "singular") return { kind: "batch", batch: input.batch };
      span = { batch: input.batch, inclusion: this.originRef };
    }
    const check = checkSpanBatchPrefix(this.cfg, this.l1Blocks, parent, span.batch, span.inclusion, l2);
    switch (check.validity) {
      case "accept":
        break;
      case "past":
        return { kind: "retry", missingL2: [] };
      case "drop":
        this.flushChannel(source);
        return { kind: "retry", missingL2: [] };
      case "undecided":
        // Keep the span until the caller supplies the missing L2 blocks (op-node retries the fetch).
        if (check.missing.length > 0) this.pendingSpan = span;
        return { kind: "retry", missingL2: check.missing };
      default:
        throw new CriticalError("BATCH_STAGE", "impossible future span batch under Holocene");
    }
    const conv = toSingularBatches(span.batch, this.l1Blocks, parent);
    if (!conv.ok) {
      this.flushChannel(source);
      return { kind: "retry", missingL2: [] };
    }
    this.nextSpan = conv.batches;
    if (this.nextSpan.length === 0) return { kind: "retry", missingL2: [] };
    return { kind: "batch", batch: this.popNextBatch(parent) };
  }
}
