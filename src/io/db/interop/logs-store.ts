import { Level } from "level";
import { CriticalError, ResetError } from "../../../core/errors/supernode-error.js";
import { type Logger, silentLogger } from "../../../core/logger.js";
import { GuardedLevel, type StoreNaming } from "../guarded-level.js";

import type { StoredLog } from "../../../protocol/interop/messages.js";
import { decodeStoredBlock as decode, encodeStoredBlock as encode, type StoredBlock } from "./logs-codec.js";
import type { InitiatingLog } from "../../../protocol/interop/rules.js";
import type { SealedBlock } from "../../../protocol/interop/types.js";

/** How the interop stores (`<data-dir>/interop/`) name themselves in their errors (`INTEROP_STORE_WRITE`, …). */
export const INTEROP_STORE_NAMING: StoreNaming = {
  code: "INTEROP_STORE",
  what: "interop store",
  resetHint: "stop the supernode, move <data-dir>/interop aside, start it (the interop activity starts cold)",
};

/** A sealing that conflicts with what is stored (an L2 reorg not yet repaired): the store must be rewound. */
export class LogsConflictError extends ResetError {}

/** key = "b" ‖ uint64_be(number). */
function key(n: number): Uint8Array {
  const k = new Uint8Array(9);
  k[0] = 0x62;
  new DataView(k.buffer).setBigUint64(1, BigInt(n));
  return k;
}

const LOW = key(0);
const HIGH = key(Number.MAX_SAFE_INTEGER);

/** Refuses `block` unless it directly extends `h` (next number, parent link, time not going back). */
function checkExtends(h: SealedBlock, block: SealedBlock): void {
  if (block.number !== h.number + 1)
    throw new LogsConflictError("INTEROP_LOGS_GAP", "block does not follow the latest sealed block", {
      number: block.number,
      latest: h.number,
    });
  if (block.parentHash !== h.hash)
    throw new LogsConflictError("INTEROP_LOGS_PARENT", "parent hash does not match the latest sealed block", {
      number: block.number,
      parent: block.parentHash,
      latest: h.hash,
    });
  if (block.timestamp < h.timestamp)
    throw new LogsConflictError("INTEROP_LOGS_TIME", "block timestamp goes back", { number: block.number });
}

