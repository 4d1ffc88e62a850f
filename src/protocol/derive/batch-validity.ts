/**
 * Batch validity rules per fork (op-node `batches.go`): `checkSingularBatch`, `checkSpanBatchPrefix` and
 * `checkSpanBatch` return a validity value, never throw.
 *
 * Span batches that overlap the safe chain need L2 data (the parent block and the overlapping safe blocks). Pure
 * code cannot fetch: the caller passes a synchronous `SafeBlockLookup` over data it prefetched (see
 * `spanBatchL2Requirements`); a block the lookup does not have yields `"undecided"` and is listed in `missing`.
 */
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import { isForkActivationBlock, isForkActive, type RollupConfig } from "../rollup-config.js";
import type { SingularBatch } from "./batch-singular.js";
import {
  matchesCheck,
  type SpanBatch,
  spanLastEpoch,
  spanLastTimestamp,
  spanStartEpoch,
  spanStartTimestamp,
} from "./batch-span.js";
import { maxSequencerDrift } from "./chain-spec.js";
import { TX_TYPE_DEPOSIT, TX_TYPE_POST_EXEC, TX_TYPE_SET_CODE } from "./span-batch-tx.js";

/** Outcome of a batch check. */
export type BatchValidity = "drop" | "accept" | "undecided" | "future" | "past";

/** Safe L2 chain data needed by span-batch checks that overlap the safe chain. */
export interface SafeBlockLookup {
  /** The safe L2 block reference at `number`, or undefined when not (yet) available. */
  l2BlockRefByNumber(number: number): L2BlockRef | undefined;
  /** The safe L2 block's transactions (deposits included, in block order) and its reference. */
  safeBlockByNumber(
    number: number,
  ): { readonly ref: L2BlockRef; readonly transactions: readonly Uint8Array[] } | undefined;
}

/** A lookup that has nothing (every overlap check is undecided). */
export const EMPTY_SAFE_BLOCK_LOOKUP: SafeBlockLookup = {
  l2BlockRefByNumber: () => undefined,
  safeBlockByNumber: () => undefined,
};

/** Whether `ts` is the activation block of a fork whose activation block must carry no user txs. */
function isNoTxActivationBlock(cfg: RollupConfig, ts: number): boolean {
  return (
    isForkActivationBlock(cfg, "jovian", ts) ||
    isForkActivationBlock(cfg, "karst", ts) ||
    isForkActivationBlock(cfg, "lagoon", ts)
  );
}

/**
 * Transaction rules shared by singular and span checks: non-empty, no deposits, set-code only from Isthmus, PostExec
 * (0x7D) only once Sequencer-Defined Metering is active (Lagoon).
 */
function txsValid(cfg: RollupConfig, ts: number, txs: readonly Uint8Array[]): boolean {
  const isthmus = isForkActive(cfg, "isthmus", ts);
  for (const tx of txs) {
    if (tx.length === 0) return false;
    if (tx[0] === TX_TYPE_DEPOSIT) return false;
    if (!isthmus && tx[0] === TX_TYPE_SET_CODE) return false;
    if (tx[0] === TX_TYPE_POST_EXEC && !isForkActive(cfg, "lagoon", ts)) return false;
  }
  return true;
}

/**
 * Checks a singular batch against the safe head `safeHead`.
 * @param l1Blocks buffered L1 blocks starting at the safe head's epoch
 * @param inclusion L1 block in which the batch was included
 */
