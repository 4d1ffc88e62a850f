/**
 * Fair sharing of the event loop between many chains (docs/performance.md). Work that resumes after
 * I/O (a chain's driver step, the handling of an Engine API response) first asks for a turn: while the current
 * loop iteration has used less than `budgetMs` of CPU, `take()` returns undefined and the caller goes on at once;
 * past the budget, callers queue (first come, first served) and are resumed one by one in later iterations, so
 * timers and incoming requests (the RPC server's sockets) get in between. No chain can hold the loop for more
 * than about one budget plus its own longest synchronous stretch.
 *
 * Each chain takes its turns through a lane of its own ({@link FairTurns.lane}). A lane marked urgent (its chain is
 * inserting a gossiped block, which someone waits for) queues ahead of the other lanes' work (derivation, catch-up),
 * still one caller at a time and within the budget; urgent lanes are served first come, first served among
 * themselves.
 */
export interface Turns {
  /** undefined: go on now; a promise: wait for it before doing more CPU work. */
  take(): Promise<void> | undefined;
  /** Marks this lane's work urgent (see {@link FairTurns.lane}); a no-op where there are no lanes. */
  setUrgent?(on: boolean): void;
}

export interface TurnsOptions {
  /** CPU per loop iteration before callers are queued (default 2 ms). */
  readonly budgetMs?: number;
  /** Monotonic milliseconds (injected in tests). */
  readonly now?: () => number;
  /** Runs `fn` in a later loop iteration, after I/O and timers (default setImmediate). */
  readonly later?: (fn: () => void) => void;
}

export class FairTurns implements Turns {
  private readonly budgetMs: number;
  private readonly now: () => number;
  private readonly later: (fn: () => void) => void;
  private turnStart: number;
  private marked = false;
  private draining = false;
  private readonly waiters: Array<() => void> = [];
  private readonly urgentWaiters: Array<() => void> = [];
  /** Callers that had to wait (tests and metrics). */
  deferred = 0;

  constructor(opts: TurnsOptions = {}) {
    this.budgetMs = opts.budgetMs ?? 2;
    this.now = opts.now ?? (() => performance.now());
    this.later = opts.later ?? ((fn) => setImmediate(fn));
    this.turnStart = this.now();
  }

  /** A lane of these turns: the same budget and queue, with its own urgency. */
  lane(): Turns {
    let urgent = false;
    return {
      take: () => this.take(urgent),
      setUrgent: (on) => {
        urgent = on;
      },
    };
  }

  take(urgent = false): Promise<void> | undefined {
    const t = this.now();
    this.markTurn();
    if (this.waiting() === 0 && t - this.turnStart < this.budgetMs) return undefined;
    this.deferred++;
    return new Promise<void>((resolve) => {
      (urgent ? this.urgentWaiters : this.waiters).push(resolve);
      if (!this.draining) {
        this.draining = true;
        this.later(() => this.newTurn());
      }
    });
  }

  /** Starts a new turn at the next iteration's check phase (after this iteration's I/O). */
  private markTurn(): void {
    if (this.marked) return;
    this.marked = true;
    this.later(() => {
      this.marked = false;
      if (!this.draining) this.turnStart = this.now();
    });
  }

  private newTurn(): void {
    this.turnStart = this.now();
    this.releaseNext();
  }

  /** Resumes waiters one at a time (each runs to its next await first) while the turn has budget. */
  private waiting(): number {
    return this.waiters.length + this.urgentWaiters.length;
  }

  private releaseNext(): void {
    if (this.waiting() === 0) {
      this.draining = false;
      return;
    }
    if (this.now() - this.turnStart >= this.budgetMs) {
      this.later(() => this.newTurn());
      return;
    }
    const w = (this.urgentWaiters.shift() ?? this.waiters.shift()) as () => void;
    w();
    queueMicrotask(() => this.releaseNext());
  }
}
