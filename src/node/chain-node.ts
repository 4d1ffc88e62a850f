/**
 * One virtual rollup node: a single driver loop per chain that serialises everything touching the chain's
 * execution client — resets, unsafe payloads, sequencing, derivation and finality — over the ports it is given.
 */
import type { Turns } from "../core/async/turns.js";
import { OutputCache } from "./output-cache.js";
import { AbortedError, CriticalError, isAborted, SupernodeError, severityOf } from "../core/errors/supernode-error.js";
import type { Logger } from "../core/logger.js";
import type { Clock } from "../core/time/clock.js";
import type { Hash } from "../core/types/primitives.js";
import type { BlockId, L1BlockRef, L2BlockRef, SyncStatus } from "../core/types/block-ref.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import type { ChainAdminControl, ChainRpcView, OutputAtBlock, SafeHeadAtL1 } from "./chain-view.js";
import type { AttributesBuilder, DerivationPipeline } from "./derivation/types.js";
import { type ApplyResult, type DerivedAttributes, EngineController } from "./engine/engine-controller.js";
import { durationToBlocks, findL2Heads, resetSafeDb } from "./engine/find-heads.js";
import { DEFAULT_FINALITY_LOOKBACK, Finalizer } from "./engine/finalizer.js";
import { blockNumberAtTimestamp, ZERO_L1_REF, ZERO_L2_REF } from "./engine/heads.js";
import { UnsafeInput } from "./engine/unsafe-input.js";
import type { UnsafePayloadQueue } from "./engine/unsafe-queue.js";
import { NodeRpcError } from "./errors.js";
import type { ChainMetrics } from "./metrics.js";
import { computeOutputAtBlock } from "./output.js";
import type {
  BlobSource,
  EngineApi,
  ExecutionPayloadEnvelope,
  L1Source,
  SafeDbPort,
  SequencerStateStore,
  UnsafeBlockSink,
  SuperAuthority,
  UnsafeGapFiller,
} from "./ports.js";
import { type SequencerConfig, SequencerDriver } from "./sequencer/sequencer-driver.js";
import { ElSync } from "./engine/el-sync.js";
import { type HealthThresholds, HealthTracker, type NodeHealth, RepeatGate } from "./health.js";
import { checkPostedPayload } from "./engine/posted-payload.js";

export interface ChainNodeConfig {
  readonly rollup: RollupConfig;
  readonly engineKind: "variant_a" | "variant_b";
  readonly syncMode: "consensus-layer" | "execution-layer";
  /** `syncmode.req-resp` (default false): with it, unsafe payloads go through the queue once EL sync is done. */
  readonly syncModeReqResp?: boolean;
  /** `syncmode.offset-el-safe` in L2 blocks: safe/finalized this far behind the tip when EL sync finishes. */
  readonly elSafeOffsetBlocks?: number;
  /** The same as a duration in ms (converted as op-node: ceil(whole seconds / block time)); blocks win if both. */
  readonly syncOffsetElSafeMs?: number;
  /** Bounds of the unsafe-payload queue (defaults: 500 MiB, 16,384 payloads). */
  readonly unsafeQueue?: { readonly maxBytes?: number; readonly maxCount?: number };
  readonly sequencer: SequencerConfig;
  readonly verifierL1Confs: number;
  /** 0 = default. */
  readonly finalityLookback?: number;
  /** How long the loop sleeps when idle (it is also woken by admin calls and new unsafe payloads). */
  readonly idlePollMs?: number;
  /** Max derivation steps per loop iteration before yielding. */
  readonly maxStepsPerTick?: number;
  /** Chains in the interop dependency set (default 1): > 1 adds the CrossL2Inbox deposits at Interop activation. */
  readonly dependencySetSize?: number;
  /** When failures make the node `degraded` and no progress makes it `stalled` (see node/health.ts). */
  readonly health?: Partial<HealthThresholds>;
}

export interface ChainNodeDeps {
  readonly l1: L1Source;
  readonly blobs?: BlobSource | undefined;
  readonly engine: EngineApi;
  readonly safeDb?: SafeDbPort | undefined;
  readonly sink?: UnsafeBlockSink | undefined;
  /** Req-resp gap filling over P2P (used with `syncmode.req-resp`). */
  readonly gapFiller?: UnsafeGapFiller | undefined;
  readonly sequencerStore?: SequencerStateStore | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: ChainMetrics | undefined;
  /** Builds the chain's derivation pipeline (given the node's attributes builder). */
  readonly createPipeline: () => DerivationPipeline;
  readonly attributesBuilder: AttributesBuilder;
  /** L2 block ref of an execution payload (decodes the L1-info deposit). */
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
  /** Fair event-loop turns shared by every chain: each driver step waits for one (core/async/turns.ts). */
  readonly turns?: Turns | undefined;
  /** Interop: safe and finalized follow the supernode's verification after activation (absent = local-safe). */
  readonly superAuthority?: SuperAuthority | undefined;
}

