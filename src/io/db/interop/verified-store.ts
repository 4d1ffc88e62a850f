import { Level } from "level";
import { CriticalError, type SupernodeError } from "../../../core/errors/supernode-error.js";
import { type Logger, silentLogger } from "../../../core/logger.js";
import { GuardedLevel } from "../guarded-level.js";
import { INTEROP_STORE_NAMING, LogsStore, type StagedSeal } from "./logs-store.js";
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
  private readonly guard: GuardedLevel;
  /** The chains' logs stores in this LevelDB (reloaded and checked after each open). */
  private readonly logs: LogsStore[] = [];
  private lastResult: VerifiedResult | undefined;
  private firstTs: number | undefined;
  /** The pending transition as last read or written (this store is its only writer); null = not read yet. */
  private pendingCache: PendingTransition | undefined | null = null;
  /** What the store acknowledged (the newest result's and the pending transition's stored text). */
  private acked: { last: string | null; pending: string | null } = { last: null, pending: null };
  /** Loaded, and no rewind under way: an open must find what the store acknowledged. */
  private checked = false;
  /** What the failed write would have made (a LevelDB write is all or nothing). */
  private attempted: string | undefined;

  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    private readonly dir: string,
    logger: Logger,
  ) {
    this.guard = new GuardedLevel({
      db,
      dir,
      naming: INTEROP_STORE_NAMING,
      logger,
      verify: () => this.load(),
      closedError: () => new CriticalError("INTEROP_STORE_CLOSED", `the interop store at ${dir} is closed`),
    });
  }

  /** Opens the store (creating it); rejects with the classified open error (`INTEROP_STORE_CORRUPT` is critical). */
  static async open(dir: string, deps: { logger?: Logger } = {}): Promise<VerifiedStore> {
    const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const s = new VerifiedStore(db, dir, (deps.logger ?? silentLogger).child({ component: "interop-store" }));
    await s.guard.opened();
    return s;
  }

  /** The failed write the store has not recovered from yet (a full disk); undefined when healthy. */
  fault(): SupernodeError | undefined {
    return this.guard.fault();
  }

  /**
   * After each open: reads the newest and first results and the pending transition, and checks that the store
   * holds what it acknowledged, or what the failed write would have made (else `INTEROP_STORE_CORRUPT`); then
   * each logs store does the same.
   */
  private async load(): Promise<void> {
    const found = await this.readState();
    const text = JSON.stringify([found.last, found.pending]);
    if (this.checked && text !== JSON.stringify([this.acked.last, this.acked.pending]) && text !== this.attempted)
      throw new CriticalError(
        "INTEROP_STORE_CORRUPT",
        `the interop store at ${this.dir} lost acknowledged records when opened again after a failed write; ` +
          INTEROP_STORE_NAMING.resetHint,
        { dir: this.dir },
      );
    for (const l of this.logs) await l.reload();
    this.adopt(found);
    this.checked = true;
  }

  private async readState(): Promise<{ last: string | null; pending: string | null; firstTs: number | undefined }> {
    let last: string | null = null;
    let firstTs: number | undefined;
    for await (const [, v] of this.db.iterator({ gte: LOW, lte: HIGH, reverse: true, limit: 1 })) last = dec(v);
    for await (const [, v] of this.db.iterator({ gte: LOW, lte: HIGH, limit: 1 }))
      firstTs = (JSON.parse(dec(v)) as VerifiedResult).timestamp;
    const p = await this.db.get(PENDING);
    return { last, pending: p === undefined ? null : dec(p), firstTs };
  }

  private adopt(s: { last: string | null; pending: string | null; firstTs: number | undefined }): void {
    this.lastResult = s.last === null ? undefined : (JSON.parse(s.last) as VerifiedResult);
    this.firstTs = s.firstTs;
    this.pendingCache = s.pending === null ? undefined : pendingTransitionFromJson(s.pending);
    this.acked = { last: s.last, pending: s.pending };
    this.attempted = undefined;
  }

  /** Runs a write through the guard, noting first what it would make of the acknowledged state. */
  private write<T>(next: { last?: string | null; pending?: string | null }, fn: () => Promise<T>): Promise<T> {
    return this.guard.write(async () => {
      const after = {
        last: next.last === undefined ? this.acked.last : next.last,
        pending: next.pending === undefined ? this.acked.pending : next.pending,
      };
      this.attempted = JSON.stringify([after.last, after.pending]);
      const out = await fn();
      this.acked = after;
      return out;
    });
  }

  last(): VerifiedResult | undefined {
    return this.lastResult;
  }

  /** Chain `chainId`'s logs store, a sublevel of this LevelDB (its seals can join `commit`'s batch). */
  async logsStore(chainId: string): Promise<LogsStore> {
    const store = await LogsStore.within(this.db, `logs-${chainId}`, this.guard, this.dir);
    this.logs.push(store);
    return store;
  }

  firstTimestamp(): number | undefined {
    return this.firstTs;
  }

  async get(ts: number): Promise<VerifiedResult | undefined> {
    if (this.lastResult === undefined || ts > this.lastResult.timestamp) return undefined;
    if (ts === this.lastResult.timestamp) return this.lastResult;
    const v = await this.guard.read(() => this.db.get(key(ts)));
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
    await this.write({ last: json, pending: null }, () =>
      this.db.batch([
        ...(mine.flatMap((s) => s.ops) as never[]),
        { type: "put", key: key(result.timestamp), value: enc(json) },
        { type: "del", key: PENDING },
      ]),
    );
    for (const s of mine) s.done();
    this.pendingCache = undefined;
    this.lastResult = JSON.parse(json) as VerifiedResult;
    this.firstTs ??= result.timestamp;
  }

  private async writeStaged(staged: readonly StagedSeal[]): Promise<void> {
    if (staged.length === 0) return;
    await this.write({}, () => this.db.batch(staged.flatMap((s) => s.ops) as never[]));
    for (const s of staged) s.done();
  }

  /** Drops every result at or after `ts` and the pending transition (an open meanwhile checks nothing). */
  rewind(ts: number): Promise<void> {
    return this.guard.write(async () => {
      this.checked = false;
      this.pendingCache = null;
      await this.db.clear({ gte: key(ts), lte: HIGH });
      await this.db.del(PENDING);
      this.adopt(await this.readState());
      this.checked = true;
    });
  }

  async pending(): Promise<PendingTransition | undefined> {
    if (this.pendingCache !== null) return this.pendingCache;
    const v = await this.guard.read(() => this.db.get(PENDING));
    this.pendingCache = v === undefined ? undefined : pendingTransitionFromJson(dec(v));
    return this.pendingCache;
  }

  async setPending(t: PendingTransition): Promise<void> {
    const json = pendingTransitionToJson(t);
    this.pendingCache = null; // unknown until the write is done
    // An invalidation or a rewind acts on other stores (deny lists, execution clients): its record reaches the disk
    // first. An advance only writes this LevelDB, in order, so it needs no sync of its own.
    await this.write({ pending: json }, () => this.db.put(PENDING, enc(json), { sync: t.kind !== "advance" }));
    this.pendingCache = pendingTransitionFromJson(json);
  }

  async clearPending(): Promise<void> {
    this.pendingCache = null;
    await this.write({ pending: null }, () => this.db.del(PENDING));
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

  close(): Promise<void> {
    return this.guard.close();
  }
}
