import type { Clock } from "../../core/time/clock.js";
import type { Turns } from "../../core/async/turns.js";
import type { Logger } from "../../core/logger.js";
import type { L1BlockRef } from "../../core/types/block-ref.js";
import type { Address, Hash } from "../../core/types/primitives.js";
import { TemporaryError } from "../../core/errors/supernode-error.js";
import type { BackoffOptions } from "../../core/async/retry.js";
import { quantityToBigint, toQuantity } from "../../core/codec/quantity.js";
import { DEFAULT_L1_MAX_RESPONSE_BYTES } from "../common/response-limit.js";
import { isMethodNotFound } from "../json-rpc/http-client.js";
import { LruCache } from "../common/lru.js";
import type { L1Metrics } from "./metrics.js";
import { L1Rpc } from "./l1-rpc.js";
import { L1HeadPoller } from "./l1-head-poller.js";
import {
  type L1IndexCounters,
  L1LogIndex,
  type L1TxEntry,
  L1TxIndex,
  newL1IndexCounters,
} from "../../protocol/l1/l1-block-index.js";
import type { Receipt } from "../../protocol/block/receipt.js";
import { toL1BlockRef, type L1BlockInfo, type L1Label, type L1Receipt, type L1Transaction } from "./l1-types.js";
import { checkedBody, checkedHeader, checkedReceipts } from "./validate.js";

export interface L1ClientOptions {
  readonly url: string;
  /** `--l1.http-poll-interval` (head, safe and finalized are polled together). */
  readonly pollIntervalMs: number;
  /** `--l1.max-concurrency`: requests in flight at once. */
  readonly maxConcurrency: number;
  /** `--l1.cache-size`: blocks kept per cache (headers, bodies, receipts). */
  readonly cacheSize: number;
  readonly timeoutMs?: number;
  /** `--l1.max-response-size`: bound on one response body (default 64 MiB, see response-limit.ts). */
  readonly maxResponseBytes?: number;
  /** `--l1.trustrpc`: skip hash/root validation. */
  readonly trustRpc?: boolean;
  readonly backoff?: BackoffOptions;
}

export interface L1ClientDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: L1Metrics;
  /** Fair event-loop turns shared by every chain (core/async/turns.ts). */
  readonly turns?: Turns;
}

type Ref = L1BlockRef;
type NumberEntry = { readonly hash: Hash; readonly atMs: number; readonly tracked: boolean };
type BlockWithTxs = { readonly info: L1BlockInfo; readonly txs: readonly L1Transaction[] };
type BlockWithReceipts = { readonly info: L1BlockInfo; readonly receipts: readonly L1Receipt[] };
const FAST_BACKOFF: BackoffOptions = { initialMs: 200, maxMs: 5_000, factor: 2, maxAttempts: 5 };

/**
 * The one L1 client shared by every chain. Blocks are cached by hash (bounded LRU); concurrent requests for the
 * same thing share one network call; at most `maxConcurrency` calls are in flight; transient failures are retried
 * with backoff. What L1 returns is validated (block hash, transactions root, withdrawals root, receipts root)
 * unless `trustRpc`.
 */
export class L1Client {
  private readonly rpc: L1Rpc;
  private readonly heads: L1HeadPoller;
  private readonly headers: LruCache<Hash, L1BlockInfo>;
  private readonly bodies: LruCache<Hash, BlockWithTxs>;
  private readonly receipts: LruCache<Hash, BlockWithReceipts>;
  /**
   * number → hash. Kept for good at or below the finalized head; above it, kept while the head poller follows an
   * unbroken chain (`tracked`: the heads it saw, and their parents by hash) and dropped on any head that does not
   * extend the previous one; a mapping fetched by number and not linked to that chain is kept one poll interval.
   */
  private readonly byNumber: LruCache<number, NumberEntry>;
  /** Per-block indexes shared by every chain, living exactly as long as the cached body / receipts they index. */
  private readonly txIndexes = new WeakMap<BlockWithTxs, L1TxIndex>();
  private readonly logIndexes = new WeakMap<BlockWithReceipts, L1LogIndex>();
  /** Decode / recovery work done for all chains (tests and benchmarks). */
  readonly indexCounters: L1IndexCounters = newL1IndexCounters();
  private receiptsMethod: "eth_getBlockReceipts" | "per_tx" = "eth_getBlockReceipts";
  private cachedChainId: bigint | undefined;

