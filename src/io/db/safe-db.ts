import { Level } from "level";
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { CriticalError, type SupernodeError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { BlockId, L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import { classifyStoreError, GuardedLevel, type StoreNaming, type StoreOp } from "./guarded-level.js";
import { SAFEDB_RESET_HINT, type SafeDbScan, scanSafeDb, writeAckMarker } from "./safe-db-verify.js";

/** One SafeDB record: the safe L2 head after deriving from `l1Block`. */
export interface SafeHeadEntry {
  readonly l1Block: BlockId;
  readonly safeHead: BlockId;
}

const PREFIX = 0x00;
const KEY_LEN = 9;
const VALUE_LEN = 72;

/** key = 0x00 ‖ uint64_be(L1 block number). */
export function encodeSafeDbKey(l1Number: number): Uint8Array {
  const key = new Uint8Array(KEY_LEN);
  key[0] = PREFIX;
  new DataView(key.buffer).setBigUint64(1, BigInt(l1Number));
  return key;
}

export function decodeSafeDbKey(key: Uint8Array): number {
  if (key.length !== KEY_LEN || key[0] !== PREFIX) throw new CriticalError("SAFEDB_CORRUPT", "bad SafeDB key");
  return Number(new DataView(key.buffer, key.byteOffset, key.byteLength).getBigUint64(1));
}

/** value = L1 block hash (32) ‖ L2 safe block hash (32) ‖ uint64_be(L2 safe block number). */
export function encodeSafeDbValue(l1Hash: Hash, safeHead: BlockId): Uint8Array {
  const v = new Uint8Array(VALUE_LEN);
  v.set(hexToBytes(l1Hash), 0);
  v.set(hexToBytes(safeHead.hash), 32);
  new DataView(v.buffer).setBigUint64(64, BigInt(safeHead.number));
  return v;
}

export function decodeSafeDbEntry(key: Uint8Array, value: Uint8Array): SafeHeadEntry {
  if (value.length !== VALUE_LEN) throw new CriticalError("SAFEDB_CORRUPT", "bad SafeDB value length");
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  return {
    l1Block: { number: decodeSafeDbKey(key), hash: bytesToHex(value.subarray(0, 32)) },
    safeHead: { hash: bytesToHex(value.subarray(32, 64)), number: Number(view.getBigUint64(64)) },
  };
}

const MAX_KEY = encodeSafeDbKey(Number.MAX_SAFE_INTEGER);

export { SAFEDB_RESET_HINT };

const NAMING: StoreNaming = { code: "SAFEDB", what: "SafeDB", resetHint: SAFEDB_RESET_HINT };

/** Storage errors by what they mean for the chain (`classifyStoreError`): SAFEDB_CORRUPT is critical. */
export function classifyDbError(err: unknown, dir: string, op: StoreOp): SupernodeError {
  return classifyStoreError(err, dir, op, NAMING);
}

/**
 * The safe-head database of one chain (op-node §4 layout, LevelDB): which L2 block was safe after deriving from
 * each L1 block. Writes are serialised, synchronous and atomic (one batch each), so a killed process leaves either
 * the old or the new state.
 */
export class SafeDB {
  private readonly guard: GuardedLevel;
  /** The highest L1 number held (from the scan at open, then kept by the writes); null when the store is empty. */
  private highestL1: number | null = null;
  /** How many entries it holds (kept with `highestL1`). */
  private entryCount = 0;
  /** The last record a put acknowledged, read back after a reopen (undefined after a truncation). */
  private lastPut: { readonly l1: number; readonly key: Uint8Array; readonly value: Uint8Array } | undefined;

  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    /** Where the store lives (named in every storage error). */
    readonly dir: string,
    private readonly logger: Logger,
  ) {
    this.guard = new GuardedLevel({
      db,
      dir,
      naming: NAMING,
      logger,
      verify: () => this.verify(),
      closedError: () => new CriticalError("SAFEDB_CLOSED", "SafeDB is closed"),
    });
  }

  /** Opens the store (creating it when missing); rejects with the classified open error. */
  static async open(dir: string, deps: { logger: Logger }): Promise<SafeDB> {
    const db = SafeDB.openInBackground(dir, deps);
    await db.opened();
    return db;
  }

  /**
   * Starts opening the store and returns at once; every operation waits for the open. A chain can then serve
   * while its store opens (opening a LevelDB costs ~2 ms of CPU and a few files: 100 chains' stores on the start
   * path held their RPC back, docs/performance.md). A failed open fails the operation that waited for it with the
   * classified error (SAFEDB_CORRUPT is critical) and is tried again by the next operation.
   */
  static openInBackground(dir: string, deps: { logger: Logger }): SafeDB {
    const db = new Level<Uint8Array, Uint8Array>(dir, {
      keyEncoding: "view",
      valueEncoding: "view",
      createIfMissing: true,
    });
    const safeDb = new SafeDB(db, dir, deps.logger.child({ component: "safedb" }));
    safeDb.opened().catch(() => {}); // start now; the error reaches the operations that wait for it
    return safeDb;
  }

  /**
   * Resolves once the store is open and verified (starting the open if a previous one failed): every entry is read
   * and decoded, so a damaged table fails the chain at start rather than the RPC read that touches it, and the
   * store must hold what it acknowledged before (`safe-db-verify.ts`).
   */
  opened(): Promise<void> {
    return this.guard.opened();
  }

  private async verify(): Promise<void> {
    const scan: SafeDbScan = await scanSafeDb(this.db, this.dir, (k, v) => decodeSafeDbEntry(k, v).l1Block.number);
    const last = this.lastPut;
    if (last !== undefined) {
      const v = await this.db.get(last.key);
      if (v === undefined || bytesToHex(v) !== bytesToHex(last.value))
        throw new CriticalError(
          "SAFEDB_CORRUPT",
          `SafeDB at ${this.dir} lost its last acknowledged record (L1 block ${last.l1}) when opened again after a ` +
            `failed write; ${SAFEDB_RESET_HINT}`,
          { dir: this.dir },
        );
    }
    this.highestL1 = scan.highestL1;
    this.entryCount = scan.entries;
  }

  /** Records `safeHead` as the safe head derived from `l1Head` (later writes for the same L1 block overwrite). */
  safeHeadUpdated(safeHead: BlockId, l1Head: BlockId): Promise<void> {
    const key = encodeSafeDbKey(l1Head.number);
    const value = encodeSafeDbValue(l1Head.hash, safeHead);
    return this.write(async () => {
      const l1 = l1Head.number;
      // a new key (the usual case: the next L1 block) adds an entry; only a put below the highest needs a look
      const isNew =
        this.highestL1 === null ||
        l1 > this.highestL1 ||
        (l1 < this.highestL1 && (await this.db.get(key)) === undefined);
      await this.db.batch([{ type: "put", key, value }], { sync: true });
      this.lastPut = { l1, key, value };
      if (isNew) {
        const highestL1 = Math.max(l1, this.highestL1 ?? l1);
        await writeAckMarker(this.dir, { highestL1, entries: this.entryCount + 1 });
        this.highestL1 = highestL1;
        this.entryCount++;
      }
    });
  }

  /** The entry with the greatest L1 number ≤ `l1Number`, or undefined when there is none ("not found"). */
  safeHeadAtL1Block(l1Number: number): Promise<SafeHeadEntry | undefined> {
    return this.read(() => this.lastAtOrBelow(l1Number));
  }

  /** The entry with the lowest L1 number (the oldest safe head this store knows), or undefined when it is empty. */
  firstEntry(): Promise<SafeHeadEntry | undefined> {
    return this.read(async () => {
      for await (const [k, v] of this.db.iterator({ gte: encodeSafeDbKey(0), lte: MAX_KEY, limit: 1 }))
        return decodeSafeDbEntry(k, v);
      return undefined;
    });
  }

  private async lastAtOrBelow(l1Number: number): Promise<SafeHeadEntry | undefined> {
    for await (const [k, v] of this.db.iterator({
      lte: encodeSafeDbKey(l1Number),
      gte: encodeSafeDbKey(0),
      reverse: true,
      limit: 1,
    })) {
      return decodeSafeDbEntry(k, v);
    }
    return undefined;
  }

  /** Every entry in L1 order (tests, debugging). */
  entries(): Promise<SafeHeadEntry[]> {
    return this.read(async () => {
      const out: SafeHeadEntry[] = [];
      for await (const [k, v] of this.db.iterator({ gte: encodeSafeDbKey(0), lte: MAX_KEY }))
        out.push(decodeSafeDbEntry(k, v));
      return out;
    });
  }

  /** Drops every entry recorded for an L1 block after `l1Number`. */
  truncate(l1Number: number): Promise<void> {
    return this.destructive(async (entries) => {
      const keys = await this.db.keys({ gt: encodeSafeDbKey(l1Number), lte: MAX_KEY }).all();
      if (keys.length > 0)
        await this.db.batch(
          keys.map((key) => ({ type: "del" as const, key })),
          { sync: true },
        );
      return entries - keys.length;
    });
  }

  /**
   * Reset handling (op-node `SafeHeadReset`): from the new safe head's L1 origin upward, find the first entry
   * whose safe L2 number ≥ `newSafe.number`; delete it and everything after it; if an earlier entry exists,
   * re-record the new safe head under the first deleted entry's key. A reset to the L2 genesis block records
   * (L1 block 0 → genesis); `l1Block0` supplies L1 block 0's id for that case.
   */
  safeHeadReset(newSafe: L2BlockRef, opts: { isL2Genesis?: boolean; l1Block0?: BlockId } = {}): Promise<void> {
    return this.destructive(async (entries) => {
      if (opts.isL2Genesis === true && opts.l1Block0 !== undefined) {
        const all = await this.db.keys({ gte: encodeSafeDbKey(0), lte: MAX_KEY }).all();
        await this.db.batch(
          [
            ...all.map((key) => ({ type: "del" as const, key })),
            { type: "put" as const, key: encodeSafeDbKey(0), value: encodeSafeDbValue(opts.l1Block0.hash, newSafe) },
          ],
          { sync: true },
        );
        return 1;
      }
      let first: SafeHeadEntry | undefined;
      for await (const [k, v] of this.db.iterator({ gte: encodeSafeDbKey(newSafe.l1origin.number), lte: MAX_KEY })) {
        const e = decodeSafeDbEntry(k, v);
        if (e.safeHead.number >= newSafe.number) {
          first = e;
          break;
        }
      }
      if (first === undefined) return entries;
      const doomed = await this.db.keys({ gte: encodeSafeDbKey(first.l1Block.number), lte: MAX_KEY }).all();
      const earlier = await this.db
        .keys({ lt: encodeSafeDbKey(first.l1Block.number), gte: encodeSafeDbKey(0), limit: 1 })
        .all();
      const ops: Array<{ type: "del"; key: Uint8Array } | { type: "put"; key: Uint8Array; value: Uint8Array }> =
        doomed.map((key) => ({ type: "del" as const, key }));
      if (earlier.length > 0) {
        ops.push({
          type: "put",
          key: encodeSafeDbKey(first.l1Block.number),
          value: encodeSafeDbValue(first.l1Block.hash, newSafe),
        });
      }
      await this.db.batch(ops, { sync: true });
      this.logger.info({ from: first.l1Block.number, safe: newSafe.number }, "SafeDB truncated on reset");
      return entries - doomed.length + (earlier.length > 0 ? 1 : 0);
    });
  }

  /** Deletes everything (EL sync start: safe then advances without derivation). */
  clear(): Promise<void> {
    return this.destructive(async () => {
      await this.db.clear();
      return 0;
    });
  }

  close(): Promise<void> {
    return this.guard.close();
  }

  /**
   * A write that may remove entries (`fn` returns how many remain): the marker claims nothing while it runs (a
   * kill in between cannot make a truncation look like lost records), then the new highest entry and count.
   */
  private destructive(fn: (entries: number) => Promise<number>): Promise<void> {
    return this.write(async () => {
      await writeAckMarker(this.dir, null);
      this.lastPut = undefined;
      const entries = await fn(this.entryCount);
      let highest: number | null = null;
      for await (const k of this.db.keys({ gte: encodeSafeDbKey(0), lte: MAX_KEY, reverse: true, limit: 1 }))
        highest = decodeSafeDbKey(k);
      await writeAckMarker(this.dir, highest === null ? null : { highestL1: highest, entries });
      this.highestL1 = highest;
      this.entryCount = entries;
    });
  }

  /** Serialised writes; a failed one reopens and verifies the store before the next (`guarded-level.ts`). */
  private write(fn: () => Promise<void>): Promise<void> {
    return this.guard.write(fn);
  }

  private read<T>(fn: () => Promise<T>): Promise<T> {
    return this.guard.read(fn);
  }
}
