import type { Logger } from "../core/logger.js";
import { isAborted, TemporaryError } from "../core/errors/supernode-error.js";
import type { Clock } from "../core/time/clock.js";
import type { SyncStatus } from "../core/types/block-ref.js";
import type { ChainState } from "../observability/metrics-registry.js";
import type { MethodSpec, MethodTable } from "../rpc/method-table.js";
import type { ChainService, ChainServiceFactory } from "./chain-service.js";

/**
 * Supervises one chain: starts a fresh instance, watches it, and when it fails (or ends on its own) stops it and
 * starts a new one after an exponential backoff. The chain's RPC table is swapped atomically with each instance;
 * while no instance runs, the chain's methods answer a clear "not running" error. The last good sync status is
 * kept (flagged stale) so cross-chain methods keep answering while one chain restarts.
 */
export interface SupervisorOptions {
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  /** An instance that ran this long resets the backoff. */
  readonly stableAfterMs: number;
  /** Bound on stopping one instance. */
  readonly stopTimeoutMs: number;
}

export const DEFAULT_SUPERVISOR_OPTIONS: SupervisorOptions = {
  initialBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  stableAfterMs: 60_000,
  stopTimeoutMs: 30_000,
};

export interface SupervisorDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly onState?: (state: ChainState) => void;
  readonly onRestart?: () => void;
}

export interface ChainHealth {
  readonly state: ChainState;
  readonly restarts: number;
  readonly lastError?: string;
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

  health(): ChainHealth {
    const base = { state: this.#state, restarts: this.#restarts, since: this.#since };
    return this.#lastError === undefined ? base : { ...base, lastError: this.#lastError };
  }

  /**
   * The current status, or the last good one when the chain is between instances (`stale: true`), or undefined
   * when it never reported one.
   */
  async syncStatus(): Promise<{ status: SyncStatus; stale: boolean } | undefined> {
    const svc = this.#current;
    if (svc !== undefined && this.#state === "running") {
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
    return this.#state === "running" ? this.#current : undefined;
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
      this.#setState("stopped");
      return;
    }
    await this.#loop;
  }

  /** Same method names as the last instance served, each answering "chain not running" (-32000). */
  #makeDownTable(entries: Iterable<[string, MethodSpec]>): MethodTable {
    const down = async () => {
      const last = this.#lastError === undefined ? "" : `; last error: ${this.#lastError}`;
      throw new TemporaryError("CHAIN_NOT_RUNNING", `chain ${this.chainId} is not running (${this.#state}${last})`);
    };
    return new Map(
      [...entries].map(([n, spec]) => [n, spec.admin === true ? { handler: down, admin: true } : { handler: down }]),
    );
  }

  #setState(state: ChainState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#since = this.#deps.clock.nowMs();
    this.#deps.onState?.(state);
  }

  async #run(): Promise<void> {
    const log = this.#deps.logger;
    const signal = this.#abort.signal;
    let failures = 0;
    for (let attempt = 1; !signal.aborted; attempt++) {
      this.#setState("starting");
      let svc: ChainService | undefined;
      let startedAt: number | undefined;
      try {
        svc = await this.#factory(attempt);
        this.#current = svc;
        await svc.start(signal);
        startedAt = this.#deps.clock.nowMs();
        this.#table = svc.methods;
        this.#setState("running");
        log.info({ attempt }, "chain running");
        const stopped = new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        await Promise.race([svc.exited, stopped]);
        if (!signal.aborted) throw new Error("virtual node exited unexpectedly");
      } catch (err) {
        if (!signal.aborted || !isAborted(err, signal)) {
          this.#lastError = err instanceof Error ? err.message : String(err);
          if (!signal.aborted) log.error({ err, attempt }, "chain failed");
        }
      }
      if (this.#table !== this.#downTable) this.#downTable = this.#makeDownTable(this.#table.entries());
      this.#table = this.#downTable;
      if (svc !== undefined) await this.#stopInstance(svc);
      this.#current = undefined;
      if (signal.aborted) break;
      failures =
        startedAt !== undefined && this.#deps.clock.nowMs() - startedAt >= this.#opts.stableAfterMs ? 1 : failures + 1;
      const delay = Math.min(this.#opts.maxBackoffMs, this.#opts.initialBackoffMs * 2 ** (failures - 1));
      this.#setState("backoff");
      this.#restarts++;
      this.#deps.onRestart?.();
      log.warn({ delayMs: delay, restarts: this.#restarts }, "chain restarting after backoff");
      try {
        await this.#deps.clock.sleep(delay, signal);
      } catch {
        break;
      }
    }
    this.#setState("stopped");
  }

  async #stopInstance(svc: ChainService): Promise<void> {
    this.#setState("stopping");
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
