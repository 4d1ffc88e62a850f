import type { Clock } from "../core/time/clock.js";

/** A token bucket with `x/time/rate` semantics (rate per second, burst). */
export class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.nowMs();
  }
  /** Takes `n` tokens (may go negative); returns how long to wait (ms) before the reservation is due. */
  reserve(n = 1): number {
    const now = this.clock.nowMs();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    this.tokens -= n;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.rate) * 1000;
  }
}
