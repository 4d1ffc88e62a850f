import type { VerificationResult } from "../../protocol/interop/types.js";

/**
 * The interop activity's pure round decision (op-supernode §5.5) and rewind planning (§8.19). The loop observes,
 * calls `decideRound`, writes the transition to its WAL, then applies it; recovery replays the same transition.
 */
export type { InvalidHead, VerificationResult } from "../../protocol/interop/types.js";

export interface RoundObservation {
  /** Test/operator pause (the loop waits). */
  readonly paused: boolean;
  /** Every chain has a local-safe block at the next timestamp. */
  readonly chainsReady: boolean;
  /** The last verified result's L1 inclusion is still canonical (true when nothing is verified yet). */
  readonly verifiedL1Canonical: boolean;
  /** Every L1 block the frontier (the chains' blocks at the next timestamp) was derived from is canonical. */
  readonly frontierL1Canonical: boolean;
}

export type RoundDecision =
  | {
      readonly kind: "wait";
      readonly reason: "paused" | "chains-not-ready" | "frontier-l1-stale" | "empty-result";
    }
  | { readonly kind: "rewind" }
  | { readonly kind: "invalidate"; readonly result: VerificationResult }
  | { readonly kind: "advance"; readonly result: VerificationResult };

/** A result is empty when it has no L1 inclusion, no head and no invalid head (the timestamp alone does not count). */
export function isEmptyResult(r: VerificationResult): boolean {
  return r.l1Inclusion === undefined && Object.keys(r.l2Heads).length === 0 && Object.keys(r.invalidHeads).length === 0;
}

/**
 * Decides one round. Conditions in order: paused → wait; chains not ready → wait; the last verified result's L1
 * inclusion no longer canonical → rewind; a frontier L1 block not canonical (a chain has not caught up with an L1
 * reorg yet) → wait; then `verify()` (called only when needed, so a waiting round does no verification work):
 * empty → wait; any invalid head → invalidate; otherwise advance.
 */
export async function decideRound(
  obs: RoundObservation,
  verify: () => Promise<VerificationResult>,
): Promise<RoundDecision> {
  if (obs.paused) return { kind: "wait", reason: "paused" };
  if (!obs.chainsReady) return { kind: "wait", reason: "chains-not-ready" };
  if (!obs.verifiedL1Canonical) return { kind: "rewind" };
  if (!obs.frontierL1Canonical) return { kind: "wait", reason: "frontier-l1-stale" };
  const result = await verify();
  if (isEmptyResult(result)) return { kind: "wait", reason: "empty-result" };
  if (Object.keys(result.invalidHeads).length > 0) return { kind: "invalidate", result };
  return { kind: "advance", result };
}

export type RewindPlan =
  | { readonly kind: "none" }
  /** Drop every accepted timestamp ≥ `rewindAtOrAfter`. */
  | { readonly kind: "rewind"; readonly rewindAtOrAfter: number };

/**
 * Plans the rewind after an L1 inconsistency (§8.19): `accepted` are the accepted timestamps in ascending order
 * with whether their L1 inclusion is still canonical (monotone: once one is not, no later one is). If the last one
 * is canonical nothing needs rewinding (only a frontier L1 head was stale: wait). Otherwise binary-search the first
 * non-canonical timestamp and rewind everything from it in one transition.
 */
export function planRewind(
  accepted: ReadonlyArray<{ readonly timestamp: number; readonly l1Canonical: boolean }>,
): RewindPlan {
  const last = accepted.at(-1);
  if (last === undefined || last.l1Canonical) return { kind: "none" };
  let lo = 0;
  let hi = accepted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (accepted[mid]!.l1Canonical) lo = mid + 1;
    else hi = mid;
  }
  return { kind: "rewind", rewindAtOrAfter: accepted[lo]!.timestamp };
}
