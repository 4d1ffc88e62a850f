/**
 * The per-chain deny list (op-supernode §2.10) on LevelDB, `<data-dir>/chain-<id>/denylist/`: key = u64be(height),
 * value = JSON array of the records at that height (in the order they were added); the key `hold` keeps the height
 * whose deposits-only replacement derivation still owes the sequencer (absent: none). Each change is one synchronous
 * write (a put, a delete, or one batch for a prune), so a killed process leaves the old or the new list. The whole
 * list is mirrored in memory when it opens: it only grows by one record per invalidation.
 *
 * It opens in the background (docs/performance.md): the chain serves its RPC meanwhile, and its node waits for `opened()`
 * before it inserts or builds anything; writes wait for the open themselves.
 */
import { Level } from "level";
import { CriticalError, type SupernodeError } from "../../core/errors/supernode-error.js";
import { type Logger, silentLogger } from "../../core/logger.js";
import type { Hash } from "../../core/types/primitives.js";
import type { DeniedBlock } from "../../protocol/interop/types.js";
import { GuardedLevel, type StoreNaming } from "./guarded-level.js";

function key(height: number): Uint8Array {
  const k = new Uint8Array(8);
  new DataView(k.buffer).setBigUint64(0, BigInt(height));
  return k;
}
const heightOf = (k: Uint8Array): number => Number(new DataView(k.buffer, k.byteOffset, 8).getBigUint64(0));
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (v: Uint8Array) => new TextDecoder().decode(v);
/** Not 8 bytes long, so never a height's key. */
const HOLD_KEY = enc("hold");

type Stored = Omit<DeniedBlock, "height">;

function toStored(b: DeniedBlock): Stored {
  return {
    payloadHash: b.payloadHash.toLowerCase() as Hash,
    decisionTimestamp: b.decisionTimestamp,
    stateRoot: b.stateRoot,
    messagePasserStorageRoot: b.messagePasserStorageRoot,
    txHashes: b.txHashes.map((t) => t.toLowerCase() as Hash),
  };
}

const NAMING: StoreNaming = {
  code: "DENYLIST",
  what: "deny list",
  resetHint:
    "stop the supernode, move the chain's denylist directory aside, start it (the interop activity denies again)",
};

/** The list's content in one canonical text (records by height, then the hold): what verification compares. */
function contentOf(byHeight: ReadonlyMap<number, Stored[]>, hold: number | undefined): string {
  return JSON.stringify([[...byHeight].sort((x, y) => x[0] - y[0]), hold ?? null]);
}

