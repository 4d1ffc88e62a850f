import type { Clock } from "../../core/time/clock.js";
import type { Turns } from "../../core/async/turns.js";
import { TemporaryError } from "../../core/errors/supernode-error.js";
import { retry, type BackoffOptions } from "../../core/async/retry.js";
import { HttpRpcClient, type BatchResult, type RpcCall, type RpcRequestEvent } from "../json-rpc/http-client.js";
import { abortable } from "../common/abortable.js";
import { Semaphore } from "../common/semaphore.js";
import type { L1Metrics } from "./metrics.js";

export interface L1RpcOptions {
  readonly url: string;
  readonly maxConcurrency: number;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly backoff: BackoffOptions;
}

export interface L1RpcDeps {
  readonly clock: Clock;
  readonly metrics?: L1Metrics | undefined;
  readonly turns?: Turns | undefined;
}

const NOT_FOUND = Symbol("not-found");

/** The one name per cache kind in `supernode_l1_cache_total` (coalescing keys use short prefixes). */
const CACHE_KIND: Readonly<Record<string, string>> = {
  label: "label",
  num: "number",
  hdr: "header",
  txs: "txs",
  rawtxs: "txs",
  rcpt: "receipts",
  rawrcpt: "receipts",
  storage: "storage",
  chainId: "chain_id",
};

/**
 * The L1 client's calls to the network: at most `maxConcurrency` in flight, concurrent requests for the same key
 * share one call, transient failures are retried with backoff, and a null result is a typed NOT_FOUND.
 */
export class L1Rpc {
  private readonly rpc: HttpRpcClient;
  private readonly limiter: Semaphore;
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly opts: L1RpcOptions,
    private readonly deps: L1RpcDeps,
  ) {
    this.rpc = new HttpRpcClient({
      url: opts.url,
      timeoutMs: opts.timeoutMs,
      maxResponseBytes: opts.maxResponseBytes,
      clock: deps.clock,
      onRequest: (e) => this.onRequest(e),
      ...(deps.turns === undefined ? {} : { turns: deps.turns }),
    });
    this.limiter = new Semaphore(Math.max(1, opts.maxConcurrency));
  }

  /** Calls in flight (tests and the benchmark). */
  get inflightCount(): number {
    return this.inflight.size;
  }

  /**
   * One network call per key at a time: concurrent callers share the promise. The shared work is not tied to any
   * caller's signal (one caller giving up must not fail the others); each caller stops waiting on its own signal.
   */
  coalesce<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let p = this.inflight.get(key) as Promise<T> | undefined;
    if (p !== undefined) {
      const prefix = key.slice(0, key.indexOf(":"));
      this.deps.metrics?.cache.inc({ kind: CACHE_KIND[prefix] ?? prefix, result: "coalesced" });
    } else {
      p = fn().finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return signal === undefined ? p : abortable(p, signal);
  }

  /** A coalesced, limited, retried call whose null result is a typed NOT_FOUND. */
  fetch(key: string, method: string, params: readonly unknown[], signal?: AbortSignal): Promise<unknown> {
    return this.coalesce(key, () => this.fetchShared(method, params), signal);
  }

  /** One limited batch, not retried (the head poll). */
  batchOnce(calls: readonly RpcCall[], signal?: AbortSignal): Promise<BatchResult[]> {
    return this.limiter.run(() => this.rpc.batch(calls, signal), signal);
  }

  /** One limited batch, retried with backoff. */
  batchRetried(calls: readonly RpcCall[]): Promise<BatchResult[]> {
    return retry(() => this.limiter.run(() => this.rpc.batch(calls)), { clock: this.deps.clock }, this.opts.backoff);
  }

  private async fetchShared(method: string, params: readonly unknown[]): Promise<unknown> {
    const value = await retry(
      async () => {
        const r = await this.limiter.run(() => this.rpc.call(method, params));
        return r === null || r === undefined ? NOT_FOUND : r;
      },
      { clock: this.deps.clock },
      this.opts.backoff,
    );
    if (value === NOT_FOUND) {
      this.deps.metrics?.errors.inc({ kind: "not_found" });
      throw new TemporaryError("NOT_FOUND", `L1 ${method} found nothing`, { params: params.map(String) });
    }
    return value;
  }

  private onRequest(e: RpcRequestEvent): void {
    const m = this.deps.metrics;
    if (m === undefined) return;
    m.requests.inc({ method: e.method });
    if (e.outcome !== "ok") m.errors.inc({ kind: e.outcome });
    if (e.outcome === "too_large") m.tooLarge.inc();
  }
}
