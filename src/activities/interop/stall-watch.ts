import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";

/**
 * Says when the interop activity has committed no timestamp for `afterMs` (one WARN line naming the phase it is
 * stuck in, one INFO line when it commits again), whatever holds it: a round waiting on a call that does not return
 * (a chain's driver loop that never answers an invalidation), or rounds that keep waiting for the same thing. The
 * activity shows it as its `stalled` state (status, metric). It watches from its own timer, so a round that never
 * returns is seen too.
 */
export class StallWatch {
  private progressAt: number;
  private phase: Phase = { name: "starting", detail: {}, at: 0 };
  /** The last phase a round ended in (a wait), reported when the current one has only just begun. */
  private settled: Phase | undefined;
  private reported = false;

  constructor(
    private readonly clock: Clock,
    private readonly afterMs: number,
    private readonly logger: Logger,
    /** Called when `stalled` changes. */
    private readonly onChange: () => void,
  ) {
    this.progressAt = clock.nowMs();
  }

  get stalled(): boolean {
    return this.reported;
  }

  /** What the activity is doing now (`detail`: what it waits for, logged with a stall). */
  enter(name: string, detail: Record<string, unknown> = {}): void {
    this.phase = { name, detail, at: this.clock.nowMs() };
  }

  /** The round ended in the current phase (a wait, or a failed round that is retried). */
  settle(): void {
    this.settled = this.phase;
  }

  /** A timestamp was committed (or the activity started afresh). */
  progressed(): void {
    this.progressAt = this.clock.nowMs();
    this.settled = undefined;
    if (!this.reported) return;
    this.reported = false;
    this.logger.info({}, "interop activity verifying again");
    this.onChange();
  }

  /** Reports a stall once per spell (called from the watch timer). */
  check(): void {
    const now = this.clock.nowMs();
    const forMs = now - this.progressAt;
    if (forMs < this.afterMs || this.reported) return;
    this.reported = true;
    const p = now - this.phase.at < STUCK_MS && this.settled !== undefined ? this.settled : this.phase;
    this.logger.warn(
      { phase: p.name, ...p.detail, stalled_s: Math.round(forMs / 1000) },
      "interop activity stalled: no timestamp verified",
    );
    this.onChange();
  }

  /** Checks every second (or `afterMs`, if shorter) while `active()`, until `signal` aborts. */
  async watch(signal: AbortSignal, active: () => boolean): Promise<void> {
    while (!signal.aborted) {
      await this.clock.sleep(Math.min(STUCK_MS, this.afterMs), signal).catch(() => {});
      if (!signal.aborted && active()) this.check();
    }
  }
}

interface Phase {
  readonly name: string;
  readonly detail: Record<string, unknown>;
  readonly at: number;
}

/** A phase this old is where the activity is stuck (a round's steps take milliseconds). */
const STUCK_MS = 1000;
