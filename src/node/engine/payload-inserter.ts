/**
 * Payload insertion (`engine_newPayload`) for the engine controller, and the derived block adopted before its
 * verdict (ADR 0040): after it is sealed the node knows the block's ref, so derivation goes on with the next block
 * while the EL has yet to check this one; every later engine operation settles it first.
 *
 * The adopted block's `newPayload` is held until the next forkchoice update that makes it the head (the next
 * derived block's build start, or the flush of the heads) and goes with it as one engine operation (the port
 * sends both in one request when the EL takes it: one round trip instead of two, docs/performance.md). Any other
 * engine operation sends it alone first.
 */
import { ResetError, TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Hash } from "../../core/types/primitives.js";
import type {
  ExecutionEngine,
  ForkchoiceResult,
  ForkchoiceState,
  PayloadAttributes,
  PayloadStatus,
  PayloadToInsert,
  BuildStarted,
  SealedPayload,
} from "../ports.js";
import type { L2Heads } from "./heads.js";

export interface PayloadInserterDeps {
  readonly engine: ExecutionEngine;
  readonly logger: Logger;
  /** Times an engine call (latency metric by method). */
  readonly timed: <T>(method: string, fn: () => Promise<T>) => Promise<T>;
  /** An adopted block was rejected (or got no verdict): put these heads back; a ResetError follows. */
  readonly restoreHeads: (before: L2Heads) => void;
}

/**
 * The forkchoice update's own outcome: its result, or its error (unclassified, for the caller); for a build start
 * sealed at once, `sealed` when the payload came with it.
 */
export type ForkchoiceOutcome =
  | { readonly ok: true; readonly result: ForkchoiceResult; readonly sealed?: SealedPayload | undefined }
  | { readonly ok: false; readonly error: unknown };

/** A derived block adopted before the EL's verdict on it. */
interface Adopted {
  readonly payload: SealedPayload;
  /** The `newPayload` outcome; undefined while the call is held for the next forkchoice update. */
  status: PayloadStatus | Error | undefined;
  /** The heads before the block was adopted (restored when the insertion fails). */
  readonly before: L2Heads;
  readonly parentHash: Hash;
  /** Work that must wait for the EL's verdict (the safe-head callback). */
  readonly deferred: (() => Promise<void>)[];
}

export class PayloadInserter {
  private adopted: Adopted | undefined;
  /** A parent whose adopted child failed: its next child is inserted synchronously (exact INVALID handling). */
  private noSpeculationOn: Hash | undefined;

  constructor(private readonly d: PayloadInserterDeps) {}

  /** A derived block awaits its verdict. */
  get pending(): boolean {
    return this.adopted !== undefined;
  }

  /** Whether a derived child of `parentHash` may be adopted before its verdict. */
  mayAdopt(parentHash: Hash): boolean {
    return this.noSpeculationOn !== parentHash;
  }

  /** A child of `parentHash` was inserted synchronously and accepted: adoption is allowed again. */
  insertedOn(parentHash: Hash): void {
    if (this.noSpeculationOn === parentHash) this.noSpeculationOn = undefined;
  }

  /** Adopts `payload` (a derived block just sealed by the EL) before its verdict; its `newPayload` is held. */
  adopt(payload: SealedPayload, before: L2Heads, parentHash: Hash): void {
    this.adopted = { payload, status: undefined, before, parentHash, deferred: [] };
  }

  /** Runs `fn` once the adopted block is accepted; false (nothing deferred) when no block awaits its verdict. */
  defer(fn: () => Promise<void>): boolean {
    if (this.adopted === undefined) return false;
    this.adopted.deferred.push(fn);
    return true;
  }

  /**
   * Decides the adopted block, if any (sending its held `newPayload` first; a `newPayload` that got no answer is
   * asked once more, it is idempotent). On VALID its deferred work runs (the safe-head callback); otherwise the
   * heads are put back and a ResetError asks the node to reset (derivation has already moved past the block), and
   * the block's parent is marked so that the re-derived block is inserted synchronously this time (then INVALID
   * takes the normal path: deposits-only replacement or batch drop).
   */
  async settle(): Promise<void> {
    const f = this.adopted;
    if (f === undefined) return;
    this.adopted = undefined;
    let ok = false;
    let cause: unknown;
    try {
      if (f.status instanceof Error) throw f.status;
      ok = f.status === undefined ? await this.insert(f.payload) : this.verdict(f.status);
    } catch (err) {
      cause = err;
    }
    if (cause !== undefined && f.status !== undefined) {
      this.d.logger.debug(
        { err: String(cause), number: f.payload.envelope.executionPayload.blockNumber },
        "newPayload retry",
      );
      try {
        ok = await this.insert(f.payload);
        cause = undefined;
      } catch (err) {
        cause = err;
      }
    }
    if (!ok) {
      this.d.restoreHeads(f.before);
      this.noSpeculationOn = f.parentHash;
      throw new ResetError(
        "SPECULATIVE_INSERT_FAILED",
        cause === undefined
          ? "the EL rejected a derived payload after its successor was prepared"
          : "inserting a derived payload failed after its successor was prepared",
        {},
        cause,
      );
    }
    for (const fn of f.deferred) await fn();
  }

