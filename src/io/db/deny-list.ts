/**
 * The per-chain deny list (op-supernode §2.10) on LevelDB, `<data-dir>/chain-<id>/denylist/`: key = u64be(height),
 * value = JSON array of the records at that height (in the order they were added). Each change is one synchronous
 * write (a put, or one batch for a prune), so a killed process leaves the old or the new list. The whole list is
 * mirrored in memory at open: it only grows by one record per invalidation.
 */
import { Level } from "level";
import { SerialQueue } from "../../core/async/serial-queue.js";
import { CriticalError } from "../../core/errors/supernode-error.js";
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

/** Implements `DenyListPort` (src/node/ports.ts). */
export class DenyList {
  private readonly queue = new SerialQueue();
  private closed = false;

  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    readonly dir: string,
    private readonly byHeight: Map<number, Stored[]>,
  ) {}

  static async open(dir: string): Promise<DenyList> {
    const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    try {
      await db.open();
    } catch (err) {
      throw new CriticalError("DENYLIST_OPEN", `cannot open the deny list at ${dir}`, { dir }, err);
    }
    const byHeight = new Map<number, Stored[]>();
    for await (const [k, v] of db.iterator()) byHeight.set(heightOf(k), JSON.parse(dec(v)) as Stored[]);
    return new DenyList(db, dir, byHeight);
  }

  add(b: DeniedBlock): Promise<boolean> {
    if (!Number.isSafeInteger(b.height) || b.height <= 0)
      return Promise.reject(new CriticalError("DENY_GENESIS", `cannot invalidate genesis block (height=${b.height})`));
    return this.queue.run(async () => {
      this.checkOpen();
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

  pruneAtOrAfter(timestamp: number): Promise<DeniedBlock[]> {
    return this.queue.run(async () => {
      this.checkOpen();
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

  private checkOpen(): void {
    if (this.closed) throw new CriticalError("DENYLIST_CLOSED", `the deny list at ${this.dir} is closed`);
  }

  async close(): Promise<void> {
    await this.queue.run(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.db.close();
    });
  }
}
