import { severityOf } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import type { BlockId } from "../../core/types/block-ref.js";
import { ZERO_HASH } from "../../core/types/primitives.js";
import type { DependencySet } from "../../protocol/interop/dependency-set.js";
import type { StoredLog } from "../../protocol/interop/messages.js";
import type { MessageRuleParams } from "../../protocol/interop/rules.js";
import type { PendingTransition, VerificationResult, VerifiedResult } from "../../protocol/interop/types.js";
import type { ChainBlockAt } from "../ports.js";
import { ColdStart, checkSafeHistory } from "./cold-start.js";
import { decideRound, type RoundDecision } from "./decide.js";
import { FrontierCache } from "./frontier.js";
import { InitiatingLookup } from "./initiating-lookup.js";
import { StallWatch } from "./stall-watch.js";
import type {
  InteropChain,
  InteropMetrics,
  InteropState,
  L1Canonical,
  LogsStorePort,
  VerifiedStorePort,
} from "./ports.js";
import { TransitionApplier } from "./transitions.js";
import { type FrontierBlock, verifyTimestamp } from "./verify.js";

export interface InteropActivityConfig {
  readonly activationTimestamp: number;
  readonly dependencySet: DependencySet;
  /** Sleep between rounds that made no progress. */
  readonly idleMs?: number;
  /** Sleep after a failed round. */
  readonly errorMs?: number;
  /** `--interop.log-backfill-depth` in whole seconds (0 or absent = no backfill). */
  readonly backfillDepthS?: number;
  /** No timestamp committed for this long makes the activity `stalled` (one WARN line; default 60 s). */
  readonly stallAfterMs?: number;
}

export interface InteropActivityDeps {
  readonly chains: readonly InteropChain[];
  /** Chain ID (decimal) → its logs store. */
  readonly logs: ReadonlyMap<string, LogsStorePort>;
  readonly verified: VerifiedStorePort;
  readonly l1: L1Canonical;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: InteropMetrics | undefined;
}

/** The activity's status for `supernode_syncStatus`. */
export interface InteropStatus {
  readonly state: InteropState;
  readonly activation_timestamp: number;
  readonly verified_timestamp: number;
  readonly next_timestamp: number | null;
  readonly last_decision: string | null;
  readonly error: string | null;
}

/**
 * The interop activity (op-supernode §5): one round at a time, it observes every chain's local-safe block at the
 * next timestamp, decides (pure), writes the transition ahead, applies it and commits. A pending transition found
 * at the start of a round (a crash) is applied first, so replay and the normal path are the same code.
 */
export class InteropActivity {
  private readonly params: MessageRuleParams;
  private readonly byId = new Map<string, InteropChain>();
  private st: InteropState = "starting";
  private lastDecision: string | null = null;
  private lastError: string | null = null;
  private nextTs: number | undefined;
  /** Logs fetched while verifying this round (reused when the advance is applied). */
  private readonly frontier: FrontierCache;
  private readonly transitions: TransitionApplier;
  /** Start when nothing is verified yet (activation, or later after a backfill). */
  private runtimeStart: number;
  private readonly cold: ColdStart;
  private readonly initiating: InitiatingLookup;
  /** The cold start (or the warm resume) is done; `run` then only runs rounds. */
  private prepared = false;
  /** Check the SafeDB history at the next round (after a start, a wait or an error). */
  private recheckHistory = true;
  /** The state last asked for (`setState` shows `degraded` or `stalled` over it). */
  private wanted: InteropState = "starting";
  private readonly stall: StallWatch;

  constructor(
    private readonly cfg: InteropActivityConfig,
    private readonly d: InteropActivityDeps,
  ) {
    for (const c of d.chains) this.byId.set(c.chainId.toString(10), c);
    const blockTimes = new Map(d.chains.map((c) => [c.chainId, c.blockTime]));
    this.params = {
      dependencySet: new Set(cfg.dependencySet.chainIds.map((c) => c.toString(10))),
      activationTimestamp: cfg.activationTimestamp,
      expiryWindow: cfg.dependencySet.messageExpiryWindow,
      blockTime: (id) => blockTimes.get(id) ?? 1,
    };
    this.stall = new StallWatch(d.clock, cfg.stallAfterMs ?? 60_000, d.logger, () => this.setState(this.wanted));
    this.runtimeStart = Math.max(cfg.activationTimestamp, ...d.chains.map((c) => c.genesisTime));
    this.cold = new ColdStart(cfg.activationTimestamp, cfg.backfillDepthS ?? 0, {
      chains: d.chains,
      logs: d.logs,
      logger: d.logger,
      metrics: d.metrics,
      setState: (st) => this.setState(st),
    });
    this.initiating = new InitiatingLookup(this.byId, d.logs);
    this.frontier = new FrontierCache(this.byId);
    this.transitions = new TransitionApplier({
      ...d,
      byId: this.byId,
      frontier: this.frontier,
      chainIds: () => this.chainIds(),
      runtimeStart: () => this.runtimeStart,
    });
    d.metrics?.state(this.st);
  }

  get state(): InteropState {
    return this.st;
  }

