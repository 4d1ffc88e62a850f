/**
 * The engine controller: keeps the L2 heads, drives the execution client through the Engine API (forkchoice
 * updates, block building, payload insertion), and applies derived attributes: consolidated against a block the EL
 * already has (consolidator.ts) or built (op-node §2.12). All calls for one chain go through one instance, one at a
 * time (the node's driver loop).
 */
import { CriticalError, ResetError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Hash } from "../../core/types/primitives.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import { l2BlockRef } from "../../protocol/l2/block-ref.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { ChainMetrics } from "../metrics.js";
import type { ExecutionEngine, ExecutionPayloadEnvelope, ForkchoiceState, PayloadAttributes } from "../ports.js";
import { DeniedPayloadError } from "../denied-txs.js";
import type { ApplyResult, DerivedAttributes } from "./derived-attributes.js";
import { Consolidator } from "./consolidator.js";
import { type BuildStartDeps, buildAndSeal } from "./build-start.js";
import { checkForkchoiceUpdate } from "./engine-errors.js";
import { PayloadInserter } from "./payload-inserter.js";
import { allHeads, genesisL2Ref, headsFromEngine, headsOnParent, type L2Heads } from "./heads.js";

export type { ApplyResult, DerivedAttributes } from "./derived-attributes.js";
export { DeniedPayloadError } from "../denied-txs.js";

export interface EngineControllerDeps {
  readonly engine: ExecutionEngine;
  readonly cfg: RollupConfig;
  readonly logger: Logger;
  readonly metrics?: ChainMetrics | undefined;
  /** Called when the local-safe (= safe, pre-interop) head advances, with the L1 block it was derived from. */
  readonly onSafeHead?: ((safe: L2BlockRef, derivedFrom: L1BlockRef) => Promise<void>) | undefined;
  /** L2 block ref of an execution payload (decodes the L1-info deposit). */
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
  /**
   * Whether `safe` follows local-safe for this block (default: always). False once interop is active: the super
   * authority then moves `safe` through `setSafe`.
   */
  readonly safeFollowsLocal?: ((ref: L2BlockRef) => boolean) | undefined;
  /** Interop deny list: a denied payload is never inserted (derived: replaced; unsafe: dropped). */
  readonly isDenied?: ((height: number, hash: Hash) => boolean) | undefined;
}

export class EngineController {
  /** The working heads (derivation and sequencing build on these; they may run ahead of the EL). */
  heads: L2Heads;
  /** The heads the EL has acknowledged: the last forkchoice state it accepted (see {@link publishedHeads}). */
  private acked: L2Heads;
  /** newPayload, and the last derived block adopted before its verdict (payload-inserter.ts). */
  private readonly inserter: PayloadInserter;
  /** A forkchoice update is owed to the EL (derived promotions are batched). */
  private fcuDirty = false;
  private readonly d: EngineControllerDeps;
  /** Checks derived attributes against blocks the EL already has (and reads those ahead). */
  private readonly consolidator: Consolidator;
  /** What a build start and its seal need (build-start.ts). */
  private readonly builds: BuildStartDeps;

  constructor(deps: EngineControllerDeps) {
    this.d = deps;
    this.heads = allHeads(genesisL2Ref(deps.cfg));
    this.acked = { ...this.heads };
    this.consolidator = new Consolidator({
      engine: deps.engine,
      cfg: deps.cfg,
      logger: deps.logger,
      refFromPayload: deps.refFromPayload,
      isDenied: deps.isDenied,
      timed: (method, fn) => this.timed(method, fn),
    });
    this.inserter = new PayloadInserter({
      engine: deps.engine,
      logger: deps.logger,
      timed: (method, fn) => this.timed(method, fn),
      restoreHeads: (before) => {
        this.heads = before;
        this.dropPrefetched();
      },
    });
    this.builds = {
      engine: deps.engine,
      logger: deps.logger,
      inserter: this.inserter,
      timed: (method, fn) => this.timed(method, fn),
    };
  }

