/**
 * One virtual rollup node: a single driver loop per chain that serialises everything touching the chain's
 * execution client — resets, unsafe payloads, sequencing, derivation and finality — over the ports it is given.
 */
import { isAborted, SupernodeError, severityOf, TemporaryError } from "../core/errors/supernode-error.js";
import { AbortedError } from "../core/errors/supernode-error.js";
import type { Hash } from "../core/types/primitives.js";
import type { BlockId, L1BlockRef, L2BlockRef, SyncStatus } from "../core/types/block-ref.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import { buildNodeParts } from "./chain-node-parts.js";
import type { ChainNodeConfig, ChainNodeDeps } from "./chain-node-types.js";
import type { ChainAdminControl, ChainRpcView, OutputAtBlock, SafeHeadAtL1 } from "./chain-view.js";
import type { DerivationPipeline } from "./derivation/types.js";
import type { EngineController } from "./engine/engine-controller.js";
import type { DerivationStep } from "./derivation-step.js";
import type { ElSync } from "./engine/el-sync.js";
import { findL2Heads, resetSafeDb } from "./engine/find-heads.js";
import type { Finalizer } from "./engine/finalizer.js";
import { checkPostedPayload } from "./engine/posted-payload.js";
import type { UnsafeInput } from "./engine/unsafe-input.js";
import type { UnsafePayloadQueue } from "./engine/unsafe-queue.js";
import { NodeRpcError } from "./errors.js";
import { HealthTracker, type NodeHealth, RepeatGate } from "./health.js";
import type { L1Labels } from "./l1-labels.js";
import type { ExecutionPayloadEnvelope } from "./ports.js";
import type { InteropControl, InvalidateOutcome, InvalidateRequest } from "./interop-control.js";
import type { SafetySteps } from "./safety-steps.js";
import type { SequencerDriver } from "./sequencer/sequencer-driver.js";
import type { StatusView } from "./status-view.js";

export type { ChainNodeConfig, ChainNodeDeps } from "./chain-node-types.js";

export type ChainNodeState = "created" | "running" | "stopped" | "failed";

export class ChainNode implements ChainRpcView, ChainAdminControl {
  readonly cfg: ChainNodeConfig;
  private readonly d: ChainNodeDeps;
  readonly engine: EngineController;
  private readonly pipeline: DerivationPipeline;
  private readonly finalizer: Finalizer;
  private readonly unsafe: UnsafeInput;
  private readonly seq: SequencerDriver;
  private state: ChainNodeState = "created";
  private initialised = false;
  private resetWaiters: (() => void)[] = [];
  private resetRequested: string | undefined = "startup";
  private wake: (() => void) | undefined;
  private readonly l1: L1Labels;
  private readonly safety: SafetySteps;
  private readonly view: StatusView;
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly derivation: DerivationStep;
  private readonly interop: InteropControl;
  readonly elSync: ElSync;
  private readonly elSafeOffsetBlocks: number;
  /** Temporary-error backoff state of the loop. */
  private failures = 0;
  private fatal: SupernodeError | Error | undefined;
  private readonly tracker: HealthTracker;
  /** Quiets repeating warnings (a reset loop must not write megabytes of log). */
  private readonly gate: RepeatGate;

  private constructor(cfg: ChainNodeConfig, deps: ChainNodeDeps) {
    this.cfg = cfg;
    this.d = deps;
    this.tracker = new HealthTracker(deps.clock, cfg.health);
    this.gate = new RepeatGate(deps.clock);
    const p = buildNodeParts(cfg, deps, {
      onSafeHead: (safe, derivedFrom) => this.onSafeHead(safe, derivedFrom),
      turn: () => this.turn(),
      aborted: () => this.abort.signal.aborted,
      initialised: () => this.initialised,
      busy: () =>
        this.state !== "running"
          ? "not running"
          : !this.initialised || this.resetRequested !== undefined
            ? "resetting"
            : undefined,
    });
    this.finalizer = p.finalizer;
    this.engine = p.engine;
    this.interop = p.interop;
    this.pipeline = p.pipeline;
    this.seq = p.seq;
    this.elSafeOffsetBlocks = p.elSafeOffsetBlocks;
    this.elSync = p.elSync;
    this.unsafe = p.unsafe;
    this.derivation = p.derivation;
    this.l1 = p.l1;
    this.safety = p.safety;
    this.view = p.view;
  }

