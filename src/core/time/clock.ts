import { AbortedError } from "../errors/supernode-error.js";

/** Injected time source. Protocol code never reads time; runtime code reads it through this. */
export interface Clock {
  nowMs(): number;
  /** Resolves after `ms`, or rejects with AbortedError when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Seconds since the epoch, floored. */
export function nowSec(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}

/** The real clock: Date.now and abortable timers. */
export const systemClock: Clock = {
  nowMs: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError());
      const t = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(new AbortedError());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};
