/**
 * Execution-layer sync mode (`syncmode=execution-layer`, op-node §3.5–3.6): instead of deriving every block, the
 * node hands unsafe payloads to the execution client, which fetches the missing chain itself, and resumes
 * derivation from the tip once the EL has it.
 *
 *   will-start ──first payload──► started            (EL has no finalized block beyond genesis, or the engine kind
 *        │                          │                  supports post-finalization EL sync: SafeDB cleared)
 *        └─(finalized block, kind without post-finalization EL sync)──► finished (no EL sync; the payload is re-queued)
 *   started ──newPayload or forkchoiceUpdated VALID──► finished-not-finalized
 *   finished-not-finalized ──next insertion (safe = finalized = head − offset, never backwards)──► finished
 *
 * While not finished, derivation, finality and sequencing wait; payloads are inserted with `engine_newPayload` +
 * `engine_forkchoiceUpdated(head = payload)`, and SYNCING/ACCEPTED answers are expected, not errors. The only
 * behaviour that differs by engine kind: `variant_a` (reth-like) may start EL sync after finalization,
 * `variant_b` (geth-like, default) only when the EL has no finalized block or it is the rollup genesis. With
 * `syncmode.req-resp` off (the default) payloads keep being inserted this way after EL sync, so the EL fills gaps.
 */
