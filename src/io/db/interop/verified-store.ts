import { Level } from "level";
import { CriticalError } from "../../../core/errors/supernode-error.js";
import { LogsStore, type StagedSeal } from "./logs-store.js";
import { pendingTransitionFromJson, pendingTransitionToJson } from "../../../protocol/interop/transition-json.js";
import { type PendingTransition, type VerifiedResult, verifiedResultJson } from "../../../protocol/interop/types.js";

/** key = "v" ‖ uint64_be(timestamp); the pending transition lives under "w". */
function key(ts: number): Uint8Array {
  const k = new Uint8Array(9);
  k[0] = 0x76;
  new DataView(k.buffer).setBigUint64(1, BigInt(ts));
  return k;
}
const LOW = key(0);
const HIGH = key(Number.MAX_SAFE_INTEGER);
const PENDING = new Uint8Array([0x77]);
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (v: Uint8Array) => new TextDecoder().decode(v);

/**
 * The interop activity's verified results and write-ahead transition (`<data-dir>/interop/`, LevelDB). A commit
 * writes the result and removes the transition in one batch, so after a kill the store holds either the old state
 * with the transition (replayed) or the new state without it.
 */
export class VerifiedStore {
  /** The pending transition as last read or written (this store is its only writer); null = not read yet. */
  private pendingCache: PendingTransition | undefined | null = null;
  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    private lastResult: VerifiedResult | undefined,
    private firstTs: number | undefined,
  ) {}

  static async open(dir: string): Promise<VerifiedStore> {
    const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    try {
      await db.open();
    } catch (err) {
      throw new CriticalError("INTEROP_VERIFIED_OPEN", `cannot open the interop store at ${dir}`, { dir }, err);
    }
    const s = new VerifiedStore(db, undefined, undefined);
    await s.reload();
    return s;
  }

  private async reload(): Promise<void> {
    this.lastResult = undefined;
    this.firstTs = undefined;
    for await (const [, v] of this.db.iterator({ gte: LOW, lte: HIGH, reverse: true, limit: 1 }))
      this.lastResult = JSON.parse(dec(v)) as VerifiedResult;
    for await (const [, v] of this.db.iterator({ gte: LOW, lte: HIGH, limit: 1 }))
      this.firstTs = (JSON.parse(dec(v)) as VerifiedResult).timestamp;
  }

  last(): VerifiedResult | undefined {
    return this.lastResult;
  }

  /** Chain `chainId`'s logs store, a sublevel of this LevelDB (its seals can join `commit`'s batch). */
  logsStore(chainId: string): Promise<LogsStore> {
    return LogsStore.within(this.db, `logs-${chainId}`);
  }

  firstTimestamp(): number | undefined {
    return this.firstTs;
  }

  async get(ts: number): Promise<VerifiedResult | undefined> {
    if (this.lastResult === undefined || ts > this.lastResult.timestamp) return undefined;
    if (ts === this.lastResult.timestamp) return this.lastResult;
    const v = await this.db.get(key(ts));
    return v === undefined ? undefined : (JSON.parse(dec(v)) as VerifiedResult);
  }

  /**
   * Commits `result` together with the staged seals of the logs stores: those in this LevelDB go into the same
   * batch (one atomic write per round), others are written first.
   */
  async commit(result: VerifiedResult, staged: readonly StagedSeal[] = []): Promise<void> {
    const mine = staged.filter((s) => s.root === this.db);
    await Promise.all(staged.filter((s) => s.root !== this.db).map((s) => s.write()));
    for (const s of staged) if (s.root !== this.db) s.done();
    const json = verifiedResultJson(result);
    const last = this.lastResult;
    if (last !== undefined && result.timestamp !== last.timestamp + 1) {
      if (result.timestamp <= last.timestamp) {
        const have = await this.get(result.timestamp);
        if (have !== undefined && verifiedResultJson(have) === json) {
          await this.writeStaged(mine);
          await this.clearPending();
          return;
        }
        throw new CriticalError("INTEROP_ALREADY_COMMITTED", `timestamp already committed: ${result.timestamp}`);
      }
      throw new CriticalError(
        "INTEROP_COMMIT_GAP",
        `timestamps must be committed sequentially with no gaps: expected ${last.timestamp + 1}, got ${result.timestamp}`,
      );
    }
    await this.db.batch([
      ...(mine.flatMap((s) => s.ops) as never[]),
      { type: "put", key: key(result.timestamp), value: enc(json) },
      { type: "del", key: PENDING },
    ]);
    for (const s of mine) s.done();
    this.pendingCache = undefined;
    this.lastResult = JSON.parse(json) as VerifiedResult;
    this.firstTs ??= result.timestamp;
  }

  private async writeStaged(staged: readonly StagedSeal[]): Promise<void> {
    if (staged.length === 0) return;
    await this.db.batch(staged.flatMap((s) => s.ops) as never[]);
    for (const s of staged) s.done();
  }

  async rewind(ts: number): Promise<void> {
    this.pendingCache = null;
    await this.db.clear({ gte: key(ts), lte: HIGH });
    await this.db.del(PENDING);
    this.pendingCache = undefined;
    if (this.lastResult !== undefined && ts <= this.lastResult.timestamp) await this.reload();
  }

  async pending(): Promise<PendingTransition | undefined> {
    if (this.pendingCache !== null) return this.pendingCache;
    const v = await this.db.get(PENDING);
    this.pendingCache = v === undefined ? undefined : pendingTransitionFromJson(dec(v));
    return this.pendingCache;
  }

  async setPending(t: PendingTransition): Promise<void> {
    const json = pendingTransitionToJson(t);
    this.pendingCache = null; // unknown until the write is done
    // An invalidation or a rewind acts on other stores (deny lists, execution clients): its record reaches the disk
    // first. An advance only writes this LevelDB, in order, so it needs no sync of its own.
    await this.db.put(PENDING, enc(json), { sync: t.kind !== "advance" });
    this.pendingCache = pendingTransitionFromJson(json);
  }

  async clearPending(): Promise<void> {
    this.pendingCache = null;
    await this.db.del(PENDING);
    this.pendingCache = undefined;
  }

  async atL1(l1Number: number): Promise<VerifiedResult | undefined> {
    const last = this.lastResult;
    if (last === undefined || this.firstTs === undefined) return undefined;
    if (last.l1Inclusion.number <= l1Number) return last;
    let lo = this.firstTs;
    let hi = last.timestamp - 1;
    let best: VerifiedResult | undefined;
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      const r = await this.get(mid);
      if (r !== undefined && r.l1Inclusion.number <= l1Number) {
        best = r;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
