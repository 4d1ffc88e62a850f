/**
 * The engine controller: keeps the L2 heads, drives the execution client through the Engine API (forkchoice
 * updates, block building, payload insertion), and consolidates derived attributes against blocks the EL already
 * has (op-node §2.12). All calls for one chain go through one instance, one at a time (the node's driver loop).
 */
import { CriticalError, ResetError, SupernodeError, TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Hash } from "../../core/types/primitives.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { ChainMetrics } from "../metrics.js";
import type { EngineApi, ExecutionPayloadEnvelope, ForkchoiceState, PayloadAttributes } from "../ports.js";
import { attributesMatchBlock } from "./attributes-match.js";
import { allHeads, genesisL2Ref, type L2Heads } from "./heads.js";

/** Derived payload attributes handed from the pipeline to the engine (op-node AttributesWithParent). */
export interface DerivedAttributes {
  readonly attributes: PayloadAttributes;
  readonly parent: L2BlockRef;
  /** L1 origin (epoch) and sequence number of the block these attributes build. */
  readonly l1origin: BlockId;
  readonly sequenceNumber: number;
  /** Last block of its batch (span batches conclude on their last element). */
  readonly concluding: boolean;
  /** L1 block the attributes were derived from (the traversal origin). */
  readonly derivedFrom: L1BlockRef;
  /** Only deposits (a Holocene replacement): a failure here is critical. */
  readonly depositsOnly?: boolean;
}

/**
 * Reads of several canonical blocks in one request (EngineClient: a JSON-RPC batch of `eth_getBlockByNumber`).
 * Optional on the engine port; each element is the block, undefined (no such block) or the element's error.
 */
export interface BatchedPayloadReads {
  payloadsByNumber(ns: readonly number[]): Promise<(ExecutionPayloadEnvelope | undefined | Error)[]>;
}

export type ApplyResult = "consolidated" | "built" | "invalid";

export interface EngineControllerDeps {
  readonly engine: EngineApi;
  readonly cfg: RollupConfig;
  readonly logger: Logger;
  readonly metrics?: ChainMetrics | undefined;
  /** Called when the local-safe (= safe, pre-interop) head advances, with the L1 block it was derived from. */
  readonly onSafeHead?: ((safe: L2BlockRef, derivedFrom: L1BlockRef) => Promise<void>) | undefined;
  /** L2 block ref of an execution payload (decodes the L1-info deposit). */
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
}

const RPC_INVALID_FORKCHOICE = -38002;
const RPC_INVALID_ATTRIBUTES = -38003;
const RPC_UNKNOWN_PAYLOAD = -38001;

function rpcCodeOf(err: unknown): number | undefined {
  const c = (err as { rpcCode?: unknown } | null)?.rpcCode;
  return typeof c === "number" ? c : undefined;
}

export class InvalidPayloadError extends SupernodeError {
  constructor(message: string) {
    super("INVALID_PAYLOAD", message, { severity: "temporary" });
  }
}

export class EngineController {
  heads: L2Heads;
  /** A forkchoice update is owed to the EL (derived promotions are batched). */
  private fcuDirty = false;
  private readonly d: EngineControllerDeps;
  /** Blocks the EL already has, fetched ahead while consolidating a long run of them (catch-up). */
  private prefetched = new Map<number, Promise<ExecutionPayloadEnvelope | undefined>>();
  /** Highest block number requested in the batched look-ahead. */
  private prefetchedTo = 0;
  private static readonly PREFETCH_AHEAD = 8;
  private static readonly LOOKAHEAD_BATCH = 32;
  private static readonly LOOKAHEAD = 64;

  constructor(deps: EngineControllerDeps) {
    this.d = deps;
    this.heads = allHeads(genesisL2Ref(deps.cfg));
  }

