/**
 * One virtual rollup node: a single driver loop per chain that serialises everything touching the chain's
 * execution client — resets, unsafe payloads, sequencing, derivation and finality — over the ports it is given.
 */
import { isAborted, type SupernodeError, severityOf, TemporaryError } from "../core/errors/supernode-error.js";
import type { Hash } from "../core/types/primitives.js";
import type { BlockId, L1BlockRef, L2BlockRef, SyncStatus } from "../core/types/block-ref.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import { buildNodeParts } from "./chain-node-parts.js";
import type { ChainNodeConfig, ChainNodeDeps } from "./chain-node-types.js";
import type { ChainAdminControl, ChainRpcView, OutputAtBlock, SafeHeadAtL1, SdmStatus } from "./chain-view.js";
import type { DerivationPipeline } from "./derivation/types.js";
import type { EngineController } from "./engine/engine-controller.js";
import type { DerivationStep } from "./derivation/derivation-step.js";
import type { ElSync } from "./sync/el-sync.js";
import type { Finalizer } from "./finality/finalizer.js";
import { checkPostedPayload } from "./sync/posted-payload.js";
import type { UnsafeInput } from "./sync/unsafe-input.js";
import type { UnsafePayloadQueue } from "./sync/unsafe-queue.js";
import { NodeRpcError } from "./errors.js";
import { describeError, HealthTracker, type NodeHealth, RepeatGate } from "./health.js";
import type { L1Labels } from "./l1-labels.js";
import { LoopSleep } from "./loop-sleep.js";
import type { ExecutionPayloadEnvelope } from "./ports.js";
import type { InteropControl, InvalidateOutcome, InvalidateRequest } from "./interop-control.js";
import { Resets } from "./resets.js";
import type { SafetySteps } from "./finality/safety-steps.js";
import type { SequencerDriver } from "./sequencer/sequencer-driver.js";
import type { StatusView } from "./status-view.js";

export type { ChainNodeConfig, ChainNodeDeps } from "./chain-node-types.js";

export type ChainNodeState = "created" | "running" | "stopped" | "failed";

export class ChainNode implements ChainRpcView, ChainAdminControl {
  readonly cfg: ChainNodeConfig;
  private readonly d: ChainNodeDeps;
  readonly controller: EngineController;
  private readonly pipeline: DerivationPipeline;
  private readonly finalizer: Finalizer;
  private readonly unsafe: UnsafeInput;
  private readonly seq: SequencerDriver;
  private state: ChainNodeState = "created";
  private readonly resets: Resets;
  private readonly l1: L1Labels;
  private readonly safety: SafetySteps;
  private readonly view: StatusView;
  private readonly abort = new AbortController();
  private readonly sleeper: LoopSleep;
  private loop: Promise<void> | undefined;
  private readonly derivation: DerivationStep;
  private readonly interop: InteropControl;
  readonly elSync: ElSync;
  /** Temporary-error backoff state of the loop. */
  private failures = 0;
  /** The SafeDB was opened and verified (the loop waits for it once, before its first step). */
  private safeDbVerified = false;
  /** SafeDB records (safe head, derived from) whose write failed, tried again before anything else. */
  private readonly safeDbPending: [BlockId, BlockId][] = [];
  private fatal: SupernodeError | Error | undefined;
  private readonly tracker: HealthTracker;
  /** Ends the subscription to the P2P payload feed (taken while the node runs). */
  private unsubscribe: (() => void) | undefined;

