import type { Logger } from "../core/logger.js";
import { isAborted, severityOf, TemporaryError } from "../core/errors/supernode-error.js";
import type { Clock } from "../core/time/clock.js";
import type { SyncStatus } from "../core/types/block-ref.js";
import { describeError } from "../node/health.js";
import type { ChainState } from "../observability/metrics-registry.js";
import type { MethodSpec, MethodTable } from "../rpc/method-table.js";
import type { ChainService, ChainServiceFactory } from "./chain-service.js";

/**
 * Supervises one chain: starts a fresh instance, watches it, and when it fails (or ends on its own) stops it and
 * starts a new one after an exponential backoff. The chain's RPC table is swapped atomically with each instance;
 * while no instance runs, the chain's methods answer a clear "not running" error. The last good sync status is
 * kept (flagged stale) so cross-chain methods keep answering while one chain restarts.
 *
 * It owns the chain's one health state (the only one: `/readyz`, `supernode_syncStatus`, the metrics read it):
 * - lifecycle: `starting` → `running` → `stopping` → `backoff` → `starting` …, `stopped` at the end;
 * - while an instance serves, every `healthCheckMs` the node's own view (node/health.ts) turns `running` into
 *   `degraded` (steps keep failing) or `stalled` (no progress while L1 advances) and back;
 * - a critical error (corrupted storage, a reorg of finalized L1 data, the wrong chain) makes it `failed`: the
 *   instance is stopped and not restarted (restarting cannot fix it; the operator must, see docs/running.md).
 * Every state has a reason; each change is logged once (WARN for degraded/stalled/backoff, ERROR for failed).
 */
export interface SupervisorOptions {
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  /** An instance that ran this long resets the backoff. */
  readonly stableAfterMs: number;
  /** Bound on stopping one instance. */
  readonly stopTimeoutMs: number;
  /** How often a serving chain's health is read. */
  readonly healthCheckMs: number;
}

export const DEFAULT_SUPERVISOR_OPTIONS: SupervisorOptions = {
  initialBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  stableAfterMs: 60_000,
  stopTimeoutMs: 30_000,
  healthCheckMs: 1_000,
};

/** States in which a chain counts as ready (`/readyz`, `supernode_chain_ready`). */
export function isReadyState(state: ChainState): boolean {
  return state === "running";
}

/** States in which an instance exists and serves the chain's methods. */
function isServing(state: ChainState): boolean {
  return state === "running" || state === "degraded" || state === "stalled";
}

export interface SupervisorDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly onState?: (state: ChainState, reason: string | undefined) => void;
  readonly onRestart?: () => void;
}

export interface ChainHealth {
  readonly state: ChainState;
  /** Why the chain is in this state (absent for a healthy `running` or `stopped`). */
  readonly reason?: string;
  readonly ready: boolean;
  readonly restarts: number;
  readonly lastError?: string;
  /** When the state was entered (ms since the epoch of the supervisor's clock). */
  readonly since: number;
}

export class ChainSupervisor {
  readonly chainId: bigint;
  readonly #factory: ChainServiceFactory;
  readonly #opts: SupervisorOptions;
  readonly #deps: SupervisorDeps;
  readonly #abort = new AbortController();
  #downTable: MethodTable;
  #state: ChainState = "stopped";
  #reason: string | undefined;
  #since: number;
  #restarts = 0;
  #lastError: string | undefined;
  #current: ChainService | undefined;
  #table: MethodTable;
  #lastStatus: SyncStatus | undefined;
  #loop: Promise<void> | undefined;

  constructor(
    chainId: bigint,
    factory: ChainServiceFactory,
    deps: SupervisorDeps,
    opts: Partial<SupervisorOptions> = {},
  ) {
    this.chainId = chainId;
    this.#factory = factory;
    this.#deps = deps;
    this.#opts = { ...DEFAULT_SUPERVISOR_OPTIONS, ...opts };
    this.#since = deps.clock.nowMs();
    this.#downTable = this.#makeDownTable([]);
    this.#table = this.#downTable;
  }

  /** The table to serve at `/<chainID>/` right now. */
  get methods(): MethodTable {
    return this.#table;
  }

  get state(): ChainState {
    return this.#state;
  }

  get reason(): string | undefined {
    return this.#reason;
  }

