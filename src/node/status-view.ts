/**
 * What a virtual node reports (`stack_syncStatus`, outputs, the SafeDB lookup, head metrics): a read-only view over
 * the node's heads, L1 labels and derivation origin, kept apart from the driver loop that moves them.
 */
import type { L1BlockRef, L2BlockRef, SyncStatus } from "../core/types/block-ref.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import type { OutputAtBlock, SafeHeadAtL1 } from "./chain-view.js";
import type { ElSync } from "./sync/el-sync.js";
import type { EngineController } from "./engine/engine-controller.js";
import { blockNumberAtTimestamp, ZERO_L1_REF, ZERO_L2_REF } from "./engine/heads.js";
import type { UnsafePayloadQueue } from "./sync/unsafe-queue.js";
import { NodeRpcError } from "./errors.js";
import type { L1Labels } from "./l1-labels.js";
import type { ChainMetrics } from "./metrics.js";
import { computeOutputAtBlock } from "./output.js";
import { OutputCache } from "./output-cache.js";
import type { ExecutionEngine, ExecutionPayloadEnvelope, SafeDbPort } from "./ports.js";

export interface StatusSource {
  readonly rollup: RollupConfig;
  readonly engine: ExecutionEngine;
  readonly controller: EngineController;
  readonly elSync: ElSync;
  readonly unsafeQueue: UnsafePayloadQueue;
  readonly l1: L1Labels;
  /** The derivation origin; undefined until the node found its heads. */
  origin(): L1BlockRef | undefined;
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
  readonly safeDb?: SafeDbPort | undefined;
  readonly metrics?: ChainMetrics | undefined;
}

export class StatusView {
  /** Outputs of canonical blocks already computed (`stack_outputAtBlock` from memory). */
  private readonly outputs = new OutputCache();

  constructor(private readonly s: StatusSource) {}

  /** The heads to report: the EL-acknowledged ones (during EL sync they are only set after the EL accepted them). */
  private heads() {
    return this.s.elSync.syncing ? this.s.controller.heads : this.s.controller.publishedHeads;
  }

  syncStatus(): SyncStatus {
    const h = this.heads();
    const queued = this.s.unsafeQueue.lowest();
    const queuedRef = queued === undefined ? ZERO_L2_REF : queued.ref;
    const l1 = this.s.l1.current;
    return {
      current_l1: this.s.origin() ?? ZERO_L1_REF,
      current_l1_finalized: l1.finalized,
      head_l1: l1.head,
      safe_l1: l1.safe,
      finalized_l1: l1.finalized,
      unsafe_l2: h.unsafe,
      safe_l2: h.safe,
      finalized_l2: h.finalized,
      pending_safe_l2: h.pendingSafe,
      queued_unsafe_l2: queuedRef,
      engine_sync_target: h.unsafe,
      local_safe_l2: h.localSafe,
      cross_unsafe_l2: h.crossUnsafe,
    };
  }

  async outputAtBlock(n: number): Promise<OutputAtBlock> {
    const c = this.s.controller;
    const h = c.publishedHeads;
    const heads = [h.unsafe, h.safe, h.localSafe, h.finalized];
    const cached = this.outputs.get(n, heads, h.finalized.number);
    if (cached !== undefined) return cached;
    const out = await computeOutputAtBlock(this.s.rollup, this.s.engine, this.s.refFromPayload, n);
    this.outputs.put(out, heads, c.publishedHeads.finalized.number);
    return out;
  }

  async safeHeadAtL1Block(l1Number: number): Promise<SafeHeadAtL1> {
    if (this.s.safeDb === undefined) {
      throw new NodeRpcError(
        "SAFEDB_DISABLED",
        `failed to get safe head at l1 block 0x${l1Number.toString(16)}: safe head database not enabled`,
      );
    }
    const e = await this.s.safeDb.safeHeadAtL1Block(l1Number);
    if (e === undefined) throw new NodeRpcError("SAFE_HEAD_NOT_FOUND", "not found");
    return e;
  }

  async l2BlockRefByTimestamp(ts: number): Promise<L2BlockRef | undefined> {
    const n = blockNumberAtTimestamp(this.s.rollup, ts);
    if (n === undefined) return undefined;
    return this.s.engine.l2BlockRefByNumber(n);
  }

  async outputAtTimestamp(ts: number): Promise<OutputAtBlock | undefined> {
    const n = blockNumberAtTimestamp(this.s.rollup, ts);
    if (n === undefined) return undefined;
    try {
      return await this.outputAtBlock(n);
    } catch (err) {
      if (err instanceof NodeRpcError && err.code === "NOT_FOUND") return undefined;
      throw err;
    }
  }

  publishMetrics(): void {
    const m = this.s.metrics;
    if (m === undefined) return;
    const h = this.heads();
    m.headNumber.set({ head: "unsafe" }, h.unsafe.number);
    m.headNumber.set({ head: "pending_safe" }, h.pendingSafe.number);
    m.headNumber.set({ head: "local_safe" }, h.localSafe.number);
    m.headNumber.set({ head: "safe" }, h.safe.number);
    m.headNumber.set({ head: "finalized" }, h.finalized.number);
    const origin = this.s.origin();
    if (origin !== undefined) m.derivationOrigin.set(origin.number);
  }
}
