/**
 * What the LevelDB stores (SafeDB, deny list, interop stores) share about failed writes: the classification of a
 * storage error by what it means for the chain, and the rule that a store whose write failed is closed, opened
 * again and verified before it acknowledges anything else.
 *
 * Why: a write that fails (a full disk, an I/O error) may leave a torn record at the end of LevelDB's log, and
 * LevelDB goes on appending after it; at the next open everything behind the tear would be dropped, silently. Opening
 * the store again moves the log's good records into a table and starts a new log, so what is acknowledged after the
 * failure survives a restart; the store's own `verify` then checks that it still holds what it acknowledged before.
 */
import { SerialQueue } from "../../core/async/serial-queue.js";
import { CriticalError, SupernodeError, TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";

/** How a store names itself in its error codes and messages. */
export interface StoreNaming {
  /** Error code prefix (`SAFEDB` → `SAFEDB_CORRUPT`, `SAFEDB_WRITE`, …). */
  readonly code: string;
  /** Its name in messages (`SafeDB`, `deny list`, `interop store`). */
  readonly what: string;
  /** What the operator does about a damaged store. */
  readonly resetHint: string;
}

export type StoreOp = "open" | "read" | "write";

/** LevelDB error codes and messages of `err` and its causes. */
function levelTexts(err: unknown): string[] {
  const out: string[] = [];
  for (let e = err, i = 0; e instanceof Error && i < 5; e = (e as Error & { cause?: unknown }).cause, i++) {
    const code = (e as Error & { code?: unknown }).code;
    if (typeof code === "string") out.push(code);
    out.push(e.message);
  }
  return out;
}

/**
 * Storage errors by what they mean for the chain: a damaged store — LevelDB `Corruption`, a missing or truncated
 * file of the store (MANIFEST, CURRENT, a table) — is critical (`<code>_CORRUPT`, naming the path: retrying cannot
 * fix it); another process holding the store at open is `<code>_LOCKED`; anything else (a full disk, a transient I/O
 * error) is temporary (`<code>_OPEN|READ|WRITE`).
 */
export function classifyStoreError(err: unknown, dir: string, op: StoreOp, n: StoreNaming): SupernodeError {
  const corruptCode = `${n.code}_CORRUPT`;
  if (err instanceof SupernodeError && err.severity === "critical") {
    if (err.code === corruptCode && !err.message.includes(dir))
      return new CriticalError(
        corruptCode,
        `${n.what} at ${dir} is corrupted (${err.message}); ${n.resetHint}`,
        { dir },
        err,
      );
    return err;
  }
  const texts = levelTexts(err);
  const corrupt =
    texts.some((t) => t === "LEVEL_CORRUPTION" || /\bCorruption\b/.test(t)) ||
    texts.some((t) => /IO error: .*(MANIFEST|CURRENT|\.ldb|\.sst|\.log)\S*: (No such file|Invalid argument)/.test(t));
  const detail = texts.filter((t) => !t.startsWith("LEVEL_") && t !== "Database failed to open").join("; ");
  if (corrupt)
    return new CriticalError(
      corruptCode,
      `${n.what} at ${dir} is corrupted or incomplete (${detail}); ${n.resetHint}`,
      { dir },
      err,
    );
  if (op === "open" && texts.some((t) => /LOCK|already held|Resource temporarily unavailable/.test(t)))
    return new TemporaryError(
      `${n.code}_LOCKED`,
      `${n.what} at ${dir} is in use by another process (${detail})`,
      { dir },
      err,
    );
  return new TemporaryError(
    `${n.code}_${op.toUpperCase()}`,
    `${n.what} ${op} failed at ${dir}: ${detail}`,
    { dir },
    err,
  );
}

/** The LevelDB handle as the guard uses it (a `Level`). */
export interface Reopenable {
  readonly status: string;
  open(): Promise<void>;
  close(): Promise<void>;
}

export interface GuardedLevelOptions {
  readonly db: Reopenable;
  readonly dir: string;
  readonly naming: StoreNaming;
  readonly logger: Logger;
  /**
   * Runs after every open: reads what the store keeps in memory and checks that it still holds what it acknowledged
   * (throws the critical `<code>_CORRUPT` when not). `afterFailedWrite` is true on a reopen after a failed write.
   */
  readonly verify: (afterFailedWrite: boolean) => Promise<void>;
  /** The error of an operation on a closed store. */
  readonly closedError: () => Error;
}

/**
 * One store's LevelDB handle with the failed-write rule: writes run one at a time; a failed one is classified, logged
 * once per failing spell (WARN), and makes the next write close, open and verify the store first; the first write
 * that succeeds after it logs the recovery (WARN `<what> reopened after a failed write`). While a spell lasts,
 * `fault()` names its error (the chain's health reads it).
 */
export class GuardedLevel {
  private readonly queue = new SerialQueue();
  private closed = false;
  /** The open in progress (or done); undefined before the first operation after a failed open (tried again). */
  private opening: Promise<void> | undefined;
  private reopenDue = false;
  private failing: SupernodeError | undefined;

  constructor(private readonly o: GuardedLevelOptions) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** The error of the last failed write while no write has succeeded since; undefined when healthy. */
  fault(): SupernodeError | undefined {
    return this.failing;
  }

  /** Resolves once the store is open and verified (starting the open if a previous one failed). */
  opened(): Promise<void> {
    this.opening ??= this.openAndVerify().catch((err: unknown) => {
      this.opening = undefined;
      throw this.classify(err, "open");
    });
    return this.opening;
  }

  private async openAndVerify(): Promise<void> {
    const db = this.o.db;
    if (db.status === "open") await db.close();
    await db.open();
    try {
      await this.o.verify(this.reopenDue);
    } catch (err) {
      await db.close().catch(() => {}); // release LevelDB's lock: a maintenance command can look at it
      throw err;
    }
    this.reopenDue = false;
  }

  /** Runs `fn` after the open (again after a failed write), one write at a time; see the class comment. */
  write<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw this.o.closedError();
    return this.queue.run(async () => {
      if (this.reopenDue) this.opening = undefined; // close and open again (openAndVerify)
      try {
        await this.opened();
      } catch (err) {
        this.fail(err as SupernodeError);
        throw err;
      }
      let out: T;
      try {
        out = await fn();
      } catch (err) {
        // a refusal the store decided itself (a conflict, a gap) wrote nothing: only a storage error needs a reopen
        if (err instanceof SupernodeError && !err.code.startsWith(`${this.o.naming.code}_`)) throw err;
        const e = this.classify(err, "write");
        this.reopenDue = true;
        this.fail(e);
        throw e;
      }
      if (this.failing !== undefined) {
        this.failing = undefined;
        this.o.logger.warn({ dir: this.o.dir }, `${this.o.naming.what} reopened after a failed write`);
      }
      return out;
    });
  }

  /** Runs `fn` once the store is open; its errors are classified. */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw this.o.closedError();
    await this.opened();
    try {
      return await fn();
    } catch (err) {
      throw this.classify(err, "read");
    }
  }

  /** Waits for the writes queued so far and closes the store (once). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.run(async () => undefined);
    await this.opening?.catch(() => {});
    await this.o.db.close();
  }

  private fail(e: SupernodeError): void {
    if (this.failing === undefined)
      this.o.logger.warn(
        { dir: this.o.dir, err: e.message, code: e.code, severity: e.severity },
        `${this.o.naming.what} write failed; it is opened again and verified before the next write`,
      );
    this.failing = e;
  }

  private classify(err: unknown, op: StoreOp): SupernodeError {
    return classifyStoreError(err, this.o.dir, op, this.o.naming);
  }
}
