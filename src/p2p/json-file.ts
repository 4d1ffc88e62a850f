/**
 * Small JSON files of a chain's P2P state (`chain-<id>/p2p/*.json`): read when present, written atomically
 * (temporary file + rename) and one write at a time.
 */
import { readFile, rename, writeFile } from "node:fs/promises";

export class JsonFile<T> {
  private saving: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  /** The stored value, or undefined when the file does not exist. A corrupt file is an error. */
  async read(): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(this.path, "utf8")) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  /** Writes `value` after any write in progress. */
  write(value: T): Promise<void> {
    const text = JSON.stringify(value);
    this.saving = this.saving
      .catch(() => undefined)
      .then(async () => {
        await writeFile(`${this.path}.tmp`, text, { mode: 0o600 });
        await rename(`${this.path}.tmp`, this.path);
      });
    return this.saving;
  }
}
