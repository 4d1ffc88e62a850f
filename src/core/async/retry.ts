import type { Clock } from "../time/clock.js";
import { severityOf, isAborted } from "../errors/supernode-error.js";

export interface BackoffOptions {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  readonly maxAttempts: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 10_000, factor: 2, maxAttempts: 5 };

/** Delay before attempt `attempt` (1-based retry count), without jitter: pure. */
export function backoffDelayMs(attempt: number, opts: BackoffOptions): number {
  return Math.min(opts.maxMs, opts.initialMs * opts.factor ** Math.max(0, attempt - 1));
}

/**
 * Runs `fn`, retrying errors whose severity is `temporary` with exponential backoff.
 * Other severities and the last temporary failure are rethrown.
 */
export async function retry<T>(
  fn: (attempt: number) => Promise<T>,
  deps: { clock: Clock; signal?: AbortSignal },
  opts: BackoffOptions = DEFAULT_BACKOFF,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (isAborted(err, deps.signal) || severityOf(err) !== "temporary" || attempt >= opts.maxAttempts) throw err;
      await deps.clock.sleep(backoffDelayMs(attempt, opts), deps.signal);
    }
  }
}