  /**
   * A read-only snapshot of the heads as the EL has acknowledged them: updated when a forkchoice update carrying
   * them succeeded (and when the heads were loaded from the EL's labels). `heads` is the working state, which
   * runs ahead (a block is adopted, or made safe, before the forkchoice update that carries it reaches the EL);
   * what the node reports (`stack_syncStatus`) should come from here, so that a reported head can be read at the
   * EL under the matching label.
   */
  get publishedHeads(): Readonly<L2Heads> {
    return this.acked;
  }

  /** Waits for the verdict on the last derived block adopted before it (payload-inserter.ts). */
  private settle(): Promise<void> {
    return this.inserter.settle();
  }

  /** {@link settle}, for paths that replace the heads anyway (a failure is then moot). */
  private async settleQuietly(): Promise<void> {
    try {
      await this.settle();
    } catch {
      // The heads are being replaced.
    }
  }

  /** Loads the heads from the EL's labels (`latest`, `safe`, `finalized`); missing ones default to genesis. */
  async loadHeadsFromEngine(): Promise<L2Heads> {
    await this.settleQuietly();
    this.heads = await headsFromEngine(this.d.engine, this.d.cfg);
    this.acked = { ...this.heads };
    return this.heads;
  }

  /**
   * Replaces every head (after a reset found a consistent start point, or an interop rewind) and sends the
   * forkchoice update; local-safe is `safe` unless given (interop: `safe` may lag local-safe).
   */
  async forceReset(unsafe: L2BlockRef, safe: L2BlockRef, finalized: L2BlockRef, localSafe = safe): Promise<void> {
    await this.settleQuietly();
    this.heads = { unsafe, crossUnsafe: unsafe, pendingSafe: localSafe, localSafe, safe, finalized };
    this.dropPrefetched();
    this.fcuDirty = true;
    await this.flushForkchoice();
  }

  /** Forgets the consolidator's look-ahead (the EL's canonical chain may change under it). */
  private dropPrefetched(): void {
    this.consolidator.drop();
  }

  get forkchoicePending(): boolean {
    return this.fcuDirty;
  }

  private state(): ForkchoiceState {
    return {
      headBlockHash: this.heads.unsafe.hash,
      safeBlockHash: this.heads.safe.hash,
      finalizedBlockHash: this.heads.finalized.hash,
    };
  }

  private async timed<T>(method: string, fn: () => Promise<T>): Promise<T> {
    const end = this.d.metrics?.engineLatency.startTimer({ method });
    try {
      return await fn();
    } finally {
      end?.();
    }
  }

  /** Sends `{head: unsafe, safe, finalized}` when owed (or when `force`). */
  async flushForkchoice(force = false): Promise<void> {
    if (!this.fcuDirty && !force) {
      await this.settle();
      return;
    }
    const sent = { ...this.heads };
    // The last derived block's held newPayload rides along when there is one (payload-inserter.ts).
    checkForkchoiceUpdate(await this.inserter.forkchoice(this.state()));
    this.acked = sent;
    if (this.heads.unsafe === sent.unsafe && this.heads.safe === sent.safe && this.heads.finalized === sent.finalized)
      this.fcuDirty = false;
  }

  /**
   * Adopts heads the EL has just accepted in a forkchoice update sent outside the controller (EL sync, an unsafe
   * gap the EL filled): they become the working and the published heads, without another forkchoice update.
   * Callers settle the controller first ({@link flushForkchoice}).
   */
  adoptAcknowledged(heads: L2Heads): void {
    if (this.inserter.pending) throw new Error("adoptAcknowledged: a derived block still awaits its verdict");
    this.heads = { ...heads };
    this.acked = { ...heads };
    this.fcuDirty = false;
    this.dropPrefetched();
  }

  /**
   * Sets `safe` to a verified block (interop): never above local-safe, never below finalized; it may go back when
   * verified results were rewound. Returns whether it changed.
   */
  setSafe(ref: L2BlockRef): boolean {
    const h = this.heads;
    if (ref.number > h.localSafe.number || ref.number < h.finalized.number || ref.hash === h.safe.hash) return false;
    h.safe = ref;
    this.fcuDirty = true;
    return true;
  }