  private constructor(
    private readonly opts: L1ClientOptions,
    private readonly deps: L1ClientDeps,
  ) {
    this.rpc = new L1Rpc(
      {
        url: opts.url,
        maxConcurrency: opts.maxConcurrency,
        timeoutMs: opts.timeoutMs ?? 10_000,
        maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_L1_MAX_RESPONSE_BYTES,
        backoff: opts.backoff ?? FAST_BACKOFF,
      },
      deps,
    );
    this.heads = new L1HeadPoller({
      rpc: this.rpc,
      clock: deps.clock,
      logger: deps.logger,
      metrics: deps.metrics,
      pollIntervalMs: opts.pollIntervalMs,
      acceptHeader: (raw) => this.acceptHeader(raw),
      onNewHead: (prev, head) => this.onNewHead(prev, head),
    });
    const size = Math.max(1, opts.cacheSize);
    this.headers = new LruCache(size);
    this.bodies = new LruCache(size);
    this.receipts = new LruCache(size);
    this.byNumber = new LruCache(size);
  }

  static create(opts: L1ClientOptions, deps: L1ClientDeps): L1Client {
    return new L1Client(opts, deps);
  }

  // ---------------------------------------------------------------- head tracking

  /** Starts polling latest/safe/finalized every `pollIntervalMs` (first poll immediately). Idempotent. */
  start(signal?: AbortSignal): void {
    this.heads.start(signal);
  }

  stop(): Promise<void> {
    return this.heads.stop();
  }

  /** The last polled block for `label`, or undefined before the first successful poll. */
  getLabel(label: L1Label): L1BlockRef | undefined {
    return this.heads.get(label);
  }

  /** Calls `cb` with every new head seen by the poller; returns the unsubscribe function. */
  subscribeHeads(cb: (head: L1BlockRef) => void): () => void {
    return this.heads.subscribe(cb);
  }

  /** Polls once (used by the loop, and by tests that do not want a timer). */
  pollOnce(signal?: AbortSignal): Promise<void> {
    return this.heads.pollOnce(signal);
  }

  private onNewHead(prev: Ref | undefined, head: Ref): void {
    // A head that does not extend the previous one means a reorg: forget unfinalized number → hash mappings.
    if (prev !== undefined && !(head.number === prev.number + 1 && head.parentHash === prev.hash)) {
      const fin = this.heads.get("finalized")?.number ?? -1;
      this.byNumber.deleteWhere((n) => n > fin);
    }
    this.byNumber.set(head.number, { hash: head.hash, atMs: this.deps.clock.nowMs(), tracked: true });
  }

  // ---------------------------------------------------------------- block references

  async l1BlockRefByLabel(label: L1Label, signal?: AbortSignal): Promise<L1BlockRef> {
    const info = await this.rpc.fetch(`label:${label}`, "eth_getBlockByNumber", [label, false], signal);
    const decoded = this.acceptHeader(info);
    return toL1BlockRef(decoded);
  }

  async l1BlockRefByNumber(n: number, signal?: AbortSignal): Promise<L1BlockRef> {
    const known = this.byNumber.get(n);
    if (known !== undefined && this.numberEntryFresh(n, known)) {
      const info = this.headers.get(known.hash) ?? this.bodies.get(known.hash)?.info;
      if (info !== undefined) {
        this.deps.metrics?.cache.inc({ kind: "number", result: "hit" });
        return toL1BlockRef(info);
      }
    }
    this.deps.metrics?.cache.inc({ kind: "number", result: "miss" });
    const raw = await this.rpc.fetch(`num:${n}`, "eth_getBlockByNumber", [toQuantity(n), false], signal);
    const info = this.acceptHeader(raw);
    if (info.number !== n) {
      throw new TemporaryError("L1_INVALID", `asked for L1 block ${n}, got ${info.number}`, { n });
    }
    this.byNumber.set(n, { hash: info.hash, atMs: this.deps.clock.nowMs(), tracked: this.linkedToHeads(n, info.hash) });
    return toL1BlockRef(info);
  }

