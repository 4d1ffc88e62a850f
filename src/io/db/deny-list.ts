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
import { SerialQueue } from "../../core/async/serial-queue.js";
import { CriticalError, TemporaryError, type SupernodeError } from "../../core/errors/supernode-error.js";
import type { Hash } from "../../core/types/primitives.js";
import type { DeniedBlock } from "../../protocol/interop/types.js";

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

function openError(err: unknown, dir: string): SupernodeError {
  const texts: string[] = [];
  for (let e = err, i = 0; e instanceof Error && i < 5; e = (e as Error & { cause?: unknown }).cause, i++)
    texts.push(String((e as Error & { code?: unknown }).code ?? ""), e.message);
  // Another process holds the store: temporary (the node retries); anything else cannot be fixed by retrying.
  if (texts.some((t) => /LOCK|already held|Resource temporarily unavailable/.test(t)))
    return new TemporaryError("DENYLIST_LOCKED", `the deny list at ${dir} is in use by another process`, { dir }, err);
  return new CriticalError("DENYLIST_OPEN", `cannot open the deny list at ${dir}`, { dir }, err);
}

/** Implements `DenyListPort` (src/node/ports.ts). */
export class DenyList {
  private readonly queue = new SerialQueue();
  private readonly byHeight = new Map<number, Stored[]>();
  private hold: number | undefined;
  private opening: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    readonly dir: string,
  ) {}

  /** Opens the list and waits for it (tools and tests). */
  static async open(dir: string): Promise<DenyList> {
    const list = DenyList.openInBackground(dir);
    await list.opened();
    return list;
  }

  /** Starts opening the list and returns at once; `opened()` resolves once it is open and loaded. */
  static openInBackground(dir: string): DenyList {
    const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const list = new DenyList(db, dir);
    list.opened().catch(() => {}); // start now; the error reaches whoever waits for it
    return list;
  }

  /** Resolves once the list is open and mirrored in memory (starting the open again if a previous one failed). */
  opened(): Promise<void> {
    if (this.closed) return Promise.reject(this.closedError());
    this.opening ??= this.load().catch((err: unknown) => {
      this.opening = undefined;
      throw openError(err, this.dir);
    });
    return this.opening;
  }

  private async load(): Promise<void> {
    await this.db.open();
    for await (const [k, v] of this.db.iterator()) {
      if (k.length === 8) this.byHeight.set(heightOf(k), JSON.parse(dec(v)) as Stored[]);
      else if (Buffer.from(k).equals(HOLD_KEY)) this.hold = Number(dec(v));
    }
  }

  add(b: DeniedBlock): Promise<boolean> {
    if (!Number.isSafeInteger(b.height) || b.height <= 0)
      return Promise.reject(new CriticalError("DENY_GENESIS", `cannot invalidate genesis block (height=${b.height})`));
    return this.write(async () => {
      if (this.isDenied(b.height, b.payloadHash)) return false;
      const next = [...(this.byHeight.get(b.height) ?? []), toStored(b)];
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
      await this.db.batch(ops, { sync: true });
      for (const [height, keep] of next) {
        if (keep.length === 0) this.byHeight.delete(height);
        else this.byHeight.set(height, keep);
      }
      return removed.sort((a, b) => a.height - b.height);
    });
  }

  /** Runs `fn` after the open, one change at a time. */
  private write<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      await this.opened();
      if (this.closed) throw this.closedError();
      return fn();
    });
  }

  private closedError(): CriticalError {
    return new CriticalError("DENYLIST_CLOSED", `the deny list at ${this.dir} is closed`);
  }

  async close(): Promise<void> {
    await this.queue.run(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.opening?.catch(() => {});
      await this.db.close();
    });
  }
}