  /** The state under a `degraded` or `stalled` one: what the activity is doing (waiting for the chains, verifying). */
  get activeState(): InteropState {
    return this.wanted;
  }

  status(): InteropStatus {
    return {
      state: this.st,
      activation_timestamp: this.cfg.activationTimestamp,
      verified_timestamp: this.d.verified.last()?.timestamp ?? 0,
      next_timestamp: this.nextTs ?? null,
      last_decision: this.lastDecision,
      error: this.lastError,
    };
  }

  /** Moves the cold start forward (log backfill): only while nothing is verified. */
  setRuntimeStart(ts: number): void {
    if (this.d.verified.last() === undefined && ts > this.runtimeStart) this.runtimeStart = ts;
  }

  /**
   * Sets the state; while the interop store's writes fail (`fault`) it stays `degraded` unless it halts or stops,
   * and while nothing is committed for too long (`StallWatch`) a waiting or verifying activity is `stalled`.
   */
  setState(next: InteropState): void {
    this.wanted = next;
    const faulty = next !== "halted" && next !== "stopped" && this.d.verified.fault?.() !== undefined;
    const stalled = this.stall.stalled && (next === "waiting" || next === "verifying");
    const s = faulty ? "degraded" : stalled ? "stalled" : next;
    if (this.st === s) return;
    this.st = s;
    this.d.metrics?.state(s);
  }

  /**
   * Prepares the loop: a warm restart (a verified result or a pending transition) resumes from the verified store;
   * a cold start waits for every chain's SafeDB, backfills the logs and moves the runtime start. True when done.
   */
  async prepare(signal?: AbortSignal): Promise<boolean> {
    const last = this.d.verified.last();
    if (last !== undefined || (await this.d.verified.pending()) !== undefined) {
      this.d.logger.info({ verified_timestamp: last?.timestamp ?? null }, "interop: resuming from the verified store");
      this.prepared = true;
      this.stall.progressed();
      return true;
    }
    const start = await this.cold.startTimestamp();
    if (start === undefined) return false;
    const backfilled = await this.cold.backfill(start, signal);
    this.setRuntimeStart(start);
    this.d.logger.info(
      { start: this.runtimeStart, activation: this.cfg.activationTimestamp, backfilled },
      "interop cold start",
    );
    this.setState("waiting");
    this.prepared = true;
    this.stall.progressed();
    return true;
  }

  /** Runs rounds until `signal` aborts: immediately again after progress, after `idleMs` otherwise. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.d.logger;
    const watch = this.stall.watch(signal, () => this.prepared && this.st !== "halted");
    while (!signal.aborted) {
      let progressed = false;
      try {
        const prepared = this.prepared;
        progressed = prepared ? await this.round() : await this.prepare(signal);
        if (progressed && prepared) this.stall.progressed();
        this.lastError = null;
        if (this.st === "degraded") this.setState("waiting"); // the store recovered
      } catch (err) {
        this.recheckHistory = true;
        if (signal.aborted) break;
        const critical = severityOf(err) === "critical";
        const message = String((err as Error).message ?? err);
        const repeat = message === this.lastError;
        this.lastError = message;
        this.stall.enter("retrying a failed round", { err: message });
        this.stall.settle();
        this.setState(critical ? "halted" : "waiting");
        // one line per change: the same failure again (a full disk, retried every errorMs) is not logged again
        if (repeat) log.debug({ err: message }, "interop round failed again");
        else if (critical) log.error({ err: message }, "interop round failed; halted until it succeeds");
        else log.warn({ err: message }, "interop round failed");
        await this.d.clock.sleep(this.cfg.errorMs ?? 2000, signal).catch(() => {});
        continue;
      }
      if (!progressed) {
        this.recheckHistory = true;
        await this.d.clock.sleep(this.cfg.idleMs ?? 1000, signal).catch(() => {});
      }
    }
    await watch;
    this.setState("stopped");
  }

  private chainIds(): string[] {
    return [...this.byId.keys()].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
  }

  private async canonical(id: BlockId): Promise<boolean> {
    // the genesis' L1 inclusion: L1 "block 0" with the zero hash (see blockAt), canonical by definition
    if (id.number === 0 && id.hash === ZERO_HASH) return true;
    return (await this.d.l1.canonicalHash(id.number)) === id.hash;
  }

  /** One round; true when it made progress (a committed timestamp). */
  async round(): Promise<boolean> {
    const pending = await this.d.verified.pending();
    if (pending !== undefined) {
      this.stall.enter(`applying a pending ${pending.kind}`);
      return this.apply(pending);
    }
    const last = this.d.verified.last();
    const ts = last === undefined ? this.runtimeStart : last.timestamp + 1;
    this.nextTs = ts;
    this.stall.enter("observing the chains", { timestamp: ts });
    if (this.recheckHistory) {
      await checkSafeHistory(this.d.chains, ts);
      this.recheckHistory = false;
    }
    const ids = this.chainIds();
    const blocks = await Promise.all(ids.map((id) => (this.byId.get(id) as InteropChain).optimisticAt(ts)));
    const chainsReady = blocks.every((b) => b !== undefined);
    const verifiedL1Canonical = last === undefined || (await this.canonical(last.l1Inclusion));
    let frontierL1Canonical = true;
    if (chainsReady && verifiedL1Canonical) {
      const seen = new Set<string>();
      for (const b of blocks as ChainBlockAt[]) {
        const k = `${b.requiredL1.number}:${b.requiredL1.hash}`;
        if (seen.has(k)) continue;
        seen.add(k);
        if (b.requiredL1.number > 0 && !(await this.canonical(b.requiredL1))) frontierL1Canonical = false;
      }
    }
    const started = this.d.clock.nowMs();
    this.stall.enter("verifying", { timestamp: ts });
    const decision = await decideRound({ paused: false, chainsReady, verifiedL1Canonical, frontierL1Canonical }, () =>
      this.verify(ts, ids, blocks as ChainBlockAt[], last),
    );
    this.note(decision);
    switch (decision.kind) {
      case "wait": {
        const notReady = ids.filter((_, i) => blocks[i] === undefined);
        this.stall.enter(`wait:${decision.reason}`, {
          timestamp: ts,
          ...(notReady.length > 0 ? { chains: notReady } : {}),
        });
        this.stall.settle();
        this.setState("waiting");
        return false;
      }
      case "rewind": {
        this.stall.enter("rewinding", { timestamp: ts });
        const at = await this.firstNonCanonical();
        this.d.logger.warn({ rewindAtOrAfter: at }, "verified results lost their L1 inclusion; rewinding");
        const t = await this.transitions.rewind(at);
        await this.d.verified.setPending(t);
        return this.apply(t);
      }
      default: {
        this.stall.enter(`applying ${decision.kind}`, {
          timestamp: ts,
          ...(decision.kind === "invalidate" ? { chains: Object.keys(decision.result.invalidHeads) } : {}),
        });
        this.setState("verifying");
        const t: PendingTransition =
          decision.kind === "advance"
            ? { kind: "advance", result: decision.result }
            : await this.transitions.invalidation(decision.result);
        await this.d.verified.setPending(t);
        const progressed = await this.apply(t);
        if (progressed) this.d.metrics?.verificationSeconds((this.d.clock.nowMs() - started) / 1000);
        return progressed;
      }
    }
  }