  /** Whether block `n` with `hash` is the parent of a block on the chain the head poller follows. */
  private linkedToHeads(n: number, hash: Hash): boolean {
    const child = this.byNumber.peek(n + 1);
    if (child === undefined || !child.tracked) return false;
    return this.headers.peek(child.hash)?.parentHash === hash;
  }

  async l1BlockRefByHash(hash: Hash, signal?: AbortSignal): Promise<L1BlockRef> {
    return toL1BlockRef(await this.infoByHash(hash, signal));
  }

  private numberEntryFresh(n: number, e: NumberEntry): boolean {
    if (e.tracked) return true;
    const fin = this.heads.get("finalized");
    if (fin !== undefined && n <= fin.number) return true;
    return this.deps.clock.nowMs() - e.atMs < this.opts.pollIntervalMs;
  }

  // ---------------------------------------------------------------- blocks by hash

  async infoByHash(hash: Hash, signal?: AbortSignal): Promise<L1BlockInfo> {
    const key = hash.toLowerCase() as Hash;
    const cached = this.headers.get(key) ?? this.bodies.peek(key)?.info;
    if (cached !== undefined) {
      this.deps.metrics?.cache.inc({ kind: "header", result: "hit" });
      return cached;
    }
    this.deps.metrics?.cache.inc({ kind: "header", result: "miss" });
    const raw = await this.rpc.fetch(`hdr:${key}`, "eth_getBlockByHash", [key, false], signal);
    const info = this.acceptHeader(raw);
    this.checkHash(info.hash, key);
    return info;
  }

  async infoAndTxsByHash(hash: Hash, signal?: AbortSignal): Promise<BlockWithTxs> {
    const key = hash.toLowerCase() as Hash;
    const cached = this.bodies.get(key);
    if (cached !== undefined) {
      this.deps.metrics?.cache.inc({ kind: "txs", result: "hit" });
      return cached;
    }
    this.deps.metrics?.cache.inc({ kind: "txs", result: "miss" });
    return this.rpc.coalesce(
      `txs:${key}`,
      async () => {
        const raw = await this.rpc.fetch(`rawtxs:${key}`, "eth_getBlockByHash", [key, true]);
        const block = this.decodeBody(raw);
        this.checkHash(block.info.hash, key);
        this.bodies.set(key, block);
        this.headers.set(key, block.info);
        return block;
      },
      signal,
    );
  }

  /** Blocks by number with transactions (convenience for tools; derivation goes number → ref → hash). */
  async infoAndTxsByNumber(n: number, signal?: AbortSignal): Promise<BlockWithTxs> {
    const ref = await this.l1BlockRefByNumber(n, signal);
    return this.infoAndTxsByHash(ref.hash, signal);
  }

  /** The block's receipts, validated against its receipts root. */
  async fetchReceipts(hash: Hash, signal?: AbortSignal): Promise<BlockWithReceipts> {
    const key = hash.toLowerCase() as Hash;
    const cached = this.receipts.get(key);
    if (cached !== undefined) {
      this.deps.metrics?.cache.inc({ kind: "receipts", result: "hit" });
      return cached;
    }
    this.deps.metrics?.cache.inc({ kind: "receipts", result: "miss" });
    return this.rpc.coalesce(
      `rcpt:${key}`,
      async () => {
        const info = await this.infoByHash(key);
        const list = await this.fetchReceiptList(key);
        const receipts = this.guard(() => checkedReceipts(info, list, this.opts.trustRpc ?? false));
        const result = { info, receipts };
        this.receipts.set(key, result);
        return result;
      },
      signal,
    );
  }