  /** Loads the heads from the EL's labels (`latest`, `safe`, `finalized`); missing ones default to genesis. */
  async loadHeadsFromEngine(): Promise<L2Heads> {
    const e = this.d.engine;
    const genesis = (await e.l2BlockRefByNumber(this.d.cfg.genesis.l2.number)) ?? genesisL2Ref(this.d.cfg);
    const finalized = (await e.l2BlockRefByLabel("finalized")) ?? genesis;
    const safe = (await e.l2BlockRefByLabel("safe")) ?? finalized;
    const unsafe = (await e.l2BlockRefByLabel("latest")) ?? safe;
    this.heads = { unsafe, crossUnsafe: unsafe, pendingSafe: safe, localSafe: safe, safe, finalized };
    return this.heads;
  }

  /** Replaces every head (after a reset found a consistent start point) and sends the forkchoice update. */
  async forceReset(unsafe: L2BlockRef, safe: L2BlockRef, finalized: L2BlockRef): Promise<void> {
    this.heads = { unsafe, crossUnsafe: unsafe, pendingSafe: safe, localSafe: safe, safe, finalized };
    this.dropPrefetched();
    this.fcuDirty = true;
    await this.flushForkchoice();
  }

  /**
   * The EL's block `n`, with a bounded look-ahead for a long run of consolidations (catch-up): with batched reads,
   * the following blocks up to LOOKAHEAD ahead (never beyond the unsafe head) are requested BATCH at a time in
   * JSON-RPC batch requests; without, up to PREFETCH_AHEAD single requests run concurrently. The look-ahead is
   * dropped whenever the heads change under it (build, insertion, reset).
   */
  private existingBlock(n: number): Promise<ExecutionPayloadEnvelope | undefined> {
    const p = this.prefetched.get(n) ?? this.timed("payloadByNumber", () => this.d.engine.payloadByNumber(n));
    this.prefetched.delete(n);
    this.prefetchFrom(n + 1);
    return p;
  }

  private prefetchFrom(from: number): void {
    const unsafe = this.heads.unsafe.number;
    const batched = (this.d.engine as Partial<BatchedPayloadReads>).payloadsByNumber;
    if (typeof batched !== "function") {
      const last = Math.min(from - 1 + EngineController.PREFETCH_AHEAD, unsafe);
      for (let k = from; k <= last; k++) {
        if (this.prefetched.has(k)) continue;
        const q = this.d.engine.payloadByNumber(k);
        q.catch(() => {});
        this.prefetched.set(k, q);
      }
      return;
    }
    const B = EngineController.LOOKAHEAD_BATCH;
    const limit = Math.min(from - 1 + EngineController.LOOKAHEAD, unsafe);
    let start = Math.max(from, this.prefetchedTo + 1);
    // Whole batches only, except when nothing is requested ahead (then up to the limit).
    while (start <= limit && (limit - start + 1 >= B || start === from)) {
      const end = Math.min(start + B - 1, limit);
      const ns: number[] = [];
      for (let k = start; k <= end; k++) ns.push(k);
      const all = this.timed("payloadsByNumber", () => batched.call(this.d.engine, ns));
      ns.forEach((k, i) => {
        const q = all.then((r) => {
          const v = r[i];
          if (v instanceof Error) throw v;
          return v;
        });
        q.catch(() => {});
        this.prefetched.set(k, q);
      });
      this.prefetchedTo = end;
      start = end + 1;
    }
  }

