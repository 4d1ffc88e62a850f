import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { Level } from "level";
import type { Clock } from "../../core/time/clock.js";
import { classifyDbError, decodeSafeDbEntry } from "./safe-db.js";
import { scanSafeDb } from "./safe-db-verify.js";

/** `<data-dir>/chain-<id>/safedb` (the layout of docs/running.md). */
export function safeDbPathOf(dataDir: string, chainId: bigint): string {
  return join(dataDir, `chain-${chainId.toString(10)}`, "safedb");
}

export type SafeDbCheck =
  | { readonly status: "ok"; readonly entries: number }
  | { readonly status: "missing" }
  /** A running supernode holds LevelDB's lock: nothing can be said about the store while it does. */
  | { readonly status: "locked"; readonly reason: string }
  | { readonly status: "damaged"; readonly reason: string };

/**
 * Opens the store read-only in spirit (no writes), reads and decodes every entry and checks that it still holds
 * what it acknowledged (the marker of `safe-db-verify.ts`).
 */
export async function checkSafeDb(dir: string): Promise<SafeDbCheck> {
  if (!existsSync(dir)) return { status: "missing" };
  const db = new Level<Uint8Array, Uint8Array>(dir, {
    keyEncoding: "view",
    valueEncoding: "view",
    createIfMissing: false,
  });
  try {
    await db.open();
  } catch (err) {
    const e = classifyDbError(err, dir, "open");
    return e.code === "SAFEDB_LOCKED"
      ? { status: "locked", reason: e.message }
      : { status: "damaged", reason: e.message };
  }
  try {
    const scan = await scanSafeDb(db, dir, (k, v) => decodeSafeDbEntry(k, v).l1Block.number);
    return { status: "ok", entries: scan.entries };
  } catch (err) {
    return { status: "damaged", reason: classifyDbError(err, dir, "read").message };
  } finally {
    await db.close().catch(() => {});
  }
}

/**
 * Moves the store aside to `<dir>.damaged-<UTC timestamp>` (kept for inspection, never deleted), so the next start
 * creates an empty one and fills it again as the chain derives from L1. Undefined when there is nothing to move.
 * The supernode must not be running (LevelDB holds a lock on the directory while it is).
 */
export async function moveSafeDbAside(dir: string, clock: Clock): Promise<string | undefined> {
  if (!existsSync(dir)) return undefined;
  const stamp = new Date(clock.nowMs())
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  let target = `${dir}.damaged-${stamp}`;
  for (let i = 1; existsSync(target); i++) target = `${dir}.damaged-${stamp}-${i}`;
  await rename(dir, target);
  return target;
}