  private async fetchReceiptList(hash: Hash): Promise<unknown[]> {
    if (this.receiptsMethod === "eth_getBlockReceipts") {
      try {
        const raw = await this.rpc.fetch(`rawrcpt:${hash}`, "eth_getBlockReceipts", [hash]);
        if (!Array.isArray(raw)) throw new TemporaryError("L1_INVALID", "eth_getBlockReceipts did not return an array");
        return raw;
      } catch (err) {
        if (!isMethodNotFound(err)) throw err;
        this.deps.logger.info({}, "L1 lacks eth_getBlockReceipts; fetching receipts per transaction");
        this.receiptsMethod = "per_tx";
      }
    }
    const { txs } = await this.infoAndTxsByHash(hash);
    const out: unknown[] = [];
    for (let i = 0; i < txs.length; i += 20) {
      const chunk = txs.slice(i, i + 20);
      const results = await this.rpc.batchRetried(
        chunk.map((t) => ({ method: "eth_getTransactionReceipt", params: [t.hash] })),
      );
      for (const r of results) {
        if (!r.ok) throw r.error;
        if (r.result === null) throw new TemporaryError("NOT_FOUND", "L1 receipt not found", { block: hash });
        out.push(r.result);
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- shared per-chain slices

  /** The block's transactions sent to `to`; each decoded and its sender recovered at most once for all chains. */
  async txsTo(hash: Hash, to: Address, signal?: AbortSignal): Promise<readonly L1TxEntry[]> {
    const block = await this.infoAndTxsByHash(hash, signal);
    let index = this.txIndexes.get(block);
    if (index === undefined) {
      index = new L1TxIndex(block.txs, this.indexCounters);
      this.txIndexes.set(block, index);
    }
    return index.txsTo(to);
  }

  /** The block's successful receipts reduced to the logs `address` emitted; the block is indexed once. */
  async receiptsOf(
    hash: Hash,
    address: Address,
    signal?: AbortSignal,
  ): Promise<{ info: L1BlockInfo; receipts: readonly Receipt[] }> {
    const block = await this.fetchReceipts(hash, signal);
    let index = this.logIndexes.get(block);
    if (index === undefined) {
      index = new L1LogIndex(block.receipts, this.indexCounters);
      this.logIndexes.set(block, index);
    }
    return { info: block.info, receipts: index.receiptsOf(address) };
  }

  // ---------------------------------------------------------------- misc

  async chainId(signal?: AbortSignal): Promise<bigint> {
    if (this.cachedChainId !== undefined) return this.cachedChainId;
    const raw = await this.rpc.fetch("chainId:", "eth_chainId", [], signal);
    this.cachedChainId = quantityToBigint(raw);
    return this.cachedChainId;
  }

  /** `eth_getStorageAt` at a block hash (runtime config reads). */
  async getStorageAt(address: Address, slot: Hash, blockHash: Hash, signal?: AbortSignal): Promise<Hash> {
    const raw = await this.rpc.fetch(
      `storage:${address}:${slot}:${blockHash}`,
      "eth_getStorageAt",
      [address, slot, { blockHash }],
      signal,
    );
    return raw as Hash;
  }

  // ---------------------------------------------------------------- plumbing

  private acceptHeader(raw: unknown): L1BlockInfo {
    const info = this.guard(() => checkedHeader(raw, this.opts.trustRpc ?? false));
    this.headers.set(info.hash, info);
    return info;
  }

  private decodeBody(raw: unknown): BlockWithTxs {
    return this.guard(() => checkedBody(raw, this.opts.trustRpc ?? false));
  }

  /** Counts rejected L1 responses. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      this.deps.metrics?.errors.inc({ kind: "invalid" });
      throw err;
    }
  }

  private checkHash(got: Hash, want: Hash): void {
    if (got !== want) {
      this.deps.metrics?.errors.inc({ kind: "invalid" });
      throw new TemporaryError("L1_INVALID", "L1 returned a block with another hash", { want, got });
    }
  }

  /** Counters for tests and the benchmark (not a replacement for metrics). */
  get stats(): { inflight: number; cachedHeaders: number } {
    return { inflight: this.rpc.inflightCount, cachedHeaders: this.headers.size };
  }
}

export type { L1BlockInfo, L1Label, L1Receipt, L1Transaction } from "./l1-types.js";
