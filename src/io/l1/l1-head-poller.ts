import type { Clock } from "../../core/time/clock.js";
import type { Logger } from "../../core/logger.js";
import type { L1BlockRef } from "../../core/types/block-ref.js";
import { isAborted } from "../../core/errors/supernode-error.js";
import type { L1Metrics } from "./metrics.js";
import type { L1Rpc } from "./l1-rpc.js";
import { toL1BlockRef, type L1BlockInfo, type L1Label } from "./l1-types.js";

export interface L1HeadPollerDeps {
  readonly rpc: L1Rpc;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: L1Metrics | undefined;
  readonly pollIntervalMs: number;
  /** Validates and caches a polled header. */
  readonly acceptHeader: (raw: unknown) => L1BlockInfo;
  /** Called with every new `latest` head before the subscribers (the client's number → hash bookkeeping). */
  readonly onNewHead: (prev: L1BlockRef | undefined, head: L1BlockRef) => void;
}

const LABELS = ["latest", "safe", "finalized"] as const;

/** Polls L1's latest / safe / finalized together and tells subscribers about each new head. */
export class L1HeadPoller {
  private readonly labels = new Map<L1Label, L1BlockRef>();
  private readonly headSubs = new Set<(head: L1BlockRef) => void>();
  private loop: { ctl: AbortController; done: Promise<void> } | undefined;

  constructor(private readonly deps: L1HeadPollerDeps) {}

  /** Starts polling every `pollIntervalMs` (first poll immediately). Idempotent. */
  start(signal?: AbortSignal): void {
    if (this.loop !== undefined) return;
    const ctl = new AbortController();
    if (signal !== undefined) signal.addEventListener("abort", () => ctl.abort(), { once: true });
    const done = this.pollLoop(ctl.signal);
    this.loop = { ctl, done };
  }

  async stop(): Promise<void> {
    const loop = this.loop;
    if (loop === undefined) return;
    this.loop = undefined;
    loop.ctl.abort();
    await loop.done;
  }

  get(label: L1Label): L1BlockRef | undefined {
    return this.labels.get(label);
  }

  subscribe(cb: (head: L1BlockRef) => void): () => void {
    this.headSubs.add(cb);
    return () => this.headSubs.delete(cb);
  }

  async pollOnce(signal?: AbortSignal): Promise<void> {
    const results = await this.deps.rpc.batchOnce(
      LABELS.map((l) => ({ method: "eth_getBlockByNumber", params: [l, false] })),
      signal,
    );
    for (let i = 0; i < LABELS.length; i++) {
      const label = LABELS[i] as L1Label;
      const r = results[i];
      if (r !== undefined && !r.ok) {
        this.deps.logger.warn({ label, err: String(r.error) }, "L1 label poll failed");
        continue;
      }
      if (r === undefined || r.result === null) continue; // safe/finalized may not exist yet
      const ref = toL1BlockRef(this.deps.acceptHeader(r.result));
      const prev = this.labels.get(label);
      this.labels.set(label, ref);
      this.deps.metrics?.head.set({ label }, ref.number);
      if (label === "latest" && (prev === undefined || prev.hash !== ref.hash)) this.newHead(prev, ref);
    }
  }

  private newHead(prev: L1BlockRef | undefined, head: L1BlockRef): void {
    this.deps.onNewHead(prev, head);
    for (const cb of this.headSubs) {
      try {
        cb(head);
      } catch (err) {
        this.deps.logger.warn({ err: String(err) }, "L1 head subscriber threw");
      }
    }
  }

  private async pollLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.pollOnce(signal);
      } catch (err) {
        if (isAborted(err, signal)) break;
        this.deps.logger.warn({ err: String(err) }, "L1 head poll failed");
      }
      try {
        await this.deps.clock.sleep(this.deps.pollIntervalMs, signal);
      } catch {
        break;
      }
    }
  }
}