/** What this store uses of a LevelDB or a sublevel of one (binary keys and values). */
interface Kv {
  iterator(o: {
    gte: Uint8Array;
    lte: Uint8Array;
    reverse?: boolean;
    limit?: number;
  }): AsyncIterable<[Uint8Array, Uint8Array]>;
  get(k: Uint8Array): Promise<Uint8Array | undefined>;
  put(k: Uint8Array, v: Uint8Array): Promise<void>;
  batch(ops: { type: "put"; key: Uint8Array; value: Uint8Array }[]): Promise<void>;
  clear(o: { gt?: Uint8Array; gte?: Uint8Array; lte: Uint8Array }): Promise<void>;
  readonly status: string;
  open(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A sealing checked and encoded but not written yet: its batch operations (on the store's sublevel) go into the
 * verified store's commit batch, so a round's logs of every chain and its verified result are one atomic write.
 */
export interface StagedSeal {
  /** The LevelDB the operations belong to (the verified store's, for sublevel stores). */
  readonly root: unknown;
  readonly ops: ReadonlyArray<{ type: "put"; sublevel: unknown; key: Uint8Array; value: Uint8Array }>;
  /** Writes the operations on their own (a store with its own LevelDB). */
  write(): Promise<void>;
  /** Updates the store's memory once the operations are written. */
  done(): void;
}

/**
 * One chain's interop logs on LevelDB: consecutive sealed blocks, each with every log's hash and decoded executing
 * message. In the supernode a store is a sublevel of the interop LevelDB (`<data-dir>/interop/`, `!logs-<id>!`
 * keys) so a round's seals commit in the same batch as its verified result (`stage` + `VerifiedStore.commit`); a
 * store can also have its own LevelDB (`open`). The first and latest sealed blocks are kept in memory; recently read
 * blocks are cached for message lookups.
 */
export class LogsStore {
  private readonly cache = new Map<number, StoredBlock>();
  /** The LevelDB's guard (the verified store's, for a sublevel): writes, and the reopen after a failed one. */
  private guard!: GuardedLevel;
  private head: SealedBlock | undefined;
  private tail: SealedBlock | undefined;
  /** Loaded, and no removal under way: an open must find the latest sealed block this store acknowledged. */
  private checked = false;
  /** The latest block a sealing staged last would make (a failed write may or may not have reached the disk). */
  private attemptedHead: SealedBlock | undefined;

  private constructor(
    private readonly db: Kv,
    private readonly root: unknown,
    private readonly ownsDb: boolean,
    private readonly dir: string,
  ) {}

  /** A store with its own LevelDB at `dir` (tests, tools). */
  static async open(dir: string, deps: { logger?: Logger } = {}): Promise<LogsStore> {
    const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const store = new LogsStore(db as unknown as Kv, db, true, dir);
    store.guard = new GuardedLevel({
      db,
      dir,
      naming: INTEROP_STORE_NAMING,
      logger: (deps.logger ?? silentLogger).child({ component: "interop-logs" }),
      verify: () => store.reload(),
      closedError: () => new CriticalError("INTEROP_STORE_CLOSED", `the interop logs at ${dir} are closed`),
    });
    await store.guard.opened();
    return store;
  }

  /**
   * The store of sublevel `name` of the open LevelDB `root`, written through `guard` (the root's owner's, which
   * calls `reload` after each open of the root and stays the one to close it).
   */
  static async within(
    root: Level<Uint8Array, Uint8Array>,
    name: string,
    guard: GuardedLevel,
    dir: string,
  ): Promise<LogsStore> {
    const sub = root.sublevel(name, { keyEncoding: "view", valueEncoding: "view" });
    const store = new LogsStore(sub as unknown as Kv, root, false, `${dir} (${name})`);
    store.guard = guard;
    await guard.read(() => store.reload());
    return store;
  }

  /**
   * Reads the first and latest sealed blocks (after each open of the LevelDB; a sublevel is opened again with it).
   * Once loaded, the latest block must be the one this store acknowledged, or the one the failed write would have
   * made; else acknowledged blocks were lost (critical `INTEROP_STORE_CORRUPT`).
   */
  async reload(): Promise<void> {
    if (this.db.status !== "open") await this.db.open();
    const edge = async (reverse: boolean) => {
      for await (const [, v] of this.db.iterator({ gte: LOW, lte: HIGH, reverse, limit: 1 })) return decode(v).block;
      return undefined;
    };
    const head = await edge(true);
    if (this.checked && head?.hash !== this.head?.hash && head?.hash !== this.attemptedHead?.hash)
      throw new CriticalError(
        "INTEROP_STORE_CORRUPT",
        `the interop logs at ${this.dir} lost acknowledged blocks (latest ${this.head?.number ?? "none"}, found ` +
          `${head?.number ?? "none"}) when opened again after a failed write; ${INTEROP_STORE_NAMING.resetHint}`,
        { dir: this.dir },
      );
    this.head = head;
    this.tail = await edge(false);
    this.cache.clear();
    this.attemptedHead = undefined;
    this.checked = true;
  }

  latest(): SealedBlock | undefined {
    return this.head;
  }

  first(): SealedBlock | undefined {
    return this.tail;
  }

  private async read(n: number): Promise<StoredBlock | undefined> {
    if (this.head === undefined || this.tail === undefined || n > this.head.number || n < this.tail.number)
      return undefined;
    const c = this.cache.get(n);
    if (c !== undefined) return c;
    const v = await this.guard.read(() => this.db.get(key(n)));
    if (v === undefined) return undefined;
    const s = decode(v);
    this.remember(n, s);
    return s;
  }

  private remember(n: number, s: StoredBlock): void {
    this.cache.set(n, s);
    if (this.cache.size > 512) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }

  async blockAt(n: number): Promise<SealedBlock | undefined> {
    return (await this.read(n))?.block;
  }

  async findLog(blockNumber: number, logIndex: number): Promise<InitiatingLog | undefined> {
    const s = await this.read(blockNumber);
    const l = s?.logs[logIndex];
    return s === undefined || l === undefined ? undefined : { logHash: l.hash, blockTimestamp: s.block.timestamp };
  }

  /**
   * Seals `block` with its logs. The same block again is a no-op; a different block at a sealed height, a block
   * that does not extend the latest one (gap or parent mismatch) or goes back in time is refused. An empty store
   * accepts any block (the anchor).
   */
  async seal(block: SealedBlock, logs: readonly StoredLog[]): Promise<void> {
    return this.sealMany([{ block, logs }]);
  }

  /** Seals consecutive blocks in one atomic write; each is checked as `seal` checks it (all or nothing). */
  async sealMany(items: ReadonlyArray<{ readonly block: SealedBlock; readonly logs: readonly StoredLog[] }>) {
    const staged = await this.stage(items);
    if (staged === undefined) return;
    await staged.write();
    staged.done();
  }

  /**
   * Checks and encodes the sealing of `items` (as `sealMany`) without writing it; undefined when every block is
   * sealed already. The caller writes the operations (or calls `write`), then calls `done`; nothing may be sealed
   * in between.
   */
  async stage(
    items: ReadonlyArray<{ readonly block: SealedBlock; readonly logs: readonly StoredLog[] }>,
  ): Promise<StagedSeal | undefined> {
    let h = this.head;
    const fresh: StoredBlock[] = [];
    for (const { block, logs } of items) {
      if (h !== undefined) {
        if (block.number <= h.number) {
          const have = fresh.find((f) => f.block.number === block.number)?.block ?? (await this.blockAt(block.number));
          if (have?.hash === block.hash) continue;
          throw new LogsConflictError("INTEROP_LOGS_STALE", "the logs store has another block at this height (reorg)", {
            number: block.number,
            stored: have?.hash,
            block: block.hash,
          });
        }
        checkExtends(h, block);
      }
      const s: StoredBlock = {
        block: { hash: block.hash, number: block.number, parentHash: block.parentHash, timestamp: block.timestamp },
        logs,
      };
      fresh.push(s);
      h = s.block;
    }
    if (fresh.length === 0) return undefined;
    const sub = this.db;
    const ops = fresh.map((s) => ({ type: "put" as const, sublevel: sub, key: key(s.block.number), value: encode(s) }));
    const head = h;
    this.attemptedHead = head;
    return {
      root: this.ownsDb ? this.db : this.root,
      ops,
      write: () =>
        this.guard.write(async () => {
          if (ops.length === 1) await this.db.put((ops[0] as (typeof ops)[0]).key, (ops[0] as (typeof ops)[0]).value);
          else await this.db.batch(ops.map((o) => ({ type: "put" as const, key: o.key, value: o.value })));
        }),
      done: () => {
        for (const s of fresh) this.remember(s.block.number, s);
        this.head = head;
        this.tail ??= (fresh[0] as StoredBlock).block;
      },
    };
  }

  async rewindTo(n: number): Promise<void> {
    if (this.head === undefined || n >= this.head.number) return;
    if (this.tail !== undefined && n < this.tail.number) return this.clear();
    await this.removing(async () => {
      await this.db.clear({ gt: key(n), lte: HIGH });
      for (const k of [...this.cache.keys()]) if (k > n) this.cache.delete(k);
      const v = await this.db.get(key(n));
      this.head = v === undefined ? undefined : decode(v).block;
      if (this.head === undefined) this.tail = undefined;
    });
  }

  clear(): Promise<void> {
    return this.removing(async () => {
      await this.db.clear({ gte: LOW, lte: HIGH });
      this.cache.clear();
      this.head = undefined;
      this.tail = undefined;
    });
  }

  /** A write that removes blocks: an open while it is under way (it failed) checks nothing (it is tried again). */
  private removing(fn: () => Promise<void>): Promise<void> {
    return this.guard.write(async () => {
      this.checked = false;
      await fn();
      this.checked = true;
    });
  }

  async close(): Promise<void> {
    if (this.ownsDb) await this.guard.close();
  }
}
