import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { Level } from "level";
import type { Clock } from "../../core/time/clock.js";
import { classifyDbError, decodeSafeDbEntry } from "./safe-db.js";

/** `<data-dir>/chain-<id>/safedb` (the layout of docs/running.md). */
export function safeDbPathOf(dataDir: string, chainId: bigint): string {
  return join(dataDir, `chain-${chainId.toString(10)}`, "safedb");
}

export type SafeDbCheck =
  | { readonly status: "ok"; readonly entries: number }
  | { readonly status: "missing" }
  | { readonly status: "damaged"; readonly reason: string };

/** Opens the store read-only in spirit (no writes), reads and decodes every entry. */
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
    return { status: "damaged", reason: classifyDbError(err, dir, "open").message };
  }
  try {
    let n = 0;
    for await (const [k, v] of db.iterator()) {
      decodeSafeDbEntry(k, v);
      n++;
    }
    return { status: "ok", entries: n };
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