  static async create(cfg: ChainNodeConfig, deps: ChainNodeDeps): Promise<ChainNode> {
    const node = new ChainNode(cfg, deps);
    await node.seq.loadPersisted();
    return node;
  }

  get status(): ChainNodeState {
    return this.state;
  }

  /** Starts the driver loop; resolves once started. The loop ends on `stop()`, on `signal`, or on a critical error. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.state !== "created") throw new Error(`chain node cannot be started in state ${this.state}`);
    this.state = "running";
    signal?.addEventListener("abort", () => void this.stop(), { once: true });
    this.loop = this.run().catch((err) => {
      this.fatal = err as Error;
      this.state = "failed";
      // The supervisor reports it (once, as the chain's `failed` state); here only the detail.
      this.d.logger.debug({ err: String(err) }, "virtual node stopped on a critical error");
    });
  }

  /** Resolves when the loop has exited (rejects with the critical error that stopped it). */
  async done(): Promise<void> {
    await this.loop;
    if (this.fatal !== undefined) throw this.fatal;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.loop;
    if (this.state === "running") this.state = "stopped";
    this.interop.failRequests(new TemporaryError("CHAIN_NOT_RUNNING", "virtual node stopped"));
    for (const w of this.resetWaiters.splice(0)) w();
  }

  // ------------------------------------------------------------------------------------------------------------
  // Driver loop

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    if ((this.cfg.startDelayMs ?? 0) > 0) await this.sleep(this.cfg.startDelayMs ?? 0);
    while (!signal.aborted) {
      let progressed = false;
      try {
        if (!this.interop.loaded) await this.interop.load(); // nothing is inserted or built before the deny list
        await this.turn();
        await this.l1.poll();
        if (this.resetRequested !== undefined) {
          await this.doReset(this.resetRequested);
          progressed = true;
        } else {
          if (this.interop.pending) progressed = (await this.interop.runRequests()) || progressed;
          const u = await this.unsafe.step(signal);
          this.markUrgent();
          progressed = u.progressed || progressed;
          if (u.elSyncFinished) this.resetRequested = "el-sync-finished"; // resume derivation from the EL's labels
          // A reset requested by the unsafe step (EL sync finished) comes before any derivation.
          if (this.resetRequested === undefined) {
            // Building a block someone waits for (its publication) is urgent work too.
            const due = this.seq.due();
            if (due) this.d.turns?.setUrgent?.(true);
            progressed = (await this.seq.step(this.initialised && !this.elSync.syncing)) || progressed;
            if (due) this.markUrgent();
            progressed = (!this.elSync.syncing && (await this.derivation.run())) || progressed;
            // A payload that arrived during derivation goes in before the safety steps' I/O.
            if (this.unsafe.insertable()) {
              progressed = (await this.unsafe.step(signal)).progressed || progressed;
              this.markUrgent();
            }
            if (!this.elSync.syncing) {
              await this.safety.superSafety();
              if ((await this.safety.finality(this.l1.current.finalized)) === "l1-reorg")
                this.resetRequested = "finality-l1-reorg";
            }
            if (!progressed) await this.engine.flushForkchoice();
          }
        }
        this.failures = 0;
        this.view.publishMetrics();
        this.tracker.stepOk(this.progressMark());
      } catch (err) {
        if (isAborted(err, signal)) break;
        const sev = severityOf(err);
        this.d.metrics?.errors.inc({ severity: sev });
        if (sev === "critical") throw err;
        this.tracker.stepFailed(err);
        this.tracker.observe(this.progressMark());
        if (sev === "reset") {
          const g = this.gate.pass(`reset-required:${(err as SupernodeError).code}`);
          const fields = g.quieted > 0 ? { err: String(err), repeated: g.quieted } : { err: String(err) };
          if (g.loud) this.d.logger.warn(fields, "reset required");
          else this.d.logger.debug(fields, "reset required");
          this.resetRequested = (err as SupernodeError).code ?? "reset";
          continue;
        }
        if (await this.elLostChain(err)) continue;
        this.failures++;
        const delay = Math.min(10_000, 2 ** Math.min(this.failures, 10) * 50);
        this.d.logger.debug({ err: String(err), delay }, "temporary error; retrying");
        await this.sleep(delay);
        continue;
      }
      if (!progressed) await this.sleep(this.idleDelay());
    }
  }

  /**
   * This chain's turns are urgent while a queued payload extends its unsafe head: inserting a gossiped block goes
   * ahead of other chains' derivation work (core/async/turns.ts).
   */
  private markUrgent(): void {
    this.d.turns?.setUrgent?.(this.unsafe.insertable());
  }

  /** Waits for a fair turn of the event loop when other chains have used this iteration's budget. */
  private turn(): Promise<void> | undefined {
    return this.d.turns?.take();
  }

  /**
   * A SYNCING answer outside EL sync means the execution client does not know a block we build on: if it no longer
   * has our safe head either, it lost its chain (wiped, restored from an old backup) and the node resets — finding
   * the heads again from what the EL has, then re-deriving from L1 — as op-node does after a restart.
   */
  private async elLostChain(err: unknown): Promise<boolean> {
    if (!(err instanceof SupernodeError) || err.code !== "ENGINE_SYNCING" || this.elSync.syncing) return false;
    const safe = this.engine.heads.safe;
    const known = await this.d.engine.l2BlockRefByHash(safe.hash).catch(() => null);
    if (known !== undefined) return false; // the EL has it (or did not answer): an ordinary temporary error
    this.d.logger.warn(
      { safe: { number: safe.number, hash: safe.hash } },
      "execution client lost its chain (wiped?); resetting to re-derive from what it has",
    );
    this.resetRequested = "el-lost-chain";
    return true;
  }

  private progressMark() {
    const h = this.engine.heads;
    return {
      l1Head: this.l1.current.head.number,
      origin: this.initialised ? this.pipeline.origin.number : 0,
      unsafe: h.unsafe.number,
      safe: h.safe.number,
    };
  }

  /** The node's own health (see node/health.ts); the supervisor folds it into the chain's state. */
  health(): NodeHealth {
    return this.tracker.report();
  }

  private idleDelay(): number {
    let ms = this.cfg.idlePollMs ?? 1000;
    if (this.seq.active) ms = Math.max(0, Math.min(ms, this.seq.nextDueMs() - this.d.clock.nowMs()));
    return ms;
  }

  private async sleep(ms: number): Promise<void> {
    if (this.abort.signal.aborted) return;
    const inner = new AbortController();
    this.wake = () => inner.abort();
    const onAbort = () => inner.abort();
    this.abort.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.d.clock.sleep(ms, inner.signal);
    } catch (err) {
      if (!(err instanceof AbortedError)) throw err;
    } finally {
      this.abort.signal.removeEventListener("abort", onAbort);
      this.wake = undefined;
    }
  }

  private poke(): void {
    this.wake?.();
  }

  private async doReset(reason: string): Promise<void> {
    this.d.metrics?.resets.inc({ reason });
    const found = await findL2Heads(this.cfg.rollup, this.d.engine, this.d.l1, this.d.safeDb, {
      // op-node skips the genesis check in EL-sync mode (the EL may not serve it yet).
      skipGenesisCheck: this.elSync.syncing,
      elSafeOffsetBlocks: this.elSafeOffsetBlocks,
    });
    await this.engine.forceReset(found.unsafe, found.safe, found.finalized);
    await resetSafeDb(this.cfg.rollup, this.d.l1, this.d.safeDb, found);
    this.finalizer.reset();
    this.derivation.reset();
    await this.pipeline.reset(found.safe);
    this.resetRequested = undefined;
    this.initialised = true;
    this.tracker.resetDone(reason);
    const id = (r: L2BlockRef) => ({ number: r.number, hash: r.hash });
    const g = this.gate.pass(`reset:${reason}`);
    const fields = {
      reason,
      how: found.how,
      unsafe: id(found.unsafe),
      safe: id(found.safe),
      finalized: id(found.finalized),
    };
    if (g.loud)
      this.d.logger.info(g.quieted > 0 ? { ...fields, repeated: g.quieted } : fields, "reset: found L2 heads");
    else this.d.logger.debug(fields, "reset: found L2 heads");
    for (const w of this.resetWaiters.splice(0)) w();
  }

  private async onSafeHead(safe: L2BlockRef, derivedFrom: L1BlockRef): Promise<void> {
    this.finalizer.onSafeHead(safe, derivedFrom);
    await this.d.safeDb?.safeHeadUpdated(
      { hash: safe.hash, number: safe.number },
      { hash: derivedFrom.hash, number: derivedFrom.number },
    );
  }

  // ------------------------------------------------------------------------------------------------------------
  // Inputs from outside

  /**
   * Queues an unsafe payload (P2P gossip, `admin_postUnsafePayload`); the driver loop inserts it (CL sync: when it
   * extends the unsafe head; EL sync: directly). False when it was not queued (duplicate, too large, dropped, or
   * its L1-info deposit does not decode).
   */
  addUnsafePayload(env: ExecutionPayloadEnvelope): boolean {
    const added = this.unsafe.add(env);
    if (added) {
      this.markUrgent();
      this.poke();
    }
    return added;
  }

  /** The unsafe-payload queue (sizes, tests). */
  get unsafeQueue(): UnsafePayloadQueue {
    return this.unsafe.queue;
  }

  // ------------------------------------------------------------------------------------------------------------
  // Interop (the activity's requests; op-supernode §2.6)

  /** Denies a block and rewinds the chain to its parent if it is still canonical (run by the driver loop). */
  invalidateBlock(r: InvalidateRequest): Promise<InvalidateOutcome> {
    return this.interop.submit(
      () => this.interop.invalidate(r),
      () => this.poke(),
    );
  }

  /** Rewinds the chain to its canonical block at `target.number` (an L1 reorg of verified results). */
  rewindEngineTo(target: BlockId): Promise<boolean> {
    return this.interop.submit(
      () => this.interop.rewindTo(target),
      () => this.poke(),
    );
  }

  /** Forgets denials decided at or after `timestamp`; returns how many. */
  pruneDenied(timestamp: number): Promise<number> {
    return this.interop.pruneDenied(timestamp);
  }

  /** Whether block (`height`, `hash`) is on the deny list. */
  isDenied(height: number, hash: Hash): boolean {
    return this.interop.isDenied(height, hash);
  }

  // ------------------------------------------------------------------------------------------------------------
  // ChainAdminControl

  async startSequencer(expectedHead?: Hash): Promise<void> {
    await this.seq.start(this.initialised ? this.engine.heads.unsafe : undefined, expectedHead);
    this.poke();
  }

  async stopSequencer(): Promise<Hash> {
    return this.seq.stop();
  }

  async postUnsafePayload(env: ExecutionPayloadEnvelope): Promise<void> {
    checkPostedPayload(env, this.d.refFromPayload);
    this.addUnsafePayload(env);
  }

  async setRecoverMode(on: boolean): Promise<void> {
    this.seq.setRecoverMode(on);
  }

  /** Sequencer recover mode (`--sequencer.recover`, `admin_setRecoverMode`). */
  get sequencerRecoverMode(): boolean {
    return this.seq.recoverMode;
  }

  async resetDerivationPipeline(): Promise<void> {
    if (this.state !== "running") throw new NodeRpcError("NOT_RUNNING", "virtual node not running");
    const done = new Promise<void>((resolve) => this.resetWaiters.push(resolve));
    this.resetRequested = "admin";
    this.poke();
    await done;
  }

  // ------------------------------------------------------------------------------------------------------------
  // ChainRpcView

  sequencerActive(): boolean {
    return this.seq.active;
  }

  rollupConfig(): RollupConfig {
    return this.cfg.rollup;
  }

  syncStatus(): SyncStatus {
    return this.view.syncStatus();
  }

  outputAtBlock(n: number): Promise<OutputAtBlock> {
    return this.view.outputAtBlock(n);
  }

  safeHeadAtL1Block(l1Number: number): Promise<SafeHeadAtL1> {
    return this.view.safeHeadAtL1Block(l1Number);
  }

  l2BlockRefByTimestamp(ts: number): Promise<L2BlockRef | undefined> {
    return this.view.l2BlockRefByTimestamp(ts);
  }

  outputAtTimestamp(ts: number): Promise<OutputAtBlock | undefined> {
    return this.view.outputAtTimestamp(ts);
  }
}
