/** The driver loop's sleep: on the injected clock, cut short by `wake()` (new work) or by the node's abort. */
import { AbortedError } from "../core/errors/supernode-error.js";
import type { Clock } from "../core/time/clock.js";

export class LoopSleep {
  #wake: (() => void) | undefined;
  readonly #clock: Clock;
  readonly #signal: AbortSignal;

  constructor(clock: Clock, signal: AbortSignal) {
    this.#clock = clock;
    this.#signal = signal;
  }

  /** Sleeps `ms` or until woken or aborted; never throws on either. */
  async sleep(ms: number): Promise<void> {
    if (this.#signal.aborted) return;
    const inner = new AbortController();
    this.#wake = () => inner.abort();
    const onAbort = () => inner.abort();
    this.#signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.#clock.sleep(ms, inner.signal);
    } catch (err) {
      if (!(err instanceof AbortedError)) throw err;
    } finally {
      this.#signal.removeEventListener("abort", onAbort);
      this.#wake = undefined;
    }
  }

  /** Ends the current sleep, if any. */
  wake(): void {
    this.#wake?.();
  }
}
