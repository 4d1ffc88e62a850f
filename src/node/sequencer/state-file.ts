/**
 * Sequencer state persisted as `{"sequencerStarted": true|false}` in a small JSON file, written atomically
 * (`<file>.tmp` + fsync + rename), as op-node's `--rpc.admin-state` does.
 */
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import type { SequencerStateStore } from "../ports.js";

export function fileSequencerStateStore(path: string): SequencerStateStore {
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw err;
      }
      const parsed = JSON.parse(text) as { sequencerStarted?: unknown };
      return typeof parsed.sequencerStarted === "boolean" ? parsed.sequencerStarted : undefined;
    },
    async save(started) {
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.tmp`;
      const fh = await open(tmp, "w", 0o600);
      try {
        await fh.writeFile(`${JSON.stringify({ sequencerStarted: started })}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, path);
    },
  };
}

/** An in-memory store (tests, or when no data dir is configured). */
export function memorySequencerStateStore(initial?: boolean): SequencerStateStore & { value: boolean | undefined } {
  const store = {
    value: initial,
    async load() {
      return store.value;
    },
    async save(started: boolean) {
      store.value = started;
    },
  };
  return store;
}
