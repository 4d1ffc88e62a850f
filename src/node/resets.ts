/**
 * A virtual node's resets: the pending reset's reason, finding the L2 heads again (op-node `FindL2Heads`) and
 * restarting finality, derivation and the pipeline on them, the callers waiting for it (`admin_resetDerivationPipeline`),
 * and the two errors that ask for one (a reset-severity error, an execution client that lost its chain).
 */
import { SupernodeError } from "../core/errors/supernode-error.js";
import type { L2BlockRef } from "../core/types/block-ref.js";
import type { ChainNodeConfig, ChainNodeDeps } from "./chain-node-types.js";
import type { DerivationStep } from "./derivation/derivation-step.js";
import type { DerivationPipeline } from "./derivation/types.js";
import type { ElSync } from "./sync/el-sync.js";
import type { EngineController } from "./engine/engine-controller.js";
import { findL2Heads, resetSafeDb } from "./sync/find-heads.js";
import type { Finalizer } from "./finality/finalizer.js";
import type { HealthTracker, RepeatGate } from "./health.js";

export interface ResetParts {
  readonly cfg: ChainNodeConfig;
  readonly deps: ChainNodeDeps;
  readonly controller: EngineController;
  readonly finalizer: Finalizer;
  readonly derivation: DerivationStep;
  readonly pipeline: DerivationPipeline;
  readonly elSync: ElSync;
  readonly elSafeOffsetBlocks: number;
  readonly tracker: HealthTracker;
  /** Quiets repeating warnings (a reset loop must not write megabytes of log). */
  readonly gate: RepeatGate;
}

export class Resets {
  /** Why the next loop turn resets; undefined when none is pending. A node starts with one. */
  requested: string | undefined = "startup";
  #initialised = false;
  #waiters: (() => void)[] = [];
  readonly #p: ResetParts;

  constructor(parts: ResetParts) {
    this.#p = parts;
  }

  /** The node has found its heads (the first reset is done). */
  get initialised(): boolean {
    return this.#initialised;
  }

  /** Asks the loop for a reset and resolves once one has run (or the node stopped). */
  requestAndWait(reason: string): Promise<void> {
    const done = new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.requested = reason;
    return done;
  }

  /** Lets every waiter go (the node stopped). */
  releaseWaiters(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** A reset-severity error from a loop step: log it (quieted when it repeats) and reset on the next turn. */
  onResetError(err: unknown): void {
    const code = err instanceof SupernodeError ? err.code : undefined;
    const g = this.#p.gate.pass(`reset-required:${code}`);
    const fields = g.quieted > 0 ? { err: String(err), repeated: g.quieted } : { err: String(err) };
    if (g.loud) this.#p.deps.logger.warn(fields, "reset required");
    else this.#p.deps.logger.debug(fields, "reset required");
    this.requested = code ?? "reset";
  }

  /**
   * A SYNCING answer outside EL sync means the execution client does not know a block we build on: if it no longer
   * has our safe head either, it lost its chain (wiped, restored from an old backup) and the node resets — finding
   * the heads again from what the EL has, then re-deriving from L1 — as op-node does after a restart.
   */
  async elLostChain(err: unknown): Promise<boolean> {
    const p = this.#p;
    if (!(err instanceof SupernodeError) || err.code !== "ENGINE_SYNCING" || p.elSync.syncing) return false;
    const safe = p.controller.heads.safe;
    const known = await p.deps.engine.l2BlockRefByHash(safe.hash).catch(() => null);
    if (known !== undefined) return false; // the EL has it (or did not answer): an ordinary temporary error
    p.deps.logger.warn(
      { safe: { number: safe.number, hash: safe.hash } },
      "execution client lost its chain (wiped?); resetting to re-derive from what it has",
    );
    this.requested = "el-lost-chain";
    return true;
  }

  /** Runs the pending reset: the heads found are forced into the EL, the SafeDB and the pipeline restart on them. */
  async run(reason: string): Promise<void> {
    const { cfg, deps, controller } = this.#p;
    deps.metrics?.resets.inc({ reason });
    const found = await findL2Heads(cfg.rollup, deps.engine, deps.l1, deps.safeDb, {
      // op-node skips the genesis check in EL-sync mode (the EL may not serve it yet).
      skipGenesisCheck: this.#p.elSync.syncing,
      elSafeOffsetBlocks: this.#p.elSafeOffsetBlocks,
    });
    await controller.forceReset(found.unsafe, found.safe, found.finalized);
    await resetSafeDb(cfg.rollup, deps.l1, deps.safeDb, found);
    this.#p.finalizer.reset();
    this.#p.derivation.reset();
    await this.#p.pipeline.reset(found.safe);
    this.requested = undefined;
    this.#initialised = true;
    this.#p.tracker.resetDone(reason);
    const id = (r: L2BlockRef) => ({ number: r.number, hash: r.hash });
    const g = this.#p.gate.pass(`reset:${reason}`);
    const fields = {
      reason,
      how: found.how,
      unsafe: id(found.unsafe),
      safe: id(found.safe),
      finalized: id(found.finalized),
    };
    if (g.loud) deps.logger.info(g.quieted > 0 ? { ...fields, repeated: g.quieted } : fields, "reset: found L2 heads");
    else deps.logger.debug(fields, "reset: found L2 heads");
    this.releaseWaiters();
  }
}