  /** Marks `ref` finalized (never backwards, never beyond safe). */
  setFinalized(ref: L2BlockRef): boolean {
    if (ref.number <= this.heads.finalized.number || ref.number > this.heads.safe.number) return false;
    this.heads.finalized = ref;
    this.fcuDirty = true;
    return true;
  }

  /**
   * Applies derived attributes on top of the pending-safe head: consolidates with the EL's existing block when
   * pending-safe is behind unsafe, else builds the block. Returns "invalid" when the derived block was rejected
   * (the caller decides: Holocene deposits-only replacement, or drop the batch pre-Holocene).
   */
  async applyDerived(d: DerivedAttributes): Promise<ApplyResult> {
    // The last derived block, adopted before its verdict, is settled by the next engine call: consolidation's
    // reads, or the build start of its child (which carries its held newPayload, payload-inserter.ts).
    const ps = this.heads.pendingSafe;
    if (d.parent.hash !== ps.hash || d.parent.number !== ps.number) {
      await this.settle();
      throw new ResetError("STALE_ATTRIBUTES", "derived attributes do not build on the pending-safe head", {
        parent: d.parent.number,
        pendingSafe: ps.number,
      });
    }
    if (ps.number < this.heads.unsafe.number) {
      await this.settle();
      const ref = await this.consolidator.consolidate(d, ps, this.heads.unsafe.number);
      if (ref !== undefined) {
        await this.promoteDerived(ref, d);
        return "consolidated";
      }
    }
    let built: Awaited<ReturnType<EngineController["buildAndInsert"]>>;
    try {
      built = await this.buildAndInsert(d.attributes, d.parent, d, { speculative: true });
    } catch (err) {
      if (!(err instanceof DeniedPayloadError)) throw err;
      if (d.depositsOnly) throw new CriticalError("DEPOSITS_ONLY_DENIED", "a deposits-only block is on the deny list");
      return "denied";
    }
    if (built === undefined) {
      if (d.depositsOnly) throw new CriticalError("DEPOSITS_ONLY_INVALID", "deposit-only attributes were rejected");
      return "invalid";
    }
    await this.promoteDerived(built.ref, d);
    return "built";
  }

  private async promoteDerived(ref: L2BlockRef, d: DerivedAttributes): Promise<void> {
    // A derived block at or above the unsafe head becomes it (unless it is that very block); one below it matched
    // (consolidated) or replaced the EL's canonical block at that height, so it is on the unsafe chain already.
    const u = this.heads.unsafe;
    if (ref.number > u.number || (ref.number === u.number && ref.hash !== u.hash)) {
      this.heads.unsafe = ref;
      this.heads.crossUnsafe = ref;
    }
    this.heads.pendingSafe = ref;
    if (d.concluding) {
      this.heads.localSafe = ref;
      if (this.d.safeFollowsLocal?.(ref) ?? true) this.heads.safe = ref;
      this.fcuDirty = true;
      const cb = this.d.onSafeHead;
      if (cb !== undefined) {
        // Reported once the EL has accepted the block (the safe DB must not record a block it rejects).
        if (!this.inserter.defer(() => cb(ref, d.derivedFrom))) await cb(ref, d.derivedFrom);
      }
    }
  }

