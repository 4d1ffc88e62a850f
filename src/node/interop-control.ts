/**
 * What the interop activity asks of one chain (op-supernode §2.6 InvalidateBlock / RewindEngine, §2.10 deny list):
 * deny a block and rewind the chain to its parent while it is still canonical, rewind the chain to a verified block
 * after an L1 reorg, and forget denials a rewind of verified results undid. Requests that touch the execution
 * client are queued and run by the node's driver loop (one engine user at a time); the deny list answers the
 * engine controller (denied payloads are never inserted), the unsafe input (denied payloads are dropped) and the
 * sequencer (denied transactions are never included again).
 */
import { CriticalError, severityOf, TemporaryError } from "../core/errors/supernode-error.js";
import type { Logger } from "../core/logger.js";
import type { BlockId, L2BlockRef } from "../core/types/block-ref.js";
import type { Hash, Hex } from "../core/types/primitives.js";
import type { InvalidationPayloads } from "../protocol/interop/types.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import { offendingTxHashes } from "./denied-txs.js";
import type { EngineController } from "./engine/engine-controller.js";
import { resetSafeDb } from "./sync/find-heads.js";
import type {
  DeniedBlock,
  DenyListPort,
  ExecutionEngine,
  ExecutionPayloadEnvelope,
  L1Source,
  SafeDbPort,
} from "./ports.js";

/**
 * A block the interop activity found invalid, with its output (kept for the super roots of the original), and the
 * positions in it of the offending transactions (their executing messages failed): only those are denied for good.
 * Without positions every non-deposit transaction of the block is.
 */
export type InvalidateRequest = Omit<DeniedBlock, "txHashes"> & {
  readonly txIndices?: readonly number[];
  /** The block's and its parent's payloads from the write-ahead record (absent: read from the EL). */
  readonly payloads?: InvalidationPayloads;
};

export interface InvalidateOutcome {
  /** A new deny-list record was written (false on a replay). */
  readonly denied: boolean;
  /** The block was still canonical and the chain was rewound to its parent. */
  readonly rewound: boolean;
}

export interface InteropControlDeps {
  readonly rollup: RollupConfig;
  readonly engine: ExecutionEngine;
  readonly controller: EngineController;
  readonly l1: L1Source;
  readonly safeDb?: SafeDbPort | undefined;
  readonly denyList?: DenyListPort | undefined;
  readonly logger: Logger;
  /** The block ref of a payload (its L1 origin and sequence number from the L1-info deposit). */
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
  /** Restarts derivation on top of `safe` after the heads were rewound (pipeline, finalizer, kept attributes). */
  readonly restartFrom: (safe: L2BlockRef) => Promise<void>;
  /** Whether the node can take requests now (running, heads known, not EL syncing); else why not. */
  readonly notReady: () => string | undefined;
}

interface Request {
  readonly run: () => Promise<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (err: unknown) => void;
}

export class InteropControl {
  private readonly requests: Request[] = [];
  private excluded: ReadonlySet<Hash> | undefined;
  /** The deny list is open and loaded (it opens in the background, docs/performance.md). */
  loaded: boolean;

  constructor(private readonly d: InteropControlDeps) {
    this.loaded = d.denyList === undefined;
  }

  /** Waits for the deny list to open (the driver loop, before its first step; a failed open throws, retried). */
  async load(): Promise<void> {
    await this.d.denyList?.opened();
    this.loaded = true;
  }

  get pending(): boolean {
    return this.requests.length > 0;
  }