  /**
   * Sends a forkchoice update (a build start when `attrs` are given), after settling the adopted block. When that
   * block's `newPayload` is held and the update makes it the head, both go as one engine operation; the block's
   * verdict is decided first, exactly as {@link settle} does (its failures throw), and only then is the update's
   * own outcome returned. `sealAtOnce`: a derived block's build start, whose sealed payload may come with it.
   */
  async forkchoice(fc: ForkchoiceState, attrs?: PayloadAttributes, sealAtOnce = false): Promise<ForkchoiceOutcome> {
    const f = this.adopted;
    const held =
      f !== undefined && f.status === undefined && f.payload.envelope.executionPayload.blockHash === fc.headBlockHash
        ? f
        : undefined;
    if (held === undefined) await this.settle();
    const out = await this.send(fc, attrs, sealAtOnce, held?.payload);
    if (held !== undefined) {
      held.status = out.inserted ?? new TemporaryError("ENGINE_NEW_PAYLOAD", "newPayload: no answer");
      await this.settle();
      // The update got no answer of its own (the request failed, or it was not sent): again, alone.
      if (out.inserted instanceof Error || out.forkchoice === undefined) return this.forkchoice(fc, attrs, sealAtOnce);
    }
    const fcu = out.forkchoice ?? new TemporaryError("ENGINE_FCU", "forkchoice update not sent");
    if (fcu instanceof Error) return { ok: false, error: fcu };
    return out.sealed === undefined ? { ok: true, result: fcu } : { ok: true, result: fcu, sealed: out.sealed };
  }

  /**
   * Inserts `payload` synchronously (its verdict decides) together with the forkchoice update `fc` that makes it
   * the head. Returns the verdict and, when the EL accepted the update, its result; without one the caller still
   * owes the update. No verdict (the request failed): a temporary error.
   */
  async insertAsHead(
    payload: PayloadToInsert,
    fc: ForkchoiceState,
  ): Promise<{ valid: boolean; forkchoice?: ForkchoiceResult }> {
    await this.settle();
    const { inserted, forkchoice } = await this.send(fc, undefined, false, payload);
    if (inserted === undefined || inserted instanceof Error) {
      throw new TemporaryError("ENGINE_NEW_PAYLOAD", "newPayload failed", {}, inserted);
    }
    const valid = this.verdict(inserted);
    if (!valid || forkchoice === undefined || forkchoice instanceof Error) return { valid };
    return forkchoice.payloadStatus.status === "VALID" ? { valid, forkchoice } : { valid };
  }

  /** `engine_newPayload`; true on VALID, false on INVALID; SYNCING/ACCEPTED → temporary error. */
  async insert(payload: PayloadToInsert): Promise<boolean> {
    let st: PayloadStatus;
    try {
      st = await this.d.timed("newPayload", () => this.d.engine.newPayload(payload));
    } catch (err) {
      throw new TemporaryError("ENGINE_NEW_PAYLOAD", "newPayload failed", {}, err);
    }
    return this.verdict(st);
  }

  private verdict(st: PayloadStatus): boolean {
    if (st.status === "VALID") return true;
    if (st.status === "INVALID" || st.status === "INVALID_BLOCK_HASH") {
      this.d.logger.warn({ status: st.status, error: st.validationError }, "payload rejected");
      return false;
    }
    throw new TemporaryError("ENGINE_SYNCING", `newPayload: engine is ${st.status}`);
  }

  /**
   * One engine operation: the forkchoice update (a build start when `attrs` are given), after `newPayload(insert)`
   * when given. Never rejects: a failure is the calls' error.
   */
  private send(
    fc: ForkchoiceState,
    attrs: PayloadAttributes | undefined,
    sealAtOnce: boolean,
    insert: PayloadToInsert | undefined,
  ): Promise<BuildStarted> {
    const e = this.d.engine;
    const op: Promise<BuildStarted> =
      attrs !== undefined
        ? this.d.timed("startBuild", () => e.startBuild({ state: fc, attrs, insert, sealAtOnce }))
        : insert !== undefined
          ? this.d.timed("insertAsHead", () => e.insertAsHead(insert, fc))
          : this.d.timed("forkchoiceUpdated", () => e.forkchoiceUpdated(fc)).then((forkchoice) => ({ forkchoice }));
    return op.catch((err: unknown) =>
      insert === undefined ? { forkchoice: err as Error } : { inserted: err as Error, forkchoice: err as Error },
    );
  }
}