/** Implements `DenyListPort` (src/node/ports.ts). */
export class DenyList {
  private readonly guard: GuardedLevel;
  private readonly byHeight = new Map<number, Stored[]>();
  private hold: number | undefined;
  /** Loaded once: from then on the memory holds what the list acknowledged, and every open is checked against it. */
  private loaded = false;
  /** The content a failed write would have made (it may or may not have reached the disk). */
  private attempted: string | undefined;

  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    readonly dir: string,
    logger: Logger,
  ) {
    this.guard = new GuardedLevel({
      db,
      dir,
      naming: NAMING,
      logger,
      verify: () => this.load(),
      closedError: () => new CriticalError("DENYLIST_CLOSED", `the deny list at ${dir} is closed`),
    });
  }

  /** Opens the list and waits for it (tools and tests). */
  static async open(dir: string, deps: { logger?: Logger } = {}): Promise<DenyList> {
    const list = DenyList.openInBackground(dir, deps);
    await list.opened();
    return list;
  }

  /** Starts opening the list and returns at once; `opened()` resolves once it is open and loaded. */
  static openInBackground(dir: string, deps: { logger?: Logger } = {}): DenyList {
    const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const list = new DenyList(db, dir, (deps.logger ?? silentLogger).child({ component: "denylist" }));
    list.opened().catch(() => {}); // start now; the error reaches whoever waits for it
    return list;
  }

  /**
   * Resolves once the list is open and mirrored in memory (starting the open again if a previous one failed; after
   * a failed write, the next write opens it again and checks it).
   */
  async opened(): Promise<void> {
    if (this.guard.isClosed) throw this.closedError();
    return this.guard.opened();
  }

  /** The failed write the list has not recovered from yet (a full disk); undefined when healthy. */
  fault(): SupernodeError | undefined {
    return this.guard.fault();
  }

  /**
   * Reads the whole list. After the first load the memory is what the list acknowledged: the store must hold
   * exactly that, or what the failed write would have made (a LevelDB write is all or nothing); else records were
   * lost (critical `DENYLIST_CORRUPT`).
   */
  private async load(): Promise<void> {
    const byHeight = new Map<number, Stored[]>();
    let hold: number | undefined;
    for await (const [k, v] of this.db.iterator()) {
      if (k.length === 8) byHeight.set(heightOf(k), JSON.parse(dec(v)) as Stored[]);
      else if (Buffer.from(k).equals(HOLD_KEY)) hold = Number(dec(v));
    }
    const found = contentOf(byHeight, hold);
    if (this.loaded && found !== contentOf(this.byHeight, this.hold) && found !== this.attempted)
      throw new CriticalError(
        "DENYLIST_CORRUPT",
        `the deny list at ${this.dir} lost acknowledged records when opened again after a failed write; ${NAMING.resetHint}`,
        { dir: this.dir },
      );
    this.byHeight.clear();
    for (const [h, recs] of byHeight) this.byHeight.set(h, recs);
    this.hold = hold;
    this.loaded = true;
    this.attempted = undefined;
  }

  add(b: DeniedBlock): Promise<boolean> {
    if (!Number.isSafeInteger(b.height) || b.height <= 0)
      return Promise.reject(new CriticalError("DENY_GENESIS", `cannot invalidate genesis block (height=${b.height})`));
    return this.write(async () => {
      if (this.isDenied(b.height, b.payloadHash)) return false;
      const next = [...(this.byHeight.get(b.height) ?? []), toStored(b)];
      this.attempted = contentOf(new Map(this.byHeight).set(b.height, next), this.hold);
      await this.db.put(key(b.height), enc(JSON.stringify(next)), { sync: true });
      this.byHeight.set(b.height, next);
      return true;
    });
  }

  isDenied(height: number, hash: Hash): boolean {
    const h = hash.toLowerCase();
    return this.byHeight.get(height)?.some((r) => r.payloadHash === h) ?? false;
  }

  atHeight(height: number): readonly DeniedBlock[] {
    return (this.byHeight.get(height) ?? []).map((r) => ({ height, ...r }));
  }

  all(): readonly DeniedBlock[] {
    return [...this.byHeight.keys()].sort((a, b) => a - b).flatMap((h) => this.atHeight(h));
  }

  /** The height whose replacement the sequencer waits for (persisted); undefined when none. */
  replacementHold(): number | undefined {
    return this.hold;
  }

  /** Records (a height) or clears (undefined) the sequencer's wait for a replacement; no write when unchanged. */
  setReplacementHold(height: number | undefined): Promise<void> {
    return this.write(async () => {
      if (this.hold === height) return;
      this.attempted = contentOf(this.byHeight, height);
      if (height === undefined) await this.db.del(HOLD_KEY, { sync: true });
      else await this.db.put(HOLD_KEY, enc(String(height)), { sync: true });
      this.hold = height;
    });
  }

  pruneAtOrAfter(timestamp: number): Promise<DeniedBlock[]> {
    return this.write(async () => {
      const removed: DeniedBlock[] = [];
      const ops: ({ type: "put"; key: Uint8Array; value: Uint8Array } | { type: "del"; key: Uint8Array })[] = [];
      const next = new Map<number, Stored[]>();
      for (const [height, recs] of this.byHeight) {
        const keep = recs.filter((r) => r.decisionTimestamp < timestamp);
        if (keep.length === recs.length) continue;
        for (const r of recs) if (r.decisionTimestamp >= timestamp) removed.push({ height, ...r });
        next.set(height, keep);
        ops.push(
          keep.length === 0
            ? { type: "del", key: key(height) }
            : { type: "put", key: key(height), value: enc(JSON.stringify(keep)) },
        );
      }
      if (ops.length === 0) return removed;
      const after = new Map(this.byHeight);
      for (const [height, keep] of next) {
        if (keep.length === 0) after.delete(height);
        else after.set(height, keep);
      }
      this.attempted = contentOf(after, this.hold);
      await this.db.batch(ops, { sync: true });
      this.byHeight.clear();
      for (const [h, recs] of after) this.byHeight.set(h, recs);
      return removed.sort((a, b) => a.height - b.height);
    });
  }

  /** Runs `fn` after the open, one change at a time; a failed one reopens and checks the list first. */
  private async write<T>(fn: () => Promise<T>): Promise<T> {
    return this.guard.write(fn);
  }

  private closedError(): CriticalError {
    return new CriticalError("DENYLIST_CLOSED", `the deny list at ${this.dir} is closed`);
  }

  close(): Promise<void> {
    return this.guard.close();
  }
}
