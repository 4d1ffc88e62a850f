/**
 * Payload insertion (`engine_newPayload`) for the engine controller, and the derived block adopted before its
 * verdict (ADR 0040): after `getPayload` the node knows the block's ref, so derivation goes on with the next block
 * while the EL checks this one; every later engine operation settles it first.
 *
 * When the engine port can send `newPayload` and `forkchoiceUpdated` in one request (docs/performance.md), the adopted
 * block's `newPayload` is not sent at once but held until the next forkchoice update that builds on it (the next
 * derived block's build start, or the flush of the heads), and both go in one JSON-RPC batch: one round trip, one
 * sleep and wake-up of the node's thread, instead of two. Any other engine operation sends it alone first.
 */
import { ResetError, TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import type {
  EngineApi,
  ExecutionPayloadEnvelope,
  ForkchoiceResult,
  ForkchoiceState,
  PayloadAttributes,
  PayloadStatus,
} from "../ports.js";
import type { L2Heads } from "./heads.js";

export interface PayloadInserterDeps {
  readonly engine: EngineApi;
  readonly logger: Logger;
  /** Times an engine call (latency metric by method). */
  readonly timed: <T>(method: string, fn: () => Promise<T>) => Promise<T>;
  /** An adopted block was rejected (or got no verdict): put these heads back; a ResetError follows. */
  readonly restoreHeads: (before: L2Heads) => void;
}

/**
 * The forkchoice update's own outcome: its result, or its error (unclassified, for the caller); with a `fetch`,
 * `payload` is the batched getPayload's outcome when it went out.
 */
export type ForkchoiceOutcome =
  | {
      readonly ok: true;
      readonly result: ForkchoiceResult;
      readonly payload?: ExecutionPayloadEnvelope | Error;
    }
  | { readonly ok: false; readonly error: unknown };

/** getPayload of a predicted id, to send with a build start (docs/performance.md). */
export interface PayloadFetch {
  readonly payloadId: Hex;
}

/** A derived block adopted before the EL's verdict on it. */
interface Adopted {
  readonly envelope: ExecutionPayloadEnvelope;
  /** The `newPayload` verdict; undefined while the call is held for the next forkchoice update. */
  valid: Promise<boolean> | undefined;
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

  /**
   * Adopts `envelope` (a derived block just sealed by the EL) before its verdict: its `newPayload` is held for the
   * next forkchoice update when the port batches, sent at once otherwise.
   */
  adopt(envelope: ExecutionPayloadEnvelope, before: L2Heads, parentHash: Hash): void {
    const valid = this.batching() ? undefined : this.insert(envelope);
    valid?.catch(() => {});
    this.adopted = { envelope, valid, before, parentHash, deferred: [] };
  }

  /** Runs `fn` once the adopted block is accepted; false (nothing deferred) when no block awaits its verdict. */
  defer(fn: () => Promise<void>): boolean {
    if (this.adopted === undefined) return false;
    this.adopted.deferred.push(fn);
    return true;
  }

  /**
   * Waits for the verdict on the adopted block, if any (sending its held `newPayload` first). On VALID its deferred
   * work runs (the safe-head callback); otherwise the heads are put back and a ResetError asks the node to reset
   * (derivation has already moved past the block), and the block's parent is marked so that the re-derived block
   * is inserted synchronously this time (then INVALID takes the normal path: deposits-only replacement or batch
   * drop).
   */
  async settle(): Promise<void> {
    const f = this.adopted;
    if (f === undefined) return;
    this.adopted = undefined;
    let ok = false;
    let cause: unknown;
    try {
      ok = await (f.valid ?? this.insert(f.envelope));
    } catch (err) {
      cause = err;
    }
    if (cause !== undefined && f.valid !== undefined) {
      // No verdict (a transport error, or the EL was busy): newPayload is idempotent, ask once more before
      // giving up on the work derived since.
      this.d.logger.debug({ err: String(cause), number: f.envelope.executionPayload.blockNumber }, "newPayload retry");
      try {
        ok = await this.insert(f.envelope);
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
   * Sends a forkchoice update, after settling the adopted block. When that block's `newPayload` is held and the
   * update makes it the head, both go in one request; the block's verdict is decided first, exactly as
   * {@link settle} does (its failures throw), and only then is the update's own outcome returned. An update the EL
   * answered SYNCING although it had just accepted the head shows that it did not run the batch in order: batching
   * stops and the update is sent again on its own.
   *
   * `fetch` (a build start with a predicted payload id, docs/performance.md): `getPayload` of that id rides in the same request
   * when the port batches; its outcome comes back as `payload` next to the update's result, for the caller to use
   * only when the update returned that very id. Its error is never the update's.
   */
  async forkchoice(fc: ForkchoiceState, attrs?: PayloadAttributes, fetch?: PayloadFetch): Promise<ForkchoiceOutcome> {
    const f = this.adopted;
    const e = this.d.engine;
    const batching = this.batching();
    const held =
      f !== undefined && f.valid === undefined && f.envelope.executionPayload.blockHash === fc.headBlockHash && batching
        ? f
        : undefined;
    const withPayload = fetch !== undefined && attrs !== undefined && batching && e.buildStartWithPayload !== undefined;
    if (!withPayload && (held === undefined || e.newPayloadAndForkchoice === undefined)) {
      await this.settle();
      return this.forkchoiceAlone(fc, attrs);
    }
    if (held === undefined) await this.settle();
    let np: PayloadStatus | Error | undefined;
    let res: ForkchoiceResult | Error;
    let payload: ExecutionPayloadEnvelope | Error | undefined;
    if (withPayload) {
      const req = { held: held?.envelope, state: fc, attrs, ...fetch };
      const r = await this.d
        .timed("buildStartWithPayload", () => e.buildStartWithPayload!(req))
        .catch((err: unknown) => ({ newPayload: err as Error, forkchoice: err as Error, payload: err as Error }));
      np =
        held === undefined
          ? undefined
          : (r.newPayload ?? new TemporaryError("ENGINE_NEW_PAYLOAD", "newPayload: no answer in the batch"));
      res = r.forkchoice;
      payload = r.payload;
    } else {
      [np, res] = await this.d
        .timed("newPayloadAndForkchoiceUpdated", () => e.newPayloadAndForkchoice!(held!.envelope, fc, attrs))
        .catch((err: unknown) => [err as Error, err as Error] as const);
    }
    // One error object for the first two elements: the request failed as a whole, or the EL refused the batch.
    const first = held === undefined ? res : np;
    const whole = first instanceof Error && first === (held === undefined ? payload : res);
    if (whole && !isTransportFailure(first)) e.stopBatchingEngineCalls?.(`batch refused: ${first.message}`);
    if (held !== undefined) {
      const st = np;
      held.valid = st === undefined || st instanceof Error ? Promise.reject(st) : (async () => this.verdict(st))();
      held.valid.catch(() => {});
      await this.settle();
      if (np instanceof Error) return this.forkchoiceAlone(fc, attrs);
    } else if (whole && !isTransportFailure(first)) {
      return this.forkchoiceAlone(fc, attrs);
    }
    if (res instanceof Error) return { ok: false, error: res };
    if (held !== undefined && res.payloadStatus.status === "SYNCING") {
      e.stopBatchingEngineCalls?.("the forkchoice update of a batch ran before its newPayload (answered SYNCING)");
      return this.forkchoiceAlone(fc, attrs);
    }
    return payload === undefined ? { ok: true, result: res } : { ok: true, result: res, payload };
  }

  /**
   * Inserts `envelope` synchronously (its verdict decides) together with the forkchoice update `fc` that makes it
   * the head: one batch when the port batches, `newPayload` alone otherwise. Returns the verdict and, when the
   * update went along and the EL accepted it, its result; without one the caller still owes the update (its
   * failures are then reported by the caller's own forkchoice update, as before).
   */
  async insertAsHead(
    envelope: ExecutionPayloadEnvelope,
    fc: ForkchoiceState,
  ): Promise<{ valid: boolean; forkchoice?: ForkchoiceResult }> {
    await this.settle();
    const e = this.d.engine;
    if (!this.batching() || e.newPayloadAndForkchoice === undefined) return { valid: await this.insert(envelope) };
    let pair: readonly [PayloadStatus | Error, ForkchoiceResult | Error];
    try {
      pair = await this.d.timed("newPayloadAndForkchoiceUpdated", () => e.newPayloadAndForkchoice!(envelope, fc));
    } catch {
      return { valid: await this.insert(envelope) }; // no verdict: newPayload is idempotent, ask alone
    }
    const [np, res] = pair;
    if (np instanceof Error) {
      if (np === res && !isTransportFailure(np)) e.stopBatchingEngineCalls?.(`batch refused: ${np.message}`);
      return { valid: await this.insert(envelope) };
    }
    const valid = this.verdict(np);
    if (!valid || res instanceof Error) return { valid };
    if (res.payloadStatus.status === "SYNCING") {
      e.stopBatchingEngineCalls?.("the forkchoice update of a batch ran before its newPayload (answered SYNCING)");
      return { valid };
    }
    return res.payloadStatus.status === "VALID" ? { valid, forkchoice: res } : { valid };
  }

  /** `engine_newPayload`; true on VALID, false on INVALID; SYNCING/ACCEPTED → temporary error. */
  async insert(envelope: ExecutionPayloadEnvelope): Promise<boolean> {
    let st: PayloadStatus;
    try {
      st = await this.d.timed("newPayload", () => this.d.engine.newPayload(envelope));
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

  private async forkchoiceAlone(fc: ForkchoiceState, attrs?: PayloadAttributes): Promise<ForkchoiceOutcome> {
    try {
      return {
        ok: true,
        result: await this.d.timed("forkchoiceUpdated", () => this.d.engine.forkchoiceUpdated(fc, attrs)),
      };
    } catch (error) {
      return { ok: false, error };
    }
  }

  private batching(): boolean {
    const e = this.d.engine;
    return e.newPayloadAndForkchoice !== undefined && e.batchesEngineCalls !== false;
  }
}

/** A failure of the request itself (network, timeout, HTTP status), not an answer of the EL. */
function isTransportFailure(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && code !== "RPC_ERROR";
}