  /** Forgets the look-ahead (the EL's canonical chain may change under it). */
  private dropPrefetched(): void {
    this.prefetched.clear();
    this.prefetchedTo = 0;
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
    if (!this.fcuDirty && !force) return;
    let res: Awaited<ReturnType<EngineApi["forkchoiceUpdated"]>>;
    try {
      res = await this.timed("forkchoiceUpdated", () => this.d.engine.forkchoiceUpdated(this.state()));
    } catch (err) {
      if (rpcCodeOf(err) === RPC_INVALID_FORKCHOICE) {
        throw new ResetError("INVALID_FORKCHOICE", "forkchoice update rejected: invalid forkchoice state", {}, err);
      }
      throw new TemporaryError("ENGINE_FCU", "forkchoice update failed", {}, err);
    }
    const st = res.payloadStatus.status;
    if (st === "INVALID" || st === "INVALID_BLOCK_HASH") {
      throw new ResetError("FCU_INVALID", `forkchoice update returned ${st}`, {
        validationError: res.payloadStatus.validationError ?? "",
      });
    }
    this.fcuDirty = false;
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
    const ps = this.heads.pendingSafe;
    if (d.parent.hash !== ps.hash || d.parent.number !== ps.number) {
      throw new ResetError("STALE_ATTRIBUTES", "derived attributes do not build on the pending-safe head", {
        parent: d.parent.number,
        pendingSafe: ps.number,
      });
    }
    if (ps.number < this.heads.unsafe.number) {
      let existing = await this.existingBlock(ps.number + 1);
      if (existing !== undefined && attributesMatchBlock(this.d.cfg, d.attributes, ps.hash, existing) !== undefined) {
        // A prefetched block may be stale: decide on a fresh read.
        this.dropPrefetched();
        existing = await this.timed("payloadByNumber", () => this.d.engine.payloadByNumber(ps.number + 1));
      }
      if (existing !== undefined) {
        const mismatch = attributesMatchBlock(this.d.cfg, d.attributes, ps.hash, existing);
        if (mismatch === undefined) {
          const ref = this.d.refFromPayload(existing);
          await this.promoteDerived(ref, d);
          return "consolidated";
        }
        this.d.logger.warn(
          { number: ps.number + 1, reason: mismatch },
          "L2 reorg: derived attributes differ from the unsafe block; building the derived block",
        );
      }
    }
    const built = await this.buildAndInsert(d.attributes, d.parent, d);
    if (built === undefined) {
      if (d.depositsOnly) throw new CriticalError("DEPOSITS_ONLY_INVALID", "deposit-only attributes were rejected");
      return "invalid";
    }
    await this.promoteDerived(built.ref, d);
    return "built";
  }

  private async promoteDerived(ref: L2BlockRef, d: DerivedAttributes): Promise<void> {
    if (ref.number > this.heads.unsafe.number || this.heads.unsafe.hash !== ref.hash) {
      if (ref.number >= this.heads.unsafe.number || !(await this.isCanonicalUnsafe(ref))) {
        this.heads.unsafe = ref;
        this.heads.crossUnsafe = ref;
      }
    }
    this.heads.pendingSafe = ref;
    if (d.concluding) {
      this.heads.localSafe = ref;
      this.heads.safe = ref;
      this.fcuDirty = true;
      await this.d.onSafeHead?.(ref, d.derivedFrom);
    }
  }

  private async isCanonicalUnsafe(ref: L2BlockRef): Promise<boolean> {
    // A consolidated block below the unsafe head is on the unsafe chain by construction (it matched the EL's
    // canonical block at that height).
    return ref.number <= this.heads.unsafe.number;
  }