  private constructor(cfg: ChainNodeConfig, deps: ChainNodeDeps) {
    this.cfg = cfg;
    this.d = deps;
    this.tracker = new HealthTracker(deps.clock, cfg.health);
    this.sleeper = new LoopSleep(deps.clock, this.abort.signal);
    const p = buildNodeParts(cfg, deps, {
      onSafeHead: (safe, derivedFrom) => this.onSafeHead(safe, derivedFrom),
      turn: () => this.turn(),
      aborted: () => this.abort.signal.aborted,
      initialised: () => this.resets.initialised,
      busy: () =>
        this.state !== "running"
          ? "not running"
          : !this.resets.initialised || this.resets.requested !== undefined
            ? "resetting"
            : undefined,
      restartFrom: async (safe) => {
        this.finalizer.reset();
        this.derivation.reset();
        await this.pipeline.reset(safe);
      },
    });
    this.finalizer = p.finalizer;
    this.controller = p.controller;
    this.interop = p.interop;
    this.pipeline = p.pipeline;
    this.seq = p.seq;
    this.elSync = p.elSync;
    this.unsafe = p.unsafe;
    this.derivation = p.derivation;
    this.l1 = p.l1;
    this.safety = p.safety;
    this.view = p.view;
    this.resets = new Resets({
      cfg,
      deps,
      controller: p.controller,
      finalizer: p.finalizer,
      derivation: p.derivation,
      pipeline: p.pipeline,
      elSync: p.elSync,
      elSafeOffsetBlocks: p.elSafeOffsetBlocks,
      tracker: this.tracker,
      gate: new RepeatGate(deps.clock),
    });
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
    this.unsubscribe = this.d.unsafeFeed?.subscribe((env) => void this.addUnsafePayload(env));
    if (signal?.aborted === true) void this.stop(); // aborted before it started: the event will not fire again
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
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.abort.abort();
    this.sleeper.wake();
    await this.loop;
    if (this.state === "running") this.state = "stopped";
    this.interop.failRequests(new TemporaryError("CHAIN_NOT_RUNNING", "virtual node stopped"));
    this.resets.releaseWaiters();
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
        if (!this.safeDbVerified) {
          await this.d.safeDb?.opened?.(); // a damaged SafeDB fails the chain now, not at the read that meets it
          this.safeDbVerified = true;
        }
        await this.flushSafeDb();
        await this.turn();
        await this.l1.poll();
        if (this.resets.requested !== undefined) {
          await this.resets.run(this.resets.requested);
          progressed = true;
        } else {
          if (this.interop.pending) progressed = (await this.interop.runRequests()) || progressed;
          const u = await this.unsafe.step(signal);
          this.markUrgent();
          progressed = u.progressed || progressed;
          if (u.elSyncFinished) this.resets.requested = "el-sync-finished"; // resume derivation from the EL's labels
          // A reset requested by the unsafe step (EL sync finished) comes before any derivation.
          if (this.resets.requested === undefined) {
            // Building a block someone waits for (its publication) is urgent work too.
            const due = this.seq.due();
            if (due) this.d.turns?.setUrgent?.(true);
            progressed = (await this.seq.step(this.resets.initialised && !this.elSync.syncing)) || progressed;
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
                this.resets.requested = "finality-l1-reorg";
            }
            if (!progressed) await this.controller.flushForkchoice();
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
          this.resets.onResetError(err);
          continue;
        }
        if (await this.resets.elLostChain(err)) continue;
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

  private progressMark() {
    const h = this.controller.heads;
    return {
      l1Head: this.l1.current.head.number,
      origin: this.resets.initialised ? this.pipeline.origin.number : 0,
      unsafe: h.unsafe.number,
      safe: h.safe.number,
    };
  }

  /** The node's own health (see node/health.ts); the supervisor folds it into the chain's state. */
  health(): NodeHealth {
    const stored = this.d.denyList?.fault?.();
    if (stored !== undefined)
      return { condition: "degraded", reason: `deny list write failing: ${describeError(stored)}` };
    return this.tracker.report();
  }

  private idleDelay(): number {
    let ms = this.cfg.idlePollMs ?? 1000;
    if (this.seq.active) ms = Math.max(0, Math.min(ms, this.seq.nextDueMs() - this.d.clock.nowMs()));
    return ms;
  }

  private sleep(ms: number): Promise<void> {
    return this.sleeper.sleep(ms);
  }

  private poke(): void {
    this.sleeper.wake();
  }

  private async onSafeHead(safe: L2BlockRef, derivedFrom: L1BlockRef): Promise<void> {
    this.finalizer.onSafeHead(safe, derivedFrom);
    if (this.d.safeDb === undefined) return;
    this.safeDbPending.push([
      { hash: safe.hash, number: safe.number },
      { hash: derivedFrom.hash, number: derivedFrom.number },
    ]);
    await this.flushSafeDb();
  }

  /**
   * Writes the SafeDB records not written yet, in order. The safe head has moved on when its record is written,
   * so a failed write (a full disk) is not dropped: the record stays pending and every loop step tries it again
   * first, failing until it is written (the chain is then `degraded`, and nothing is derived past it meanwhile).
   */
  private async flushSafeDb(): Promise<void> {
    for (let next = this.safeDbPending[0]; next !== undefined; next = this.safeDbPending[0]) {
      await this.d.safeDb?.safeHeadUpdated(next[0], next[1]);
      this.safeDbPending.shift();
    }
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
  rewindEngineTo(target: BlockId, payload?: ExecutionPayloadEnvelope): Promise<boolean> {
    return this.interop.submit(
      () => this.interop.rewindTo(target, payload),
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
    await this.seq.start(this.resets.initialised ? this.controller.heads.unsafe : undefined, expectedHead);
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

  async setSdmPostExecOptIn(on: boolean): Promise<void> {
    await this.seq.setSdmPostExecOptIn(on);
  }

  async sdmStatus(): Promise<SdmStatus> {
    return this.seq.sdmStatus(this.controller.heads.unsafe);
  }

  /** Sequencer recover mode (`--sequencer.recover`, `admin_setRecoverMode`). */
  get sequencerRecoverMode(): boolean {
    return this.seq.recoverMode;
  }

  async resetDerivationPipeline(): Promise<void> {
    if (this.state !== "running") throw new NodeRpcError("NOT_RUNNING", "virtual node not running");
    const done = this.resets.requestAndWait("admin");
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