  /** Queues `fn` for the driver loop; `wake` pokes the loop. */
  submit<T>(fn: () => Promise<T>, wake: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.requests.push({ run: fn, resolve: resolve as (v: unknown) => void, reject });
      wake();
    });
  }

  /**
   * Runs the queued requests (driver loop). A failed request is answered with its error (the activity keeps its
   * write-ahead transition and retries); only a reset-severity error also goes to the loop (the node resets).
   */
  async runRequests(): Promise<boolean> {
    let ran = false;
    while (this.requests.length > 0) {
      const r = this.requests.shift() as Request;
      ran = true;
      const why = this.d.notReady();
      if (why !== undefined) {
        r.reject(new TemporaryError("CHAIN_NOT_READY", `chain cannot rewind now: ${why}`));
        continue;
      }
      try {
        r.resolve(await r.run());
      } catch (err) {
        r.reject(err);
        if (severityOf(err) === "reset") throw err;
      }
    }
    return ran;
  }

  /** Answers every queued request with `err` (the node stopped). */
  failRequests(err: Error): void {
    for (const r of this.requests.splice(0)) r.reject(err);
  }

  isDenied(height: number, hash: Hash): boolean {
    return this.d.denyList?.isDenied(height, hash) ?? false;
  }

  /** The offending transactions of every denied block: the sequencer never includes them again. */
  excludedTxs(): ReadonlySet<Hash> {
    if (this.excluded === undefined) this.excluded = new Set((this.d.denyList?.all() ?? []).flatMap((b) => b.txHashes));
    return this.excluded;
  }

  /**
   * The height the sequencer must not build while derivation still has to produce the replacement of a block
   * denied there (building its own block first would only be reorged out by the replacement); undefined otherwise.
   * The wait is persisted with the deny list, so a restart inside it does not build that extra block either.
   */
  sequencerHoldAt(localSafe: number): number | undefined {
    const hold = this.d.denyList?.replacementHold();
    if (hold === undefined || localSafe < hold) return hold;
    this.clearHold();
    return undefined;
  }

  private clearHold(): void {
    const list = this.d.denyList;
    if (list === undefined || list.replacementHold() === undefined) return;
    // Not awaited: the clear only saves work after a restart (a stale hold at or below local-safe is dropped then).
    list.setReplacementHold(undefined).catch((err: unknown) => {
      this.d.logger.warn({ err: String(err) }, "clearing the sequencer's replacement hold failed");
    });
  }

  /**
   * InvalidateBlock (driver loop): records the denial, then, if the EL's canonical block at that height is still the
   * denied one, rewinds the chain to its parent; derivation then replaces it by a deposits-only block. Idempotent: a
   * replay after the block was replaced only finds the record there already.
   */
  async invalidate(r: InvalidateRequest): Promise<InvalidateOutcome> {
    const list = this.d.denyList;
    if (list === undefined) throw new CriticalError("DENYLIST_MISSING", "deny list not initialized");
    if (r.height <= 0) throw new CriticalError("DENY_GENESIS", `cannot invalidate genesis block (height=${r.height})`);
    const e = this.d.engine;
    const { txIndices, payloads, ...record } = r;
    if (payloads !== undefined) checkInvalidationPayloads(r.height, r.payloadHash, payloads);
    const payload = payloads?.invalid ?? (await e.payloadByHash(r.payloadHash));
    const txs: readonly Hex[] = payload?.executionPayload.transactions ?? [];
    const denied = await list.add({ ...record, txHashes: offendingTxHashes(txs, txIndices) });
    this.excluded = undefined;
    const canonical = await e.l2BlockRefByNumber(r.height);
    if (canonical === undefined || canonical.hash.toLowerCase() !== r.payloadHash.toLowerCase()) {
      this.d.logger.info({ block: r.height, hash: r.payloadHash, denied }, "denied block is not canonical; no rewind");
      return { denied, rewound: false };
    }
    const parent =
      payloads === undefined ? await e.l2BlockRefByHash(canonical.parentHash) : await this.reinsert(payloads.parent);
    if (parent === undefined)
      throw new TemporaryError("REWIND_PARENT_UNKNOWN", `parent of denied block ${r.height} not found`);
    await this.rewindHeads(parent, r.height);
    this.d.logger.warn(
      { block: r.height, hash: r.payloadHash, parent: parent.number, decisionTimestamp: r.decisionTimestamp },
      "block denied; chain rewound to its parent, its replacement will be derived",
    );
    return { denied, rewound: true };
  }

  /**
   * RewindEngine (driver loop, an L1 reorg of verified results): the chain goes back to its canonical block at
   * `target.number` (the last block still verified) when anything is above it, and derives on from there.
   */
  async rewindTo(target: BlockId, payload?: ExecutionPayloadEnvelope): Promise<boolean> {
    if (payload !== undefined && payload.executionPayload.blockHash.toLowerCase() !== target.hash.toLowerCase())
      throw new CriticalError("REWIND_TARGET_MISMATCH", `rewind target payload is not block ${target.hash}`);
    const ref =
      payload === undefined || this.d.controller.heads.unsafe.number <= target.number
        ? await this.d.engine.l2BlockRefByNumber(target.number)
        : await this.reinsert(payload);
    if (ref === undefined || this.d.controller.heads.unsafe.number <= ref.number) return false;
    await this.rewindHeads(ref, undefined);
    this.d.logger.warn({ to: ref.number, hash: ref.hash }, "chain rewound after an L1 reorg of verified results");
    return true;
  }

  /**
   * Gives the EL the recorded payload of a block the chain rewinds to (a no-op for a block it has; one it pruned
   * is imported again, as upstream op-supernode re-inserts its rewind target) and returns its ref.
   */
  private async reinsert(env: ExecutionPayloadEnvelope): Promise<L2BlockRef> {
    const st = await this.d.engine.newPayload(env);
    if (st.status !== "VALID")
      throw new TemporaryError(
        "REWIND_TARGET_NOT_VALID",
        `rewind target ${env.executionPayload.blockNumber} not accepted by the EL: ${st.status}`,
      );
    return this.d.refFromPayload(env);
  }

  /** Forgets denials decided at or after `timestamp`; returns how many. */
  async pruneDenied(timestamp: number): Promise<number> {
    const removed = (await this.d.denyList?.pruneAtOrAfter(timestamp)) ?? [];
    if (removed.length > 0) {
      this.excluded = undefined;
      this.d.logger.info({ timestamp, removed: removed.map((b) => b.height) }, "denials pruned");
    }
    return removed.length;
  }

  /**
   * Every head to `target` (never moving safe or finalized forward, never below finalized), the SafeDB entries
   * after it dropped as a reset drops them, and derivation restarted on it. `hold` is the sequencer's new wait for
   * a replacement (undefined: none; an earlier one is dropped, derivation may not reach its height any more); it is
   * written before the heads move, so a crash in between at worst leaves a hold at or below local-safe (dropped).
   */
  private async rewindHeads(target: L2BlockRef, hold: number | undefined): Promise<void> {
    const c = this.d.controller;
    const h = c.heads;
    if (target.number < h.finalized.number)
      throw new CriticalError("REWIND_BELOW_FINALIZED", "cannot rewind over finalized head", {
        target: target.number,
        finalized: h.finalized.number,
      });
    await this.d.denyList?.setReplacementHold(hold);
    const safe = h.safe.number <= target.number ? h.safe : target;
    const finalized = h.finalized;
    await c.forceReset(target, safe, finalized, target);
    await resetSafeDb(this.d.rollup, this.d.l1, this.d.safeDb, {
      unsafe: target,
      safe: target,
      finalized,
      how: "walk",
    });
    await this.d.restartFrom(target);
  }
}

/** The recorded payloads must be the invalidated block and its parent (a mismatch is a corrupt record: critical). */
function checkInvalidationPayloads(height: number, hash: Hash, p: InvalidationPayloads): void {
  const inv = p.invalid.executionPayload;
  const par = p.parent.executionPayload;
  if (
    inv.blockHash.toLowerCase() !== hash.toLowerCase() ||
    inv.blockNumber !== height ||
    par.blockHash.toLowerCase() !== inv.parentHash.toLowerCase() ||
    par.blockNumber !== height - 1
  )
    throw new CriticalError(
      "INVALIDATION_PAYLOADS_MISMATCH",
      `recorded payloads are not block ${height} and its parent`,
      {
        height,
        hash,
      },
    );
}
