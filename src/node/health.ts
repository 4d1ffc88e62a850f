import { SupernodeError } from "../core/errors/supernode-error.js";
import type { Clock } from "../core/time/clock.js";

/**
 * The running node's own view of its health, from what its driver loop already sees: the errors of each step (by
 * severity) and whether its heads move while L1 moves. The supervisor (`app/`) folds it into the chain's one
 * health state; nothing else judges a chain's health.
 *
 * - `ok`: the last step succeeded, or failures have lasted less than `degradedAfterMs`;
 * - `degraded`: every step has failed for at least `degradedAfterMs` (the reason names the last error: an
 *   unreachable or hung execution client shows up here, a hung one after its request timeout);
 * - `stalled`: neither the derivation origin nor the unsafe or safe head moved up for `stallAfterMs` while the L1
 *   head advanced (a wiped execution client, a sequencer that cannot pick an L1 origin), or it reset `RESET_LOOP`
 *   times within `stallAfterMs` (a reset loop).
 */
export type NodeCondition = "ok" | "degraded" | "stalled";

export interface NodeHealth {
  readonly condition: NodeCondition;
  /** Why it is not ok (absent when ok). */
  readonly reason?: string;
}

export interface HealthThresholds {
  /** Failures for this long make the node `degraded`. */
  readonly degradedAfterMs: number;
  /** No progress for this long while L1 advances makes it `stalled`. */
  readonly stallAfterMs: number;
}

export const DEFAULT_HEALTH_THRESHOLDS: HealthThresholds = { degradedAfterMs: 10_000, stallAfterMs: 60_000 };

/** Where the node stands after a step. Any of `origin`, `unsafe`, `safe` moving up counts as progress. */
export interface ProgressMark {
  readonly l1Head: number;
  readonly origin: number;
  readonly unsafe: number;
  readonly safe: number;
}

/** This many resets within `stallAfterMs` count as a reset loop (`stalled`). */
export const RESET_LOOP = 8;

export class HealthTracker {
  readonly #clock: Clock;
  readonly #t: HealthThresholds;
  #failingSince: number | undefined;
  #lastError = "";
  #last: ProgressMark | undefined;
  #progressAt: number;
  #l1AtProgress = 0;
  #l1Head = 0;
  #resets: { at: number; reason: string }[] = [];

  constructor(clock: Clock, thresholds: Partial<HealthThresholds> = {}) {
    this.#clock = clock;
    this.#t = { ...DEFAULT_HEALTH_THRESHOLDS, ...thresholds };
    this.#progressAt = clock.nowMs();
  }

  get thresholds(): HealthThresholds {
    return this.#t;
  }

  /** A step finished without error; `mark` is where the node stands now. */
  stepOk(mark: ProgressMark): void {
    this.#failingSince = undefined;
    this.observe(mark);
  }

  /** Records where the node stands (also after a failed step: a failure can still move heads, e.g. a reset). */
  observe(mark: ProgressMark): void {
    const now = this.#clock.nowMs();
    this.#l1Head = Math.max(this.#l1Head, mark.l1Head);
    const prev = this.#last;
    this.#last = mark;
    if (prev === undefined || mark.origin > prev.origin || mark.unsafe > prev.unsafe || mark.safe > prev.safe) {
      this.#progressAt = now;
      this.#l1AtProgress = this.#l1Head;
    }
  }

  /** The node reset its heads (a reset loop counts as no progress). */
  resetDone(reason: string): void {
    const now = this.#clock.nowMs();
    this.#resets.push({ at: now, reason });
    this.#resets = this.#resets.filter((r) => now - r.at < this.#t.stallAfterMs);
  }

  /** A step failed with a temporary or reset error. */
  stepFailed(err: unknown): void {
    this.#failingSince ??= this.#clock.nowMs();
    this.#lastError = describeError(err);
  }

  /** The condition now (evaluated against the clock, so a loop blocked in a request still ages). */
  report(): NodeHealth {
    const now = this.#clock.nowMs();
    if (this.#failingSince !== undefined && now - this.#failingSince >= this.#t.degradedAfterMs) {
      const s = Math.round((now - this.#failingSince) / 1000);
      return { condition: "degraded", reason: `failing for ${s}s: ${this.#lastError}` };
    }
    const resets = this.#resets.filter((r) => now - r.at < this.#t.stallAfterMs);
    if (resets.length >= RESET_LOOP) {
      const s = Math.round(this.#t.stallAfterMs / 1000);
      const last = resets[resets.length - 1]?.reason ?? "";
      return { condition: "stalled", reason: `reset loop: ${resets.length} resets within ${s}s (last: ${last})` };
    }
    if (this.#l1Head > this.#l1AtProgress && now - this.#progressAt >= this.#t.stallAfterMs) {
      const s = Math.round((now - this.#progressAt) / 1000);
      return {
        condition: "stalled",
        reason: `no progress for ${s}s while L1 advanced ${this.#l1Head - this.#l1AtProgress} blocks`,
      };
    }
    return { condition: "ok" };
  }
}

const ENDPOINT_RE = /\b(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\]|localhost)(?::\d+)?\S*/gi;

/**
 * A short, operator-facing description of an error: its code and message on one line, without endpoints (the logs
 * keep the detail).
 */
export function describeError(err: unknown): string {
  const one = (e: unknown): string => {
    const msg = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").replace(ENDPOINT_RE, "<endpoint>");
    return e instanceof SupernodeError ? `${e.code}: ${msg}` : msg;
  };
  // A wrapper (e.g. "forkchoice update failed") names what failed; its cause says why: show both.
  let text = one(err);
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  if (cause !== undefined && cause !== null) text = `${text} (${one(cause)})`;
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/**
 * Keeps repeating log lines from flooding: the first line of a kind, and then one per `intervalMs` (with how many
 * were quieted), go out at their level; the repeats in between go to debug.
 */
export class RepeatGate {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #last = new Map<string, { at: number; quieted: number }>();

  constructor(clock: Clock, intervalMs = 10_000) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
  }

  /** Whether a line of kind `key` goes out at its level now, and how many were quieted since the last one. */
  pass(key: string): { loud: boolean; quieted: number } {
    const now = this.#clock.nowMs();
    const e = this.#last.get(key);
    if (e === undefined || now - e.at >= this.#intervalMs) {
      const quieted = e?.quieted ?? 0;
      this.#last.set(key, { at: now, quieted: 0 });
      return { loud: true, quieted };
    }
    e.quieted++;
    return { loud: false, quieted: 0 };
  }
}
