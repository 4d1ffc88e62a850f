import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Level } from "level";
import { CriticalError } from "../../core/errors/supernode-error.js";

/** Held while a supernode runs on a data dir (see `lockDataDir`). */
export interface DataDirLock {
  release(): Promise<void>;
}

/**
 * Takes the data dir for this process: a second supernode on the same `--data-dir` would share every store and
 * announce the same P2P identity, so it must not start. The lock is LevelDB's own (an fcntl lock on
 * `<data-dir>/instance.lock/LOCK`): the operating system drops it when the process ends, however it ends, so a
 * `kill -9` leaves no stale lock behind. Rejects with the critical `DATA_DIR_LOCKED` when another process holds it.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const dir = join(dataDir, "instance.lock");
  await mkdir(dataDir, { recursive: true });
  const db = new Level<string, string>(dir, { createIfMissing: true });
  try {
    await db.open();
  } catch (err) {
    const code =
      (err as { code?: unknown; cause?: { code?: unknown } }).cause?.code ?? (err as { code?: unknown }).code;
    if (code === "LEVEL_LOCKED")
      throw new CriticalError(
        "DATA_DIR_LOCKED",
        `data dir ${dataDir} is in use by another supernode (it holds ${join(dir, "LOCK")}); stop that one or ` +
          "choose another --data-dir",
        { dataDir },
        err,
      );
    throw err;
  }
  return { release: () => db.close() };
}