  private note(d: RoundDecision): void {
    const label = d.kind === "wait" ? `wait:${d.reason}` : d.kind;
    this.lastDecision = label;
    this.d.metrics?.decision(d.kind);
  }

  /** Binary search for the first verified timestamp whose L1 inclusion is no longer canonical (monotone). */
  private async firstNonCanonical(): Promise<number> {
    const last = this.d.verified.last() as VerifiedResult;
    let lo = this.d.verified.firstTimestamp() ?? last.timestamp;
    let hi = last.timestamp;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const r = await this.d.verified.get(mid);
      if (r !== undefined && (await this.canonical(r.l1Inclusion))) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private async verify(
    ts: number,
    ids: readonly string[],
    blocks: readonly ChainBlockAt[],
    last: VerifiedResult | undefined,
  ): Promise<VerificationResult> {
    this.frontier.retain(new Set(blocks.map((b) => b.l2.hash)));
    // Every chain's new block is read from its execution client at once.
    const frontier: FrontierBlock[] = await Promise.all(
      ids.map(async (id, i) => {
        const b = blocks[i] as ChainBlockAt;
        const chain = this.byId.get(id) as InteropChain;
        const alreadyVerified = last?.l2Heads[id]?.hash === b.l2.hash;
        const sealed = alreadyVerified ? this.d.logs.get(id)?.latest() : undefined;
        const f =
          alreadyVerified && sealed?.hash === b.l2.hash
            ? { block: sealed, logs: [] as StoredLog[] }
            : await this.frontier.get(id, b.l2.hash);
        return {
          chainId: chain.chainId,
          block: f.block,
          logs: f.logs,
          output: b.output,
          requiredL1: b.requiredL1,
          alreadyVerified,
          ...(f.txIndexOfLog === undefined ? {} : { txIndexOfLog: f.txIndexOfLog }),
        };
      }),
    );
    const { result, rejections } = await verifyTimestamp(ts, frontier, this.params, (chainId, n, i) =>
      this.initiating.find(chainId, n, i, ts),
    );
    for (const r of rejections)
      this.d.logger.warn(
        {
          chain: r.chainId,
          block: r.block.number,
          hash: r.block.hash,
          logIndex: r.logIndex,
          txIndex: r.txIndex,
          reason: r.reason,
          ts,
        },
        "invalid executing message",
      );
    return result;
  }

  /** Applies a written-ahead transition; every step is idempotent. True when a timestamp was committed. */
  apply(t: PendingTransition): Promise<boolean> {
    return this.transitions.apply(t);
  }

  /** The verified block of `chainId` at `ts` (undefined when `ts` is not verified). */
  async verifiedHeadAt(chainId: string, ts: number): Promise<BlockId | undefined> {
    return (await this.d.verified.get(ts))?.l2Heads[chainId];
  }
}
