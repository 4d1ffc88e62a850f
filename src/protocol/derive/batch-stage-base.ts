/**
 * State shared by the pre-Holocene batch queue and the Holocene batch stage (op-node `baseBatchStage`): the last
 * seen traversal origin, the buffered L1 blocks starting at the safe head's epoch, and the remaining singular
 * batches of the span batch being consumed.
 */
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import type { RollupConfig } from "../rollup-config.js";
import type { SingularBatch } from "./batch-singular.js";
import type { SpanBatch } from "./batch-span.js";
import type { SafeBlockLookup } from "./batch-validity.js";

/** A batch as delivered by the channel reader. */
export type InputBatch =
  | { readonly kind: "singular"; readonly batch: SingularBatch }
  | { readonly kind: "span"; readonly batch: SpanBatch };

/**
 * The upstream of a batch stage (the channel reader over the channel bank/assembler), driven synchronously.
 * `next()` returns the next batch, or undefined when the upstream has no more data for the current L1 origin
 * (EOF: the pipeline should advance L1 traversal).
 */
export interface BatchSource {
  /** The current traversal origin (L1 block the upstream is reading). */
  origin(): L1BlockRef;
  next(): InputBatch | undefined;
  /** Holocene: discard the rest of the current channel and the staging channel upstream. */
  flushChannel(): void;
}

/** Result of one `nextBatch` call. */
export type BatchStageResult =
  | {
      readonly kind: "batch";
      readonly batch: SingularBatch;
      /** Last block of its batch (local-safe may advance); false for all but the last element of a span. */
      readonly concluding: boolean;
    }
  /** The upstream is exhausted for this L1 origin; advance L1 and call again. */
  | { readonly kind: "eof"; readonly missingL2: readonly number[] }
  /** Progress was made without a batch; call again. */
  | { readonly kind: "not-enough-data"; readonly missingL2: readonly number[] };

export interface BatchStageDeps {
  readonly cfg: RollupConfig;
  readonly source: BatchSource;
  /** Safe L2 chain data for span batches that overlap the safe chain (prefetched by the caller). */
  readonly l2: SafeBlockLookup;
}

export const EOF: BatchStageResult = { kind: "eof", missingL2: [] };
export const NOT_ENOUGH_DATA: BatchStageResult = { kind: "not-enough-data", missingL2: [] };

export abstract class BaseBatchStage {
  protected originRef: L1BlockRef;
  protected l1Blocks: L1BlockRef[] = [];
  protected nextSpan: SingularBatch[] = [];

  constructor(
    protected readonly cfg: RollupConfig,
    base: L1BlockRef,
  ) {
    this.originRef = base;
    this.l1Blocks = [base];
  }

  /** The last traversal origin this stage has seen. */
  get origin(): L1BlockRef {
    return this.originRef;
  }

  /** Buffered L1 blocks (from the safe head's epoch). */
  get bufferedL1Blocks(): readonly L1BlockRef[] {
    return this.l1Blocks;
  }

  /** Pipeline reset to `base` (the L1 origin of the safe head, or the reset origin). */
  reset(base: L1BlockRef): void {
    this.originRef = base;
    this.l1Blocks = [base];
    this.nextSpan = [];
  }

  protected popNextBatch(parent: L2BlockRef): SingularBatch {
    const b = this.nextSpan.shift();
    if (b === undefined) throw new Error("popping non-existent span-batch element");
    return { ...b, parentHash: parent.hash as Hash };
  }

  /** Next element of the cached span batch if it follows `parent`; otherwise the cache is cleared. */
  protected nextFromSpanBatch(parent: L2BlockRef): { batch: SingularBatch; last: boolean } | undefined {
    if (this.nextSpan.length > 0) {
      if (this.nextSpan[0]!.timestamp === parent.timestamp + this.cfg.block_time) {
        const batch = this.popNextBatch(parent);
        return { batch, last: this.nextSpan.length === 0 };
      }
      this.nextSpan = [];
    }
    return undefined;
  }

  protected originBehind(source: BatchSource, parent: L2BlockRef): boolean {
    return source.origin().number < parent.l1origin.number;
  }

  protected updateOrigins(source: BatchSource, parent: L2BlockRef): void {
    const behind = this.originBehind(source, parent);
    const cur = source.origin();
    if (this.originRef.hash !== cur.hash || this.originRef.number !== cur.number) {
      this.originRef = cur;
      if (!behind) this.l1Blocks.push(cur);
      else this.l1Blocks = [];
    }
    if (this.l1Blocks.length > 0 && parent.l1origin.number > this.l1Blocks[0]!.number) {
      const i = this.l1Blocks.findIndex((b) => b.number === parent.l1origin.number);
      if (i >= 0) this.l1Blocks = this.l1Blocks.slice(i);
    }
  }

  /**
   * Empty-batch generation when the sequencing window of the current epoch has expired. Returns undefined
   * (EOF) when no empty batch is due; may advance the epoch by dropping `l1Blocks[0]`.
   */
  protected deriveNextEmptyBatch(outOfData: boolean, parent: L2BlockRef): SingularBatch | undefined {
    const epoch = this.l1Blocks[0]!;
    const expiry = epoch.number + this.cfg.seq_window_size;
    const force = (expiry === this.originRef.number && outOfData) || expiry < this.originRef.number;
    const firstOfEpoch = epoch.number === parent.l1origin.number + 1;
    const next = parent.timestamp + this.cfg.block_time;
    if (!force) return undefined;
    if (this.l1Blocks.length < 2) return undefined;
    const nextEpoch = this.l1Blocks[1]!;
    if (next < nextEpoch.timestamp || firstOfEpoch) {
      return {
        parentHash: parent.hash,
        epochNum: epoch.number,
        epochHash: epoch.hash,
        timestamp: next,
        transactions: [],
      };
    }
    this.l1Blocks = this.l1Blocks.slice(1);
    return undefined;
  }

  /** Whether the buffered epoch is consistent with the parent's origin (else the caller must reset). */
  protected epochConsistent(parent: L2BlockRef): boolean {
    const epoch = this.l1Blocks[0]!;
    return (
      (parent.l1origin.hash === epoch.hash && parent.l1origin.number === epoch.number) ||
      parent.l1origin.number === epoch.number - 1
    );
  }
}