  /**
   * Builds a block from `attrs` on `parent` and inserts it as the new unsafe head. Returns undefined when the EL
   * rejected the attributes or the payload as invalid.
   */
  async buildAndInsert(
    attrs: PayloadAttributes,
    parent: L2BlockRef,
    meta: { l1origin: BlockId; sequenceNumber: number },
    opts: {
      speculative?: boolean;
      /** Sequencer: attributes to build instead of the sealed payload (it holds a denied transaction). */
      rebuildWith?: (sealed: ExecutionPayloadEnvelope) => PayloadAttributes | undefined;
    } = {},
  ): Promise<{ envelope: ExecutionPayloadEnvelope; ref: L2BlockRef } | undefined> {
    const onParent = headsOnParent(this.heads, parent);
    const fc: ForkchoiceState = {
      headBlockHash: parent.hash,
      safeBlockHash: onParent.safe.hash,
      finalizedBlockHash: onParent.finalized.hash,
    };
    const sealed = await buildAndSeal(this.builds, fc, attrs, parent, opts.speculative === true, () => {
      this.acked = headsOnParent(this.heads, parent);
      this.dropPrefetched();
    });
    if (sealed === undefined) return undefined;
    const envelope = sealed.envelope;
    const redo = opts.rebuildWith?.(envelope);
    if (redo !== undefined) return this.buildAndInsert(redo, parent, meta, { speculative: opts.speculative === true });
    if (this.d.isDenied?.(envelope.executionPayload.blockNumber, envelope.executionPayload.blockHash)) {
      throw new DeniedPayloadError(envelope.executionPayload.blockNumber);
    }
    // A derived block (the EL's own payload, just sealed) may be adopted before newPayload answers: derivation
    // prepares the next block meanwhile, and the next engine call settles this one first (settle()).
    let headAcked = false;
    if (opts.speculative === true && this.inserter.mayAdopt(parent.hash)) {
      this.inserter.adopt(sealed, { ...this.heads }, parent.hash);
    } else {
      // Inserted before returning (the sequencer publishes it next), with the forkchoice update that makes it the
      // head (the caller's flush then has nothing left to send).
      const head: ForkchoiceState = {
        headBlockHash: envelope.executionPayload.blockHash,
        safeBlockHash: this.heads.safe.hash,
        finalizedBlockHash: this.heads.finalized.hash,
      };
      const { valid, forkchoice } = await this.inserter.insertAsHead(sealed, head);
      if (!valid) return undefined;
      this.inserter.insertedOn(parent.hash);
      headAcked = forkchoice !== undefined;
    }
    const p = envelope.executionPayload;
    const ref = l2BlockRef(p.blockHash, p.blockNumber, p.parentHash, p.timestamp, meta.l1origin, meta.sequenceNumber);
    this.heads.unsafe = ref;
    this.heads.crossUnsafe = ref;
    if (headAcked) {
      // The EL took exactly the current heads (this block as head, safe and finalized as they are).
      this.acked = { ...this.heads };
      this.fcuDirty = false;
    } else {
      this.fcuDirty = true;
    }
    this.d.metrics?.blocksBuilt.inc();
    return { envelope, ref };
  }

  /**
   * Inserts an unsafe payload (gossip / sequencer-restart / EL sync) that extends the unsafe head.
   * Returns "inserted", "ignored" (does not extend the head) or "invalid".
   */
  async insertUnsafePayload(
    envelope: ExecutionPayloadEnvelope,
    ref: L2BlockRef,
  ): Promise<"inserted" | "ignored" | "invalid" | "denied"> {
    await this.settle();
    const p = envelope.executionPayload;
    if (this.d.isDenied?.(p.blockNumber, p.blockHash)) return "denied";
    const u = this.heads.unsafe;
    if (p.blockNumber !== u.number + 1 || p.parentHash.toLowerCase() !== u.hash.toLowerCase()) return "ignored";
    // A gossiped block someone waits for: its newPayload and the forkchoice update that makes it the head go as one
    // engine operation (one round trip when the EL takes batches); without the update's result it follows alone.
    const head: ForkchoiceState = {
      headBlockHash: p.blockHash,
      safeBlockHash: this.heads.safe.hash,
      finalizedBlockHash: this.heads.finalized.hash,
    };
    const { valid, forkchoice } = await this.inserter.insertAsHead(envelope, head);
    if (!valid) return "invalid";
    // It extends the head: the blocks below stay canonical, so the read-ahead of them (never past the old head) stays.
    this.heads.unsafe = ref;
    this.heads.crossUnsafe = ref;
    if (forkchoice !== undefined) {
      // The EL took exactly the current heads (this block as head, safe and finalized as they are).
      this.acked = { ...this.heads };
      this.fcuDirty = false;
    } else {
      this.fcuDirty = true;
      await this.flushForkchoice();
    }
    return "inserted";
  }

  /** Resets pending-safe to the (local-)safe head (a failed batch mid-span, pre-Holocene). */
  revertPendingSafe(): void {
    this.heads.pendingSafe = this.heads.localSafe;
  }

  headHash(): Hash {
    return this.heads.unsafe.hash;
  }
}
