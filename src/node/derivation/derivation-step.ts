/**
 * The driver loop's derivation step: pull attributes from the pipeline and apply them to the engine (consolidate
 * or build), up to a bounded number per turn, keeping attributes that failed on a temporary engine error for the
 * next turn and handing rejected ones back to the pipeline (Holocene deposits-only replacement or batch drop).
 */
import { severityOf } from "../../core/errors/supernode-error.js";
import type { DerivationPipeline } from "./types.js";
import type { ApplyResult, DerivedAttributes, EngineController } from "../engine/engine-controller.js";
import { depositsOnlyAttributes } from "../denied-txs.js";
import type { ChainMetrics } from "../metrics.js";

export interface DerivationStepDeps {
  readonly pipeline: DerivationPipeline;
  readonly controller: EngineController;
  readonly metrics?: ChainMetrics | undefined;
  /** Max attributes applied per call. */
  readonly maxSteps: number;
  /** Waits for a fair turn of the event loop (between steps). */
  readonly turn: () => Promise<void> | undefined;
  /**
   * True when the step should yield between derived blocks: the sequencer is due, or a queued unsafe payload
   * extends the unsafe head (a gossiped block is not kept waiting behind a catch-up).
   */
  readonly shouldYield: () => boolean;
  readonly aborted: () => boolean;
  /** The attributes of a denied block are being replaced (logging). */
  readonly onDenied?: ((attrs: DerivedAttributes) => void) | undefined;
}

export class DerivationStep {
  private pendingAttrs: DerivedAttributes | undefined;

  constructor(private readonly d: DerivationStepDeps) {}

  /** Forgets attributes kept for a retry (a reset restarts the pipeline). */
  reset(): void {
    this.pendingAttrs = undefined;
  }

  /** Applies attributes until the pipeline has nothing more (or the budget is used); true when anything moved. */
  async run(): Promise<boolean> {
    this.flushOwed = false;
    const progressed = await this.steps();
    if (this.flushOwed) {
      this.flushOwed = false;
      await this.d.controller.flushForkchoice();
    }
    return progressed;
  }

  /**
   * Set at a new L1 origin while the heads are owed to the EL. They go out with the next build start when it builds
   * on the unsafe head (that forkchoice update carries the same heads, and the last derived block's held newPayload
   * rides along: docs/performance.md), else in a flush before anything else is applied, or when the step ends.
   */
  private flushOwed = false;

  private async steps(): Promise<boolean> {
    const { pipeline, controller } = this.d;
    let progressed = false;
    for (let i = 0; i < this.d.maxSteps && !this.d.aborted(); i++) {
      if (i > 0) {
        // No fair turn owed (the usual case) is no wait at all, not a trip through the microtask queue.
        const turn = this.d.turn();
        if (turn !== undefined) await turn;
        if (this.d.shouldYield()) return progressed;
      }
      let attrs = this.pendingAttrs;
      this.pendingAttrs = undefined;
      if (attrs === undefined) {
        const before = pipeline.origin.number;
        const r = await pipeline.step(controller.heads.pendingSafe);
        if (pipeline.origin.number !== before && controller.forkchoicePending) this.flushOwed = true;
        if (r.kind === "eof") return progressed;
        progressed = true;
        if (r.kind === "progress") continue;
        attrs = r.attrs;
      }
      if (this.flushOwed) {
        this.flushOwed = false;
        if (attrs.parent.hash !== controller.heads.unsafe.hash) await controller.flushForkchoice();
      }
      let res: ApplyResult;
      try {
        res = await controller.applyDerived(attrs);
      } catch (err) {
        // A temporary engine failure before the block was adopted: retry the same attributes next time (the
        // pipeline has already moved past them).
        if (severityOf(err) === "temporary" && controller.heads.pendingSafe.hash === attrs.parent.hash) {
          this.pendingAttrs = attrs;
        }
        throw err;
      }
      if (res === "denied") {
        // Interop: the block these attributes build is denied; build its deposits-only replacement instead, and
        // drop the rest of its channel (its later blocks were built on the denied one), as op-node does.
        this.pendingAttrs = pipeline.invalidated(attrs, true) ?? {
          ...attrs,
          attributes: depositsOnlyAttributes(attrs.attributes),
          depositsOnly: true,
        };
        this.d.onDenied?.(attrs);
        continue;
      }
      if (res === "invalid") {
        const replacement = pipeline.invalidated(attrs);
        if (replacement !== undefined) this.pendingAttrs = replacement;
        else controller.revertPendingSafe();
        continue;
      }
      this.d.metrics?.derivedBlocks.inc({ path: res === "consolidated" ? "consolidate" : "build" });
    }
    return progressed;
  }
}