  health(): ChainHealth {
    return {
      state: this.#state,
      ...(this.#reason === undefined ? {} : { reason: this.#reason }),
      ready: isReadyState(this.#state),
      restarts: this.#restarts,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
      since: this.#since,
    };
  }

  /**
   * The current status, or the last good one when the chain is between instances (`stale: true`), or undefined
   * when it never reported one.
   */
  async syncStatus(): Promise<{ status: SyncStatus; stale: boolean } | undefined> {
    const svc = this.#current;
    if (svc !== undefined && isServing(this.#state)) {
      try {
        this.#lastStatus = await svc.syncStatus();
        return { status: this.#lastStatus, stale: false };
      } catch {
        // fall through to the cached status
      }
    }
    return this.#lastStatus === undefined ? undefined : { status: this.#lastStatus, stale: true };
  }

  /** The instance serving right now, if any. */
  get current(): ChainService | undefined {
    return isServing(this.#state) ? this.#current : undefined;
  }

  /** The last status seen (no I/O; for metrics). */
  get lastStatus(): SyncStatus | undefined {
    return this.#lastStatus;
  }

  /** Starts the supervision loop in the background. */
  start(): void {
    if (this.#loop !== undefined) return;
    this.#loop = this.#run();
  }

  /** Stops the current instance and the loop; resolves when everything has stopped. */
  async stop(): Promise<void> {
    this.#abort.abort();
    if (this.#loop === undefined) {
      this.#setState("stopped", undefined);
      return;
    }
    await this.#loop;
  }

  /** Same method names as the last instance served, each answering "chain not running" (-32000). */
  #makeDownTable(entries: Iterable<[string, MethodSpec]>): MethodTable {
    const down = async () => {
      const why = this.#reason ?? this.#lastError;
      const last = why === undefined ? "" : `; ${why}`;
      throw new TemporaryError("CHAIN_NOT_RUNNING", `chain ${this.chainId} is not running (${this.#state}${last})`);
    };
    return new Map(
      [...entries].map(([n, spec]) => [n, spec.admin === true ? { handler: down, admin: true } : { handler: down }]),
    );
  }

  #setState(state: ChainState, reason: string | undefined): void {
    if (state === this.#state && reason === this.#reason) return;
    const from = this.#state;
    const same = state === from;
    this.#state = state;
    this.#reason = reason;
    if (!same) this.#since = this.#deps.clock.nowMs();
    if (same) return; // a new reason for the same state is shown, not logged again
    this.#deps.onState?.(state, reason);
    const log = this.#deps.logger;
    const fields = reason === undefined ? { from, state } : { from, state, reason };
    if (state === "failed") log.error(fields, "chain failed; not restarting (see docs/running.md, Chain health)");
    else if (state === "degraded" || state === "stalled") log.warn(fields, `chain ${state}`);
    else if (state === "backoff") log.warn({ ...fields, restarts: this.#restarts }, "chain restarting after backoff");
    else if (state === "running") log.info(fields, from === "starting" ? "chain running" : "chain recovered");
    else log.debug(fields, "chain state");
  }

  async #run(): Promise<void> {
    const log = this.#deps.logger;
    const signal = this.#abort.signal;
    let failures = 0;
    for (let attempt = 1; !signal.aborted; attempt++) {
      this.#setState("starting", attempt === 1 ? undefined : `restart ${attempt - 1}`);
      let svc: ChainService | undefined;
      let startedAt: number | undefined;
      let critical: string | undefined;
      try {
        svc = await this.#factory(attempt);
        this.#current = svc;
        await svc.start(signal);
        startedAt = this.#deps.clock.nowMs();
        this.#table = svc.methods;
        this.#setState("running", undefined);
        // a stop that came while the instance was starting has fired its event already: it must not be waited for
        const stopped = new Promise<void>((resolve) =>
          signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        const watch = new AbortController();
        const watching = this.#watch(svc, watch.signal);
        try {
          await Promise.race([svc.exited, stopped]);
        } finally {
          watch.abort();
          await watching;
        }
        if (!signal.aborted) throw new Error("virtual node exited unexpectedly");
      } catch (err) {
        if (!signal.aborted || !isAborted(err, signal)) {
          this.#lastError = describeError(err);
          if (severityOf(err) === "critical") critical = this.#lastError;
          else if (!signal.aborted) log.error({ err: String(err), attempt }, "chain instance failed");
        }
      }
      if (this.#table !== this.#downTable) this.#downTable = this.#makeDownTable(this.#table.entries());
      this.#table = this.#downTable;
      if (svc !== undefined) await this.#stopInstance(svc, critical === undefined);
      this.#current = undefined;
      if (signal.aborted) break;
      if (critical !== undefined) {
        this.#setState("failed", critical);
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        return this.#setState("stopped", critical);
      }
      failures =
        startedAt !== undefined && this.#deps.clock.nowMs() - startedAt >= this.#opts.stableAfterMs ? 1 : failures + 1;
      const delay = Math.min(this.#opts.maxBackoffMs, this.#opts.initialBackoffMs * 2 ** (failures - 1));
      this.#restarts++;
      this.#setState("backoff", `${this.#lastError ?? "exited"}; restarting in ${delay} ms`);
      this.#deps.onRestart?.();
      try {
        await this.#deps.clock.sleep(delay, signal);
      } catch {
        break;
      }
    }
    this.#setState("stopped", undefined);
  }

  /** While an instance serves: folds its own health into the chain's state every `healthCheckMs`. */
  async #watch(svc: ChainService, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.#deps.clock.sleep(this.#opts.healthCheckMs, signal);
      } catch {
        return;
      }
      if (signal.aborted) return;
      let h: ReturnType<ChainService["health"]>;
      try {
        h = svc.health();
      } catch (err) {
        h = { condition: "degraded", reason: describeError(err) };
      }
      if (h.condition === "ok") this.#setState("running", undefined);
      else this.#setState(h.condition, h.reason);
    }
  }

  async #stopInstance(svc: ChainService, showStopping: boolean): Promise<void> {
    if (showStopping) this.#setState("stopping", this.#reason);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.#opts.stopTimeoutMs);
    });
    try {
      const r = await Promise.race([svc.stop().then(() => "ok" as const), timeout]);
      if (r === "timeout")
        this.#deps.logger.error({ timeoutMs: this.#opts.stopTimeoutMs }, "chain did not stop in time");
    } catch (err) {
      this.#deps.logger.warn({ err }, "chain stop failed");
    } finally {
      clearTimeout(timer);
    }
  }
}