import { ResetError, TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { ExecutionEngine, ForkchoiceState, PayloadStatusKind, SafeDbPort } from "../ports.js";
import type { EngineController } from "../engine/engine-controller.js";
import type { UnsafePayload } from "./unsafe-queue.js";

export type EngineKind = "variant_a" | "variant_b";
export type SyncMode = "consensus-layer" | "execution-layer";
export type ElSyncStatus = "cl" | "will-start" | "started" | "finished-not-finalized" | "finished";

/** op-node `Kind.SupportsPostFinalizationELSync`: true for reth/erigon (variant_a), false for geth (variant_b). */
export function supportsPostFinalizationElSync(kind: EngineKind): boolean {
  return kind === "variant_a";
}

/** Whether the first unsafe payload starts EL sync, given the EL's finalized block (undefined: none). */
export function shouldStartElSync(kind: EngineKind, finalized: L2BlockRef | undefined, cfg: RollupConfig): boolean {
  if (finalized === undefined) return true;
  const atGenesis = finalized.number <= cfg.genesis.l2.number || eqHash(finalized.hash, cfg.genesis.l2.hash);
  return atGenesis || supportsPostFinalizationElSync(kind);
}

const eqHash = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
const RPC_INVALID_FORKCHOICE = -38002;

export interface ElSyncDeps {
  readonly cfg: RollupConfig;
  readonly kind: EngineKind;
  readonly engine: ExecutionEngine;
  /** Heads are read from and written to its public `heads` field. */
  readonly controller: EngineController;
  readonly safeDb?: SafeDbPort | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `syncmode.offset-el-safe` in blocks: safe/finalized this far behind the tip when EL sync finishes. */
  readonly offsetBlocks?: number | undefined;
}

export type ElSyncInsertResult =
  /** Inserted (the EL may still be syncing towards it). */
  | "inserted"
  /** At or below the unsafe head: nothing to do. */
  | "ignored"
  /** The EL rejected the payload. */
  | "invalid"
  /** EL sync was skipped (finalized block exists): nothing was sent; the caller re-queues the payload. */
  | "skipped";

export class ElSync {
  private st: ElSyncStatus;
  private startedAtMs = 0;
  private readonly d: ElSyncDeps;

  constructor(mode: SyncMode, deps: ElSyncDeps) {
    this.d = deps;
    this.st = mode === "execution-layer" ? "will-start" : "cl";
  }

  get status(): ElSyncStatus {
    return this.st;
  }

  /** The initial EL sync is under way (derivation, finality and sequencing wait). */
  get syncing(): boolean {
    return this.st === "will-start" || this.st === "started" || this.st === "finished-not-finalized";
  }

  /** Whether unsafe payloads are inserted here (EL-sync mode) rather than through the consensus-layer queue. */
  directInsert(reqResp: boolean): boolean {
    return this.st !== "cl" && (this.syncing || !reqResp);
  }

  private accepted(kind: "newPayload" | "forkchoiceUpdated", s: PayloadStatusKind): boolean {
    if (s === "VALID" && this.st === "started") this.st = "finished-not-finalized";
    return s === "VALID" || s === "SYNCING" || (kind === "newPayload" && s === "ACCEPTED");
  }

  /**
   * Inserts `env` as the new unsafe head (newPayload + forkchoiceUpdated). Returns `finished: true` when this
   * insertion completed EL sync (the caller then resets from the EL's labels and resumes derivation).
   */
  async insert(u: UnsafePayload): Promise<{ result: ElSyncInsertResult; finished: boolean }> {
    const d = this.d;
    const { envelope: env, ref } = u;
    // Settle the controller first (a derived block may still await its verdict; an owed forkchoice update goes out).
    await d.controller.flushForkchoice();
    const heads = d.controller.heads;
    if (ref.number <= heads.unsafe.number) return { result: "ignored", finished: false };
    if (this.st === "will-start") {
      const fin = await d.engine.l2BlockRefByLabel("finalized");
      if (!shouldStartElSync(d.kind, fin, d.cfg)) {
        this.st = "finished";
        d.logger.info(
          { finalized: fin?.number, kind: d.kind },
          "skipping EL sync and going straight to CL sync because there is a finalized block",
        );
        return { result: "skipped", finished: false };
      }
      this.st = "started";
      this.startedAtMs = d.clock.nowMs();
      d.logger.info({ target: ref.number, kind: d.kind }, "starting EL sync");
      // Safe heads now advance without derivation: the SafeDB would answer wrongly.
      if (d.safeDb?.clear !== undefined) await d.safeDb.clear();
      else await d.safeDb?.truncate(-1);
    }

    const p = env.executionPayload;
    let np: Awaited<ReturnType<ExecutionEngine["newPayload"]>>;
    try {
      np = await d.engine.newPayload(env);
    } catch (err) {
      throw new TemporaryError("ENGINE_NEW_PAYLOAD", "EL sync: newPayload failed", {}, err);
    }
    if (np.status === "INVALID" || np.status === "INVALID_BLOCK_HASH") {
      d.logger.warn({ number: p.blockNumber, status: np.status, error: np.validationError }, "unsafe payload invalid");
      return { result: "invalid", finished: false };
    }
    if (!this.accepted("newPayload", np.status)) {
      throw new TemporaryError("ENGINE_NEW_PAYLOAD", `EL sync: newPayload returned ${np.status}`);
    }

    const fc: { -readonly [K in keyof ForkchoiceState]: ForkchoiceState[K] } = {
      headBlockHash: p.blockHash,
      safeBlockHash: heads.safe.hash,
      finalizedBlockHash: heads.finalized.hash,
    };
    const finishing = this.st === "finished-not-finalized";
    let safeRef = heads.safe;
    let finRef = heads.finalized;
    if (finishing) {
      const offsetRef = await this.offsetRef(ref);
      // Post-finalization EL sync (variant_a) never moves safe/finalized backwards.
      if (offsetRef.number > finRef.number) finRef = offsetRef;
      if (offsetRef.number > safeRef.number) safeRef = offsetRef;
      fc.safeBlockHash = safeRef.hash;
      fc.finalizedBlockHash = finRef.hash;
    }
    let fcu: Awaited<ReturnType<ExecutionEngine["forkchoiceUpdated"]>>;
    try {
      fcu = await d.engine.forkchoiceUpdated(fc);
    } catch (err) {
      if ((err as { rpcCode?: unknown }).rpcCode === RPC_INVALID_FORKCHOICE) {
        throw new ResetError("INVALID_FORKCHOICE", "EL sync: forkchoice update inconsistent with the engine", {}, err);
      }
      throw new TemporaryError("ENGINE_FCU", "EL sync: forkchoice update failed", {}, err);
    }
    if (!this.accepted("forkchoiceUpdated", fcu.payloadStatus.status)) {
      throw new TemporaryError(
        "ENGINE_FCU",
        `EL sync: cannot prepare the unsafe chain for the new payload: ${fcu.payloadStatus.status}`,
      );
    }
    const next = finishing
      ? {
          unsafe: ref,
          crossUnsafe: ref,
          pendingSafe: safeRef,
          localSafe: safeRef,
          safe: safeRef,
          finalized: finRef,
        }
      : { ...d.controller.heads, unsafe: ref, crossUnsafe: ref };
    // Outside the initial EL sync the controller's published heads learn the new heads too (the EL has just
    // accepted exactly this forkchoice state); during it only the working heads move.
    if (this.st === "finished" || finishing) d.controller.adoptAcknowledged(next);
    else d.controller.heads = next;
    if (finishing) {
      this.st = "finished";
      d.logger.info(
        {
          durationMs: d.clock.nowMs() - this.startedAtMs,
          unsafe: ref.number,
          safe: safeRef.number,
          finalized: finRef.number,
        },
        "finished EL sync",
      );
    }
    return { result: "inserted", finished: finishing };
  }

  /**
   * Consensus-layer sync without req-resp (op-node `checkForGapInUnsafeQueue`): when the lowest queued payload is
   * beyond unsafe+1, hand it to the EL (newPayload, then forkchoiceUpdated(head = payload)) so the EL fetches the gap
   * itself. The unsafe head moves only once the EL reports the head VALID; SYNCING means "ask again later".
   */
  async catchUp(u: UnsafePayload): Promise<"inserted" | "syncing" | "invalid"> {
    const d = this.d;
    const { envelope: env, ref } = u;
    const p = env.executionPayload;
    await d.controller.flushForkchoice();
    let np: Awaited<ReturnType<ExecutionEngine["newPayload"]>>;
    try {
      np = await d.engine.newPayload(env);
    } catch (err) {
      throw new TemporaryError("ENGINE_NEW_PAYLOAD", "unsafe gap: newPayload failed", {}, err);
    }
    if (np.status === "INVALID" || np.status === "INVALID_BLOCK_HASH") return "invalid";
    if (np.status !== "VALID" && np.status !== "SYNCING") return "syncing";
    const heads = d.controller.heads;
    let fcu: Awaited<ReturnType<ExecutionEngine["forkchoiceUpdated"]>>;
    try {
      fcu = await d.engine.forkchoiceUpdated({
        headBlockHash: p.blockHash,
        safeBlockHash: heads.safe.hash,
        finalizedBlockHash: heads.finalized.hash,
      });
    } catch (err) {
      if ((err as { rpcCode?: unknown }).rpcCode === RPC_INVALID_FORKCHOICE) {
        throw new ResetError(
          "INVALID_FORKCHOICE",
          "unsafe gap: forkchoice update inconsistent with the engine",
          {},
          err,
        );
      }
      throw new TemporaryError("ENGINE_FCU", "unsafe gap: forkchoice update failed", {}, err);
    }
    const st = fcu.payloadStatus.status;
    if (st === "INVALID" || st === "INVALID_BLOCK_HASH") return "invalid";
    if (st !== "VALID") {
      d.logger.info({ target: ref.number, unsafe: heads.unsafe.number }, "execution client syncing the unsafe gap");
      return "syncing";
    }
    d.controller.adoptAcknowledged({ ...d.controller.heads, unsafe: ref, crossUnsafe: ref });
    return "inserted";
  }

  private async offsetRef(tip: L2BlockRef): Promise<L2BlockRef> {
    const n = this.d.offsetBlocks ?? 0;
    const target = Math.max(this.d.cfg.genesis.l2.number, tip.number - Math.max(0, n));
    if (target >= tip.number) return tip;
    const ref = await this.d.engine.l2BlockRefByNumber(target);
    if (ref === undefined)
      throw new TemporaryError("EL_SYNC_OFFSET", `EL sync offset-derived head ${target} not found`);
    return ref;
  }
}