export type ChainNodeState = "created" | "running" | "stopped" | "failed";

export class ChainNode implements ChainRpcView, ChainAdminControl {
  readonly cfg: ChainNodeConfig;
  private readonly d: ChainNodeDeps;
  readonly engine: EngineController;
  private readonly pipeline: DerivationPipeline;
  /** Outputs of canonical blocks already computed (`stack_outputAtBlock` from memory). */
  private readonly outputs = new OutputCache();
  private readonly finalizer: Finalizer;
  private readonly unsafe: UnsafeInput;
  private readonly seq: SequencerDriver;
  private state: ChainNodeState = "created";
  private initialised = false;
  private resetWaiters: (() => void)[] = [];
  private resetRequested: string | undefined = "startup";
  private wake: (() => void) | undefined;
  private lastL1: { head: L1BlockRef; safe: L1BlockRef; finalized: L1BlockRef } = {
    head: ZERO_L1_REF,
    safe: ZERO_L1_REF,
    finalized: ZERO_L1_REF,
  };
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private pendingAttrs: DerivedAttributes | undefined;
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
    this.finalizer = new Finalizer(cfg.finalityLookback || DEFAULT_FINALITY_LOOKBACK);
    this.engine = new EngineController({
      engine: deps.engine,
      cfg: cfg.rollup,
      logger: deps.logger,
      metrics: deps.metrics,
      refFromPayload: deps.refFromPayload,
      onSafeHead: (safe, derivedFrom) => this.onSafeHead(safe, derivedFrom),
      safeFollowsLocal:
        deps.superAuthority === undefined ? undefined : (ref) => !deps.superAuthority?.isActiveAt(ref.timestamp),
    });
    this.pipeline = deps.createPipeline();
    this.seq = new SequencerDriver(cfg.sequencer, {
      rollup: cfg.rollup,
      l1: deps.l1,
      engine: this.engine,
      attributesBuilder: deps.attributesBuilder,
      clock: deps.clock,
      logger: deps.logger,
      metrics: deps.metrics,
      sink: deps.sink,
      store: deps.sequencerStore,
    });
    this.elSafeOffsetBlocks =
      cfg.elSafeOffsetBlocks ?? durationToBlocks(cfg.syncOffsetElSafeMs ?? 0, cfg.rollup.block_time);
    this.elSync = new ElSync(cfg.syncMode, {
      cfg: cfg.rollup,
      kind: cfg.engineKind,
      engine: deps.engine,
      controller: this.engine,
      refFromPayload: deps.refFromPayload,
      safeDb: deps.safeDb,
      clock: deps.clock,
      logger: deps.logger,
      offsetBlocks: this.elSafeOffsetBlocks,
    });
    this.unsafe = new UnsafeInput({
      cfg: cfg.rollup,
      reqResp: cfg.syncModeReqResp ?? false,
      engine: this.engine,
      elSync: this.elSync,
      clock: deps.clock,
      logger: deps.logger,
      refFromPayload: deps.refFromPayload,
      queueBounds: cfg.unsafeQueue,
      gapFiller: deps.gapFiller,
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
    for (const w of this.resetWaiters.splice(0)) w();
  }

  // ------------------------------------------------------------------------------------------------------------
  // Driver loop

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      let progressed = false;
      try {
        await this.turn();
        await this.pollL1();
        if (this.resetRequested !== undefined) {
          await this.doReset(this.resetRequested);
          progressed = true;
        } else {
          const u = await this.unsafe.step(signal);
          progressed = u.progressed || progressed;
          if (u.elSyncFinished) this.resetRequested = "el-sync-finished"; // resume derivation from the EL's labels
          // A reset requested by the unsafe step (EL sync finished) comes before any derivation.
          if (this.resetRequested === undefined) {
            progressed = (await this.seq.step(this.initialised && !this.elSync.syncing)) || progressed;
            progressed = (await this.derivationStep()) || progressed;
            await this.superSafetyStep();
            await this.finalityStep();
            if (!progressed) await this.engine.flushForkchoice();
          }
        }
        this.failures = 0;
        this.publishMetrics();
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
      l1Head: this.lastL1.head.number,
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

  private async pollL1(): Promise<void> {
    const l1 = this.d.l1;
    const label = async (name: "latest" | "safe" | "finalized", prev: L1BlockRef) => {
      const cached = l1.getLabel?.(name);
      if (cached !== undefined) return cached;
      try {
        return await l1.l1BlockRefByLabel(name);
      } catch (err) {
        if (severityOf(err) === "temporary") return prev;
        throw err;
      }
    };
    const finalized = await label("finalized", this.lastL1.finalized);
    await this.checkFinalizedL1(this.lastL1.finalized, finalized);
    this.lastL1 = {
      head: await label("latest", this.lastL1.head),
      safe: await label("safe", this.lastL1.safe),
      finalized,
    };
  }

  /**
   * L1 finality is final: if the block the node last saw as finalized is no longer canonical, the L1 reorged
   * finalized data, which derivation cannot survive (what was derived from it may already be relied upon). As in
   * op-node, that is a critical error for this chain, surfaced once.
   */
  private async checkFinalizedL1(prev: L1BlockRef, next: L1BlockRef): Promise<void> {
    if (prev.number === 0 || next.hash === prev.hash) return;
    let canonical: L1BlockRef | undefined;
    if (next.number === prev.number) canonical = next;
    else {
      try {
        canonical = await this.d.l1.l1BlockRefByNumber(prev.number);
      } catch (err) {
        if (severityOf(err) === "temporary") return; // checked again on the next poll
        throw err;
      }
    }
    if (canonical.hash === prev.hash) return;
    throw new CriticalError(
      "L1_FINALIZED_REORG",
      `L1 reorged finalized block ${prev.number} (${prev.hash} replaced by ${canonical.hash})`,
      { number: prev.number, was: prev.hash, now: canonical.hash },
    );
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
    this.pendingAttrs = undefined;
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
  // Derivation

  private async derivationStep(): Promise<boolean> {
    if (this.elSync.syncing) return false;
    const max = this.cfg.maxStepsPerTick ?? 256;
    let progressed = false;
    for (let i = 0; i < max && !this.abort.signal.aborted; i++) {
      if (i > 0) await this.turn();
      let attrs = this.pendingAttrs;
      this.pendingAttrs = undefined;
      if (attrs === undefined) {
        const before = this.pipeline.origin.number;
        const r = await this.pipeline.step(this.engine.heads.pendingSafe);
        if (this.pipeline.origin.number !== before) await this.engine.flushForkchoice();
        if (r.kind === "eof") return progressed;
        progressed = true;
        if (r.kind === "progress") continue;
        attrs = r.attrs;
      }
      let res: ApplyResult;
      try {
        res = await this.engine.applyDerived(attrs);
      } catch (err) {
        // A temporary engine failure before the block was adopted: retry the same attributes next time (the
        // pipeline has already moved past them).
        if (severityOf(err) === "temporary" && this.engine.heads.pendingSafe.hash === attrs.parent.hash) {
          this.pendingAttrs = attrs;
        }
        throw err;
      }
      if (res === "invalid") {
        const replacement = this.pipeline.invalidated(attrs);
        if (replacement !== undefined) this.pendingAttrs = replacement;
        else this.engine.revertPendingSafe();
        continue;
      }
      this.d.metrics?.derivedBlocks.inc({ path: res === "consolidated" ? "consolidate" : "build" });
      // Let the sequencer and unsafe payloads interleave with a long catch-up.
      if (this.seq.due()) return progressed;
    }
    return progressed;
  }

  /** The canonical block `id` of this chain, or undefined when the EL has another block at that height. */
  private async refOf(id: BlockId): Promise<L2BlockRef | undefined> {
    const ref = await this.d.engine.l2BlockRefByNumber(id.number);
    return ref?.hash === id.hash ? ref : undefined;
  }

  /** Interop: `safe` follows the newest verified block (never above local-safe) once interop is active. */
  private async superSafetyStep(): Promise<void> {
    const a = this.d.superAuthority;
    const h = this.engine.heads;
    if (a === undefined || this.elSync.syncing || !a.isActiveAt(h.localSafe.timestamp)) return;
    const v = await a.verifiedHead();
    if (v === undefined) return;
    const target = v.number >= h.localSafe.number ? h.localSafe : await this.refOf(v);
    if (target !== undefined && this.engine.setSafe(target))
      this.d.logger.debug({ safe: target.number }, "verified safe");
  }

  private async finalityStep(): Promise<void> {
    const fin = this.lastL1.finalized;
    if (fin.number === 0 || this.elSync.syncing) return;
    let cand = this.finalizer.candidate(fin.number);
    if (cand === undefined || cand.l2.number <= this.engine.heads.finalized.number) return;
    const canon = await this.d.l1.l1BlockRefByNumber(cand.derivedFrom.number);
    if (canon.hash !== cand.derivedFrom.hash) {
      this.resetRequested = "finality-l1-reorg";
      return;
    }
    const a = this.d.superAuthority;
    if (a?.isActiveAt(cand.l2.timestamp)) {
      // Interop: only what was verified with finalized L1 data (on every chain) is final.
      const v = await a.verifiedAtL1(fin.number);
      if (v === undefined || v.number <= this.engine.heads.finalized.number) return;
      if (v.number < cand.l2.number) {
        const ref = await this.refOf(v);
        if (ref === undefined) return;
        cand = { derivedFrom: cand.derivedFrom, l2: ref };
      }
    }
    if (this.engine.setFinalized(cand.l2)) {
      this.finalizer.prune(cand.l2.number);
      await this.engine.flushForkchoice();
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
    if (added) this.poke();
    return added;
  }

  /** The unsafe-payload queue (sizes, tests). */
  get unsafeQueue(): UnsafePayloadQueue {
    return this.unsafe.queue;
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
    // The heads the EL has acknowledged (a reported head can be read at the EL under its label); during EL sync the
    // heads are only set after the EL accepted them.
    const h = this.elSync.syncing ? this.engine.heads : this.engine.publishedHeads;
    const queued = this.unsafeQueue.lowest();
    const queuedRef = queued === undefined ? ZERO_L2_REF : safeRef(this.d.refFromPayload, queued);
    return {
      current_l1: this.initialised ? this.pipeline.origin : ZERO_L1_REF,
      current_l1_finalized: this.lastL1.finalized,
      head_l1: this.lastL1.head,
      safe_l1: this.lastL1.safe,
      finalized_l1: this.lastL1.finalized,
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
    const h = this.engine.publishedHeads;
    const heads = [h.unsafe, h.safe, h.localSafe, h.finalized];
    const cached = this.outputs.get(n, heads, h.finalized.number);
    if (cached !== undefined) return cached;
    const out = await computeOutputAtBlock(this.cfg.rollup, this.d.engine, this.d.refFromPayload, n);
    this.outputs.put(out, heads, this.engine.publishedHeads.finalized.number);
    return out;
  }

  async safeHeadAtL1Block(l1Number: number): Promise<SafeHeadAtL1> {
    if (this.d.safeDb === undefined) {
      throw new NodeRpcError(
        "SAFEDB_DISABLED",
        `failed to get safe head at l1 block 0x${l1Number.toString(16)}: safe head database not enabled`,
      );
    }
    const e = await this.d.safeDb.safeHeadAtL1Block(l1Number);
    if (e === undefined) throw new NodeRpcError("SAFE_HEAD_NOT_FOUND", "not found");
    return e;
  }

  async l2BlockRefByTimestamp(ts: number): Promise<L2BlockRef | undefined> {
    const n = blockNumberAtTimestamp(this.cfg.rollup, ts);
    if (n === undefined) return undefined;
    return this.d.engine.l2BlockRefByNumber(n);
  }

  async outputAtTimestamp(ts: number): Promise<OutputAtBlock | undefined> {
    const n = blockNumberAtTimestamp(this.cfg.rollup, ts);
    if (n === undefined) return undefined;
    try {
      return await this.outputAtBlock(n);
    } catch (err) {
      if (err instanceof NodeRpcError && err.code === "NOT_FOUND") return undefined;
      throw err;
    }
  }

  private publishMetrics(): void {
    const m = this.d.metrics;
    if (m === undefined) return;
    const h = this.elSync.syncing ? this.engine.heads : this.engine.publishedHeads;
    m.headNumber.set({ head: "unsafe" }, h.unsafe.number);
    m.headNumber.set({ head: "pending_safe" }, h.pendingSafe.number);
    m.headNumber.set({ head: "local_safe" }, h.localSafe.number);
    m.headNumber.set({ head: "safe" }, h.safe.number);
    m.headNumber.set({ head: "finalized" }, h.finalized.number);
    if (this.initialised) m.derivationOrigin.set(this.pipeline.origin.number);
  }
}

function safeRef(fn: (env: ExecutionPayloadEnvelope) => L2BlockRef, env: ExecutionPayloadEnvelope): L2BlockRef {
  try {
    return fn(env);
  } catch {
    return ZERO_L2_REF;
  }
}
