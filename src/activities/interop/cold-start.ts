import { CriticalError, TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import { blockLogs } from "../../protocol/interop/messages.js";
import type { BlockLogsSource, InteropChain, InteropMetrics, InteropState, LogsStorePort } from "./ports.js";

/** Blocks fetched concurrently (and sealed in one batch) while backfilling. */
const BACKFILL_WINDOW = 16;

export interface ColdStartDeps {
  readonly chains: readonly InteropChain[];
  readonly logs: ReadonlyMap<string, LogsStorePort>;
  readonly logger: Logger;
  readonly metrics?: InteropMetrics | undefined;
  readonly setState: (s: InteropState) => void;
}

/**
 * The cold start of the interop activity (nothing verified yet): wait until every chain's SafeDB has an entry,
 * start at max(activation, the latest first-safe timestamp) — before a chain's first SafeDB entry the L1 inclusion
 * of its blocks is unknown — and, with a backfill depth D > 0, first ingest the logs of every chain's blocks from
 * max(activation, start − D) up to the block before the start, so that executing messages at the start can
 * reference older initiating messages.
 */
export class ColdStart {
  private waitingFor: string | undefined;

  constructor(
    private readonly activationTimestamp: number,
    /** `--interop.log-backfill-depth` in whole seconds (0 = off). */
    private readonly backfillDepthS: number,
    private readonly d: ColdStartDeps,
  ) {}

  /** The first timestamp to verify, or undefined while some chain's SafeDB is still empty. */
  async startTimestamp(): Promise<number | undefined> {
    const firsts = await Promise.all(this.d.chains.map((c) => c.firstSafeTimestamp()));
    const missing = this.d.chains.filter((_, i) => firsts[i] === undefined).map((c) => c.chainId.toString(10));
    if (missing.length > 0) {
      this.d.setState("awaiting_safedb");
      const key = missing.join(",");
      if (this.waitingFor !== key) {
        this.waitingFor = key;
        this.d.logger.info({ chains: missing }, "interop cold start: waiting for a SafeDB entry of every chain");
      }
      return undefined;
    }
    this.waitingFor = undefined;
    return Math.max(this.activationTimestamp, ...(firsts as number[]));
  }

  /**
   * Ingests every chain's logs of the blocks in [max(activation, start − D), start) into its logs store, resuming
   * where an interrupted backfill stopped; a store holding anything else is cleared first (nothing is verified, so
   * nothing depends on it). With D = 0 the stores are only emptied.
   */
  async backfill(start: number, signal?: AbortSignal): Promise<Record<string, number>> {
    const depth = this.backfillDepthS;
    if (depth > 0) this.d.setState("backfilling");
    const sealed: Record<string, number> = {};
    for (const chain of this.d.chains) {
      const id = chain.chainId.toString(10);
      const store = this.d.logs.get(id);
      if (store === undefined) continue;
      const from = Math.max(this.activationTimestamp, start - depth, chain.genesisTime);
      const lo = chain.numberAt(from);
      const hi = chain.numberAt(start) - 1;
      const first = store.first();
      const latest = store.latest();
      if (latest !== undefined && (depth === 0 || lo > hi || (first?.number ?? 0) > lo || latest.number < lo - 1)) {
        this.d.logger.info({ chain: id, first: first?.number, latest: latest.number }, "clearing unverified logs");
        await store.clear();
      } else if (latest !== undefined && latest.number > hi) await store.rewindTo(hi);
      if (depth === 0) continue;
      const total = Math.max(0, hi - lo + 1);
      let next = (store.latest()?.number ?? lo - 1) + 1;
      this.d.metrics?.backfillProgress(id, total === 0 ? 1 : (next - lo) / total);
      if (next <= hi) this.d.logger.info({ chain: id, from: next, to: hi }, "interop log backfill");
      while (next <= hi) {
        if (signal?.aborted) throw new TemporaryError("INTEROP_BACKFILL_ABORTED", "log backfill interrupted");
        const end = Math.min(hi, next + BACKFILL_WINDOW - 1);
        const numbers = Array.from({ length: end - next + 1 }, (_, i) => next + i);
        const got = await Promise.all(numbers.map((n) => chain.blockLogsAt(n)));
        const items = got.map((src, i) => {
          if (src === undefined)
            throw new TemporaryError("INTEROP_BACKFILL_BLOCK", `chain ${id}: block ${numbers[i]} is not available`);
          return toSealable(src);
        });
        try {
          await store.sealMany(items);
        } catch (err) {
          // The chain's blocks changed under the backfill (an L2 reorg below its local-safe head): start over.
          await store.clear();
          throw new TemporaryError("INTEROP_BACKFILL_CONFLICT", `chain ${id}: log backfill restarted`, {}, err);
        }
        next = end + 1;
        this.d.metrics?.backfillProgress(id, (next - lo) / total);
      }
      sealed[id] = total;
    }
    if (depth > 0) this.d.logger.info({ start, depth_s: depth, blocks: sealed }, "interop log backfill complete");
    return sealed;
  }
}

function toSealable(src: BlockLogsSource) {
  return { block: src.block, logs: blockLogs(src.receipts) };
}

/**
 * Unrecoverable SafeDB history: the next timestamp to verify lies before some chain's oldest SafeDB entry, so the
 * L1 inclusion of that chain's block there can no longer be known. The activity halts (critical) until the SafeDB
 * is restored or the verified store is removed for a new cold start.
 */
export async function checkSafeHistory(chains: readonly InteropChain[], ts: number): Promise<void> {
  const firsts = await Promise.all(chains.map((c) => c.firstSafeTimestamp()));
  for (let i = 0; i < chains.length; i++) {
    const f = firsts[i];
    const id = (chains[i] as InteropChain).chainId.toString(10);
    if (f !== undefined && f > ts)
      throw new CriticalError(
        "INTEROP_SAFEDB_HISTORY",
        `chain ${id}: its SafeDB begins at timestamp ${f}, after the next timestamp to verify (${ts}); the L1 inclusions in between are lost (restore the chain's SafeDB, or remove <data-dir>/interop for a new cold start)`,
        { chain: id, firstSafe: f, next: ts },
      );
  }
}
