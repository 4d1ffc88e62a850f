/**
 * The driver loop's safety steps after derivation: `safe` following the supernode's verification once interop is
 * active (the super authority, op-supernode §2.9), and finality (op-node's finalizer, capped by what interop
 * verified with finalized L1 data).
 */
import type { Logger } from "../../core/logger.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { EngineController } from "../engine/engine-controller.js";
import type { Finalizer } from "./finalizer.js";
import type { ExecutionEngine, L1Source, SuperAuthority } from "../ports.js";

export interface SafetyStepsDeps {
  readonly engine: ExecutionEngine;
  readonly controller: EngineController;
  readonly finalizer: Finalizer;
  readonly l1: L1Source;
  readonly logger: Logger;
  readonly superAuthority?: SuperAuthority | undefined;
}

export class SafetySteps {
  constructor(private readonly d: SafetyStepsDeps) {}

  /** The canonical block `id` of this chain, or undefined when the EL has another block at that height. */
  private async refOf(id: BlockId): Promise<L2BlockRef | undefined> {
    const ref = await this.d.engine.l2BlockRefByNumber(id.number);
    return ref?.hash === id.hash ? ref : undefined;
  }

  /** Interop: `safe` follows the newest verified block (never above local-safe) once interop is active. */
  async superSafety(): Promise<void> {
    const a = this.d.superAuthority;
    const h = this.d.controller.heads;
    if (a === undefined || !a.isActiveAt(h.localSafe.timestamp)) return;
    const v = await a.verifiedHead();
    if (v === undefined) return;
    const target = v.number >= h.localSafe.number ? h.localSafe : await this.refOf(v);
    if (target !== undefined && this.d.controller.setSafe(target))
      this.d.logger.debug({ safe: target.number }, "verified safe");
  }

  /**
   * Promotes the finality candidate for the finalized L1 block `fin`. Returns "l1-reorg" when the candidate's L1
   * block is no longer canonical (the node must reset).
   */
  async finality(fin: L1BlockRef): Promise<"ok" | "l1-reorg"> {
    const c = this.d.controller;
    if (fin.number === 0) return "ok";
    let cand = this.d.finalizer.candidate(fin.number);
    if (cand === undefined || cand.l2.number <= c.heads.finalized.number) return "ok";
    const canon = await this.d.l1.l1BlockRefByNumber(cand.derivedFrom.number);
    if (canon.hash !== cand.derivedFrom.hash) return "l1-reorg";
    const a = this.d.superAuthority;
    if (a?.isActiveAt(cand.l2.timestamp)) {
      // Interop: only what was verified with finalized L1 data (on every chain) is final.
      const v = await a.verifiedAtL1(fin.number);
      if (v === undefined || v.number <= c.heads.finalized.number) return "ok";
      if (v.number < cand.l2.number) {
        const ref = await this.refOf(v);
        if (ref === undefined) return "ok";
        cand = { derivedFrom: cand.derivedFrom, l2: ref };
      }
    }
    if (c.setFinalized(cand.l2)) {
      this.d.finalizer.prune(cand.l2.number);
      await c.flushForkchoice();
    }
    return "ok";
  }
}