export function checkSingularBatch(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  safeHead: L2BlockRef,
  batch: SingularBatch,
  inclusion: L1BlockRef,
): BatchValidity {
  if (l1Blocks.length === 0) return "undecided";
  const epoch = l1Blocks[0]!;
  const next = safeHead.timestamp + cfg.block_time;
  const holocene = isForkActive(cfg, "holocene", inclusion.timestamp);
  if (batch.timestamp > next) return holocene ? "drop" : "future";
  if (batch.timestamp < next) return holocene ? "past" : "drop";
  if (batch.parentHash !== safeHead.hash) return "drop";
  if (batch.epochNum + cfg.seq_window_size < inclusion.number) return "drop";
  let origin = epoch;
  if (batch.epochNum < epoch.number) return "drop";
  if (batch.epochNum === epoch.number + 1) {
    if (l1Blocks.length < 2) return "undecided";
    origin = l1Blocks[1]!;
  } else if (batch.epochNum !== epoch.number) {
    return "drop";
  }
  if (batch.epochHash !== origin.hash) return "drop";
  if (batch.timestamp < origin.timestamp) return "drop";
  if (isNoTxActivationBlock(cfg, batch.timestamp) && batch.transactions.length > 0) return "drop";
  if (batch.timestamp > origin.timestamp + maxSequencerDrift(cfg, origin.timestamp)) {
    if (batch.transactions.length > 0) return "drop";
    if (epoch.number === origin.number) {
      if (l1Blocks.length < 2) return "undecided";
      if (batch.timestamp >= l1Blocks[1]!.timestamp) return "drop";
    }
  }
  return txsValid(cfg, batch.timestamp, batch.transactions) ? "accept" : "drop";
}

/** Block numbers of the safe chain a span-batch check needs: the parent and the overlapping safe blocks. */
export function spanBatchL2Requirements(cfg: RollupConfig, safeHead: L2BlockRef, batch: SpanBatch): number[] {
  const next = safeHead.timestamp + cfg.block_time;
  const first = spanStartTimestamp(batch);
  if (first >= next || first > safeHead.timestamp) return [];
  if ((safeHead.timestamp - first) % cfg.block_time !== 0) return [];
  const parentNum = safeHead.number - (safeHead.timestamp - first) / cfg.block_time - 1;
  const out: number[] = [];
  for (let n = parentNum; n <= safeHead.number; n++) if (n >= 0) out.push(n);
  return out;
}

/** Result of the span-batch prefix checks. */
export interface SpanPrefixCheck {
  readonly validity: BatchValidity;
  /** The L2 parent of the span's first block, when determined. */
  readonly parent: L2BlockRef | undefined;
  /** L2 block numbers the lookup did not have (validity is "undecided"). */
  readonly missing: readonly number[];
}

/** Span-batch prefix checks (op-node `checkSpanBatchPrefix`), used alone by the Holocene batch stage. */
export function checkSpanBatchPrefix(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  safeHead: L2BlockRef,
  batch: SpanBatch,
  inclusion: L1BlockRef,
  l2: SafeBlockLookup = EMPTY_SAFE_BLOCK_LOOKUP,
): SpanPrefixCheck {
  const result = (validity: BatchValidity, parent?: L2BlockRef, missing: number[] = []): SpanPrefixCheck => ({
    validity,
    parent,
    missing,
  });
  if (l1Blocks.length === 0) return result("undecided");
  const epoch = l1Blocks[0]!;
  const startEpoch = spanStartEpoch(batch);
  let origin = epoch;
  if (startEpoch === epoch.number + 1) {
    if (l1Blocks.length < 2) return result("undecided");
    origin = l1Blocks[1]!;
  }
  if (!isForkActive(cfg, "delta", origin.timestamp)) return result("drop");
  const next = safeHead.timestamp + cfg.block_time;
  const holocene = isForkActive(cfg, "holocene", inclusion.timestamp);
  const first = spanStartTimestamp(batch);
  if (first > next) return result(holocene ? "drop" : "future");
  if (spanLastTimestamp(batch) < next) return result(holocene ? "past" : "drop");
  let parent = safeHead;
  if (first < next) {
    if (first > safeHead.timestamp) return result("drop");
    if ((safeHead.timestamp - first) % cfg.block_time !== 0) return result("drop");
    const parentNum = safeHead.number - (safeHead.timestamp - first) / cfg.block_time - 1;
    const ref = l2.l2BlockRefByNumber(parentNum);
    if (ref === undefined) return result("undecided", undefined, [parentNum]);
    parent = ref;
  }
  if (!matchesCheck(batch.parentCheck, parent.hash)) return result("drop", parent);
  if (startEpoch + cfg.seq_window_size < inclusion.number) return result("drop", parent);
  if (startEpoch > parent.l1origin.number + 1) return result("drop", parent);
  const endEpoch = spanLastEpoch(batch);
  let originChecked = false;
  for (const b of l1Blocks) {
    if (b.number === endEpoch) {
      if (!matchesCheck(batch.l1OriginCheck, b.hash)) return result("drop", parent);
      originChecked = true;
      break;
    }
  }
  if (!originChecked) return result("undecided", parent);
  if (startEpoch < parent.l1origin.number) return result("drop", parent);
  return result("accept", parent);
}

