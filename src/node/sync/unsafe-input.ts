/**
 * Unsafe payloads on their way into the execution client (op-node §2.12.5 and §3.6): the bounded queue, insertion
 * of the payload that extends the unsafe head (consensus-layer sync), the EL-driven fill of a gap (req-resp off),
 * and direct insertion in execution-layer sync. A temporary failure does not stop the node's other work: the payload
 * stays queued for another try and is dropped after three failures in a row.
 */
import { isAborted, severityOf } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { ExecutionPayloadEnvelope, UnsafeGapFiller } from "../ports.js";
import type { ElSync } from "./el-sync.js";
import type { EngineController } from "../engine/engine-controller.js";
import { type UnsafePayload, UnsafePayloadQueue } from "./unsafe-queue.js";

export interface UnsafeInputDeps {
  readonly cfg: RollupConfig;
  /** `syncmode.req-resp`. */
  readonly reqResp: boolean;
  readonly controller: EngineController;
  readonly elSync: ElSync;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
  readonly queueBounds?: { readonly maxBytes?: number | undefined; readonly maxCount?: number | undefined } | undefined;
  /** With `syncmode.req-resp`: asks P2P peers for the blocks of a gap. */
  readonly gapFiller?: UnsafeGapFiller | undefined;
  /** Interop deny list: a denied payload is dropped. */
  readonly isDenied?: ((height: number, hash: Hash) => boolean) | undefined;
}

/** Gaps whose start is older than this are left to derivation (op-node: 12 h). */
const MAX_GAP_AGE_SEC = 12 * 3600;

export interface UnsafeStepResult {
  readonly progressed: boolean;
  /** EL sync finished: the node must reset from the EL's labels before deriving. */
  readonly elSyncFinished: boolean;
}

const MAX_FAILURES = 3;

export class UnsafeInput {
  readonly queue: UnsafePayloadQueue;
  private failures = 0;
  private lastGapCheckMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly d: UnsafeInputDeps) {
    this.queue = new UnsafePayloadQueue(d.queueBounds?.maxBytes, d.queueBounds?.maxCount);
  }

  /** Queues a payload; false when not queued (duplicate, too large, dropped, or its L1-info deposit is unreadable). */
  add(env: ExecutionPayloadEnvelope): boolean {
    let ref: L2BlockRef;
    try {
      ref = this.d.refFromPayload(env);
    } catch {
      return false;
    }
    const p = env.executionPayload;
    if (this.d.isDenied?.(p.blockNumber, p.blockHash)) {
      this.d.logger.info({ number: p.blockNumber, hash: p.blockHash }, "denied unsafe payload dropped");
      return false;
    }
    const res = this.queue.push({ envelope: env, ref });
    if (res !== "added")
      this.d.logger.debug({ number: env.executionPayload.blockNumber, res }, "unsafe payload not queued");
    return res === "added";
  }

  /**
   * A queued payload extends the unsafe head now (consensus-layer sync; execution-layer sync inserts in its own
   * order): the driver inserts it before further derivation or safety work, so a gossiped block does not wait for
   * a long derivation step.
   */
  insertable(): boolean {
    if (this.d.elSync.directInsert(this.d.reqResp)) return false;
    return this.queue.hasNextFor(this.d.controller.heads.unsafe);
  }

  /** One insertion attempt, if any payload is due. */
  async step(signal: AbortSignal): Promise<UnsafeStepResult> {
    const h = this.d.controller.heads;
    const none = { progressed: false, elSyncFinished: false };
    if (this.d.elSync.directInsert(this.d.reqResp)) {
      const u = this.queue.popAbove(h.unsafe.number);
      if (u === undefined) return none;
      const r = await this.attempt(u, signal, () => this.d.elSync.insert(u));
      if (r === undefined) return none;
      if (r.result === "skipped") this.queue.push(u); // EL sync not needed: the consensus-layer path takes it
      return { progressed: r.result === "inserted" || r.result === "skipped", elSyncFinished: r.finished };
    }
    const next = this.queue.nextFor(h.unsafe, h.safe);
    if (next === undefined) return { progressed: await this.gapStep(), elSyncFinished: false };
    // Popped only after a definite answer.
    const res = await this.attempt(next, signal, () => this.d.controller.insertUnsafePayload(next.envelope, next.ref));
    if (res === undefined) return none;
    if (this.queue.peek() === next) this.queue.pop();
    const number = next.ref.number;
    if (res === "denied") this.d.logger.info({ number }, "denied unsafe payload dropped");
    if (res === "invalid") this.d.logger.warn({ number }, "unsafe payload invalid");
    return { progressed: res === "inserted", elSyncFinished: false };
  }

  private async attempt<T>(env: UnsafePayload, signal: AbortSignal, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      const r = await fn();
      this.failures = 0;
      return r;
    } catch (err) {
      if (severityOf(err) !== "temporary" || isAborted(err, signal)) {
        this.queue.push(env); // a no-op when still queued (duplicate)
        throw err;
      }
      const number = env.ref.number;
      if (++this.failures >= MAX_FAILURES) {
        this.failures = 0;
        if (this.queue.peek() === env) this.queue.pop();
        this.d.logger.warn({ number, err: String(err) }, "dropping an unsafe payload after repeated failures");
      } else {
        this.queue.push(env); // a no-op when still queued (duplicate)
        this.d.logger.debug({ number, err: String(err) }, "inserting an unsafe payload failed; will retry");
      }
      return undefined;
    }
  }

  /** CL sync without req-resp: every 2·block_time, let the EL fetch a gap below the lowest queued payload. */
  private async gapStep(): Promise<boolean> {
    const now = this.d.clock.nowMs();
    if (now - this.lastGapCheckMs < 2 * this.d.cfg.block_time * 1000) return false;
    const lowest = this.queue.peek();
    const unsafe = this.d.controller.heads.unsafe;
    if (lowest === undefined || lowest.ref.number <= unsafe.number + 1) {
      return false;
    }
    this.lastGapCheckMs = now;
    if (this.d.reqResp) {
      // op-node: ask peers for (unsafe head, first queued), unless the gap starts more than 12 h ago.
      if (this.d.gapFiller !== undefined && unsafe.timestamp >= now / 1000 - MAX_GAP_AGE_SEC) {
        const p = lowest.envelope.executionPayload;
        this.d.gapFiller.requestRange(unsafe.number, { number: p.blockNumber, parentHash: p.parentHash });
      }
      return false;
    }
    const res = await this.d.elSync.catchUp(lowest);
    if (res !== "syncing" && this.queue.peek() === lowest) this.queue.pop();
    return res === "inserted";
  }
}
