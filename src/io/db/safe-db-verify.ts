import { constants } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Level } from "level";
import { CriticalError } from "../../core/errors/supernode-error.js";

/** The command that moves a damaged store aside (docs/running.md, "SafeDB damage"). */
export const SAFEDB_RESET_HINT = "stop the supernode, run `supernode db reset --data-dir <dir> --chain <id>`, start it";

/**
 * The store's acknowledgement marker: the highest L1 block number and the number of entries the SafeDB held after
 * its last acknowledged write, in a small file beside LevelDB's own (`<safedb>/ACKED`, overwritten in place). LevelDB drops a damaged tail of its log at open with only a line in its own
 * `LOG` ("ignoring error … dropping N bytes"); the marker lets a restart (and `db check`) see that acknowledged
 * records went with it (docs/running.md, "SafeDB damage"). `null` claims nothing (an empty store, or a
 * truncation in progress).
 */
export const ACK_MARKER_FILE = "ACKED";
/** Wide enough for `{"highestL1":<any safe integer>,"entries":<any safe integer>}`. */
const MARKER_WIDTH = 72;

export interface AckMarker {
  readonly highestL1: number;
  readonly entries: number;
}

export async function readAckMarker(dir: string): Promise<AckMarker | null> {
  let text: string;
  try {
    text = await readFile(join(dir, ACK_MARKER_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  try {
    const v = JSON.parse(text) as { highestL1?: unknown; entries?: unknown };
    return Number.isSafeInteger(v.highestL1) && Number.isSafeInteger(v.entries)
      ? { highestL1: v.highestL1 as number, entries: v.entries as number }
      : null;
  } catch {
    return null; // a marker torn by a power loss claims nothing
  }
}

/**
 * Overwrites the marker in place with a fixed-width record (one small write, no truncation and no rename, which
 * would make the filesystem flush it). Not fsynced: the records it vouches for are (synchronous LevelDB writes);
 * after a power loss it may lag behind them (it then claims less) or be torn (it then claims nothing), never run
 * ahead. Renamed and fsynced, it cost 2–4× a SafeDB write on this machine.
 */
export async function writeAckMarker(dir: string, marker: AckMarker | null): Promise<void> {
  const fh = await open(join(dir, ACK_MARKER_FILE), constants.O_WRONLY | constants.O_CREAT);
  try {
    await fh.write(JSON.stringify(marker ?? {}).padEnd(MARKER_WIDTH, " "), 0, "utf8");
  } finally {
    await fh.close();
  }
}

/** What a full read of the store found. */
export interface SafeDbScan {
  readonly entries: number;
  /** The highest L1 block number recorded, or null when the store is empty. */
  readonly highestL1: number | null;
}

/**
 * Reads and decodes every entry (a damaged table fails here, not later on the RPC read that happens to touch it)
 * and compares the highest one with the acknowledgement marker: fewer than acknowledged is the critical
 * `SAFEDB_CORRUPT` naming the lost range. `decode` throws on a malformed entry.
 */
export async function scanSafeDb(
  db: Level<Uint8Array, Uint8Array>,
  dir: string,
  decodeKey: (k: Uint8Array, v: Uint8Array) => number,
): Promise<SafeDbScan> {
  let entries = 0;
  let highestL1: number | null = null;
  for await (const [k, v] of db.iterator()) {
    highestL1 = decodeKey(k, v);
    entries++;
  }
  const acked = await readAckMarker(dir);
  if (acked !== null && (highestL1 === null || highestL1 < acked.highestL1 || entries < acked.entries)) {
    throw new CriticalError(
      "SAFEDB_CORRUPT",
      `SafeDB at ${dir} lost acknowledged records: it holds ${entries} entries up to L1 block ${highestL1 ?? "none"} ` +
        `but had acknowledged ${acked.entries} up to L1 block ${acked.highestL1} (LevelDB dropped a damaged part ` +
        `of its log at open, see its LOG file); ${SAFEDB_RESET_HINT}`,
      { dir, highestL1, acked },
    );
  }
  return { entries, highestL1 };
}