/** Full span-batch checks (op-node `checkSpanBatch`, pre-Holocene batch queue). */
export function checkSpanBatch(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  safeHead: L2BlockRef,
  batch: SpanBatch,
  inclusion: L1BlockRef,
  l2: SafeBlockLookup = EMPTY_SAFE_BLOCK_LOOKUP,
): { readonly validity: BatchValidity; readonly missing: readonly number[] } {
  const prefix = checkSpanBatchPrefix(cfg, l1Blocks, safeHead, batch, inclusion, l2);
  if (prefix.validity !== "accept") return { validity: prefix.validity, missing: prefix.missing };
  const parent = prefix.parent!;
  const ok = (validity: BatchValidity, missing: number[] = []) => ({ validity, missing });
  const startEpoch = spanStartEpoch(batch);
  let originIdx = 0;
  let originAdvanced = startEpoch === parent.l1origin.number + 1;
  const els = batch.elements;
  for (let i = 0; i < els.length; i++) {
    const el = els[i]!;
    if (el.timestamp <= safeHead.timestamp) continue;
    if (el.epochNum < safeHead.l1origin.number) return ok("drop");
    let origin: L1BlockRef | undefined;
    for (let j = originIdx; j < l1Blocks.length; j++) {
      if (l1Blocks[j]!.number === el.epochNum) {
        origin = l1Blocks[j]!;
        originIdx = j;
        break;
      }
    }
    if (origin === undefined) return ok("drop");
    if (i > 0) originAdvanced = el.epochNum > els[i - 1]!.epochNum;
    if (el.timestamp < origin.timestamp) return ok("drop");
    if (el.timestamp > origin.timestamp + maxSequencerDrift(cfg, origin.timestamp)) {
      if (el.transactions.length > 0) return ok("drop");
      if (!originAdvanced) {
        if (originIdx + 1 >= l1Blocks.length) return ok("undecided");
        if (el.timestamp >= l1Blocks[originIdx + 1]!.timestamp) return ok("drop");
      }
    }
    if (!txsValid(cfg, el.timestamp, el.transactions)) return ok("drop");
  }
  const next = safeHead.timestamp + cfg.block_time;
  if (spanStartTimestamp(batch) < next) {
    const missing: number[] = [];
    const overlap = safeHead.number - parent.number;
    for (let i = 0; i < overlap; i++) {
      const num = parent.number + i + 1;
      const safe = l2.safeBlockByNumber(num);
      if (safe === undefined) {
        missing.push(num);
        continue;
      }
      const batchTxs = els[i]!.transactions;
      let deposits = 0;
      for (const tx of safe.transactions) if (tx[0] === TX_TYPE_DEPOSIT) deposits++;
      if (safe.transactions.length - deposits !== batchTxs.length) return ok("drop");
      for (let j = 0; j < batchTxs.length; j++) {
        if (!equalBytes(safe.transactions[j + deposits]!, batchTxs[j]!)) return ok("drop");
      }
      if (safe.ref.l1origin.number !== els[i]!.epochNum) return ok("drop");
    }
    if (missing.length > 0) return ok("undecided", missing);
  }
  return ok("accept");
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