  /**
   * Builds a block from `attrs` on `parent` and inserts it as the new unsafe head. Returns undefined when the EL
   * rejected the attributes or the payload as invalid.
   */
  async buildAndInsert(
    attrs: PayloadAttributes,
    parent: L2BlockRef,
    meta: { l1origin: BlockId; sequenceNumber: number },
  ): Promise<{ envelope: ExecutionPayloadEnvelope; ref: L2BlockRef } | undefined> {
    const fc: ForkchoiceState = {
      headBlockHash: parent.hash,
      safeBlockHash: this.heads.safe.number <= parent.number ? this.heads.safe.hash : parent.hash,
      finalizedBlockHash: this.heads.finalized.number <= parent.number ? this.heads.finalized.hash : parent.hash,
    };
    let payloadId: `0x${string}` | null;
    try {
      const res = await this.timed("forkchoiceUpdated", () => this.d.engine.forkchoiceUpdated(fc, attrs));
      const st = res.payloadStatus.status;
      if (st === "INVALID" || st === "INVALID_BLOCK_HASH") {
        this.d.logger.warn({ status: st, error: res.payloadStatus.validationError }, "build start rejected");
        return undefined;
      }
      if (st !== "VALID") throw new TemporaryError("ENGINE_SYNCING", `build start: engine is ${st}`);
      payloadId = res.payloadId;
    } catch (err) {
      const code = rpcCodeOf(err);
      if (code === RPC_INVALID_ATTRIBUTES) {
        this.d.logger.warn({ err: String(err) }, "payload attributes rejected as invalid");
        return undefined;
      }
      if (code === RPC_INVALID_FORKCHOICE) {
        throw new ResetError("INVALID_FORKCHOICE", "build start: invalid forkchoice state", {}, err);
      }
      if (err instanceof SupernodeError && err.severity !== "critical") throw err;
      throw new TemporaryError("ENGINE_BUILD_START", "build start failed", {}, err);
    }
    if (payloadId === null) throw new TemporaryError("ENGINE_NO_PAYLOAD_ID", "build start returned no payload id");
    this.dropPrefetched();
    const id = payloadId;
    let envelope: ExecutionPayloadEnvelope;
    try {
      envelope = await this.timed("getPayload", () => this.d.engine.getPayload(id, attrs.timestamp));
    } catch (err) {
      const code = rpcCodeOf(err);
      throw new TemporaryError(
        code === RPC_UNKNOWN_PAYLOAD ? "ENGINE_UNKNOWN_PAYLOAD" : "ENGINE_GET_PAYLOAD",
        "sealing the block failed",
        {},
        err,
      );
    }
    const txs = envelope.executionPayload.transactions;
    if (txs.length === 0 || !txs[0]?.toLowerCase().startsWith("0x7e")) {
      this.d.logger.warn({}, "sealed payload does not start with a deposit");
      return undefined;
    }
    const ok = await this.insertPayload(envelope);
    if (!ok) return undefined;
    const p = envelope.executionPayload;
    const ref: L2BlockRef = {
      hash: p.blockHash,
      number: p.blockNumber,
      parentHash: p.parentHash,
      timestamp: p.timestamp,
      l1origin: { hash: meta.l1origin.hash, number: meta.l1origin.number },
      sequenceNumber: meta.sequenceNumber,
    };
    this.heads.unsafe = ref;
    this.heads.crossUnsafe = ref;
    this.fcuDirty = true;
    this.d.metrics?.blocksBuilt.inc();
    return { envelope, ref };
  }

  /** `engine_newPayload`; true on VALID, false on INVALID; SYNCING/ACCEPTED → temporary error. */
  private async insertPayload(envelope: ExecutionPayloadEnvelope): Promise<boolean> {
    let st: Awaited<ReturnType<EngineApi["newPayload"]>>;
    try {
      st = await this.timed("newPayload", () => this.d.engine.newPayload(envelope));
    } catch (err) {
      throw new TemporaryError("ENGINE_NEW_PAYLOAD", "newPayload failed", {}, err);
    }
    if (st.status === "VALID") return true;
    if (st.status === "INVALID" || st.status === "INVALID_BLOCK_HASH") {
      this.d.logger.warn({ status: st.status, error: st.validationError }, "payload rejected");
      return false;
    }
    throw new TemporaryError("ENGINE_SYNCING", `newPayload: engine is ${st.status}`);
  }

  /**
   * Inserts an unsafe payload (gossip / sequencer-restart / EL sync) that extends the unsafe head.
   * Returns "inserted", "ignored" (does not extend the head) or "invalid".
   */
  async insertUnsafePayload(envelope: ExecutionPayloadEnvelope): Promise<"inserted" | "ignored" | "invalid"> {
    const p = envelope.executionPayload;
    const u = this.heads.unsafe;
    if (p.blockNumber !== u.number + 1 || p.parentHash.toLowerCase() !== u.hash.toLowerCase()) return "ignored";
    if (!(await this.insertPayload(envelope))) return "invalid";
    this.dropPrefetched();
    const ref = this.d.refFromPayload(envelope);
    this.heads.unsafe = ref;
    this.heads.crossUnsafe = ref;
    this.fcuDirty = true;
    await this.flushForkchoice();
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
