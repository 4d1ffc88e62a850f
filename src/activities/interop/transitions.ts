import { severityOf, TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { BlockId } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import type { ExecutionPayloadEnvelope } from "../../protocol/engine-api-types.js";
import type { InvalidationPayloads, PendingTransition, VerificationResult } from "../../protocol/interop/types.js";
import type { FrontierCache } from "./frontier.js";
import type { InteropChain, InteropMetrics, LogsStorePort, StagedSeal, VerifiedStorePort } from "./ports.js";

export interface TransitionDeps {
  readonly byId: ReadonlyMap<string, InteropChain>;
  /** Chain IDs (decimal) in ascending order. */
  readonly chainIds: () => string[];
  /** Chain ID (decimal) → its logs store. */
  readonly logs: ReadonlyMap<string, LogsStorePort>;
  readonly verified: VerifiedStorePort;
  readonly frontier: FrontierCache;
  /** Where the activity starts when nothing is verified (activation, or later after a backfill). */
  readonly runtimeStart: () => number;
  readonly logger: Logger;
  readonly metrics?: InteropMetrics | undefined;
}

/**
 * Applies the interop activity's written-ahead transitions (op-supernode §5.7): advance (seal every chain's logs
 * and commit the result in one batch), invalidate (each chain denies and replaces its invalid block) and rewind
 * (verified results whose L1 inclusion was reorged out are dropped, the chains and their logs go back). Every step
 * is idempotent, so a replay after a crash and the normal path are the same code.
 */
export class TransitionApplier {
  constructor(private readonly d: TransitionDeps) {}

  /**
   * The invalidation to write ahead, with every invalidated block's payload and its parent's (upstream
   * op-supernode's `InvalidationParentPayloads`; we also keep the block itself, whose offending transactions the
   * deny list names). A payload the EL cannot give fails the round (temporary): it is decided again.
   */
  async invalidation(result: VerificationResult): Promise<PendingTransition> {
    const payloads: Record<string, InvalidationPayloads> = {};
    for (const id of Object.keys(result.invalidHeads).sort()) {
      const head = result.invalidHeads[id];
      if (head === undefined) continue;
      const invalid = await this.payload(id, head.hash);
      payloads[id] = { invalid, parent: await this.payload(id, invalid.executionPayload.parentHash) };
    }
    return { kind: "invalidate", result, payloads };
  }

  /** The rewind to write ahead, with the payload of every chain's kept verified head (upstream `TargetPayloads`). */
  async rewind(at: number): Promise<PendingTransition> {
    const keep = await this.d.verified.get(at - 1);
    const targets: Record<string, ExecutionPayloadEnvelope> = {};
    for (const id of this.d.chainIds()) {
      const head = keep?.l2Heads[id];
      if (head !== undefined) targets[id] = await this.payload(id, head.hash);
    }
    return { kind: "rewind", rewindAtOrAfter: at, targets };
  }

  private async payload(id: string, hash: Hash): Promise<ExecutionPayloadEnvelope> {
    const env = await this.d.byId.get(id)?.payloadByHash(hash);
    if (env === undefined)
      throw new TemporaryError("INTEROP_PAYLOAD_UNKNOWN", `chain ${id}: the EL does not give block ${hash}`);
    return env;
  }

  /** Applies a written-ahead transition; every step is idempotent. True when a timestamp was committed. */
  async apply(t: PendingTransition): Promise<boolean> {
    switch (t.kind) {
      case "advance":
        return this.applyAdvance(t.result);
      case "invalidate":
        await this.applyInvalidate(t.result, t.payloads ?? {});
        return false;
      case "rewind":
        await this.applyRewind(t.rewindAtOrAfter, t.targets ?? {});
        return false;
    }
  }

  private async applyAdvance(r: VerificationResult): Promise<boolean> {
    const prev = this.d.verified.last();
    if (r.l1Inclusion === undefined) throw new Error("advance without an L1 inclusion");
    // Every chain's seal is staged at once and written with the result in one batch (stores sharing the
    // verified store's LevelDB); a seal is idempotent, so a replay stages nothing new.
    const stage = async (id: string): Promise<StagedSeal | undefined> => {
      const head = r.l2Heads[id] as BlockId;
      const store = this.d.logs.get(id);
      if (store === undefined || store.latest()?.hash === head.hash) return undefined;
      const f = await this.d.frontier.get(id, head.hash);
      try {
        return await store.stage([f]);
      } catch (err) {
        // A stale store (an L2 reorg not repaired yet): roll it back to the previous verified head and retry once.
        const back = prev?.l2Heads[id];
        if (severityOf(err) !== "reset" || back === undefined) throw err;
        this.d.logger.warn({ chain: id, to: back.number, err: String(err) }, "repairing the interop logs store");
        await store.rewindTo(back.number);
        return store.stage([f]);
      }
    };
    const staged = await Promise.allSettled(Object.keys(r.l2Heads).sort().map(stage));
    for (const s of staged) if (s.status === "rejected") throw s.reason;
    const seals = staged.flatMap((s) => (s.status === "fulfilled" && s.value !== undefined ? [s.value] : []));
    await this.d.verified.commit({ timestamp: r.timestamp, l1Inclusion: r.l1Inclusion, l2Heads: r.l2Heads }, seals);
    this.d.metrics?.verified(r.timestamp);
    return true;
  }

  private async applyInvalidate(
    r: VerificationResult,
    payloads: Readonly<Record<string, InvalidationPayloads>>,
  ): Promise<void> {
    const failures: string[] = [];
    for (const id of Object.keys(r.invalidHeads).sort()) {
      const head = r.invalidHeads[id];
      const chain = this.d.byId.get(id);
      if (head === undefined || chain === undefined) continue;
      try {
        const out = await chain.invalidate(head, r.timestamp, payloads[id]);
        this.d.metrics?.invalidation(id);
        if (out.denied) this.d.metrics?.denied(id);
        this.d.logger.warn(
          {
            chain: id,
            block: head.number,
            hash: head.hash,
            ts: r.timestamp,
            txIndices: head.txIndices ?? "all",
            rewound: out.rewound,
          },
          "block invalidated",
        );
      } catch (err) {
        failures.push(`chain ${id}: ${String(err)}`);
      }
    }
    if (failures.length > 0)
      throw new Error(`one or more invalidations failed, transition preserved: ${failures.join("; ")}`);
    await this.d.verified.clearPending();
  }

  /**
   * Drops verified results from `at` on: each chain's logs go back to its kept head, its denials decided since are
   * forgotten and its engine is rewound to the kept head (it derives on from there). Every chain is attempted; any
   * failure keeps the transition for the next round.
   */
  private async applyRewind(at: number, targets: Readonly<Record<string, ExecutionPayloadEnvelope>>): Promise<void> {
    const keep = await this.d.verified.get(at - 1);
    const failures: string[] = [];
    for (const id of this.d.chainIds()) {
      const store = this.d.logs.get(id);
      const head = keep?.l2Heads[id];
      try {
        const chain = this.d.byId.get(id) as InteropChain;
        if (store !== undefined) {
          // Nothing verified is kept: keep the backfilled logs (the blocks before the runtime start) only.
          await store.rewindTo(head?.number ?? chain.numberAt(Math.max(this.d.runtimeStart(), chain.genesisTime)) - 1);
        }
        await chain.pruneDenied(at);
        if (head !== undefined && (await chain.rewindEngine(head, targets[id])))
          this.d.logger.warn({ chain: id, to: head.number }, "chain engine rewound to the last verified block");
      } catch (err) {
        failures.push(`chain ${id}: ${String(err)}`);
      }
    }
    if (failures.length > 0) throw new Error(`apply rewind plan: ${failures.join("; ")}`);
    await this.d.verified.rewind(at);
    this.d.frontier.clear();
    this.d.metrics?.rewind();
  }
}
