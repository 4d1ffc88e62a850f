/**
 * Sequencer state persisted as `{"sequencerStarted": true|false}` in a small JSON file, written atomically
 * (`<file>.tmp` + fsync + rename), as op-node's `--rpc.admin-state` does.
 */
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";

/** What the node's `SequencerStateStore` port (node/ports.ts) asks for. */
export interface SequencerStateFile {
  load(): Promise<boolean | undefined>;
  save(started: boolean): Promise<void>;
}

export function fileSequencerStateStore(path: string): SequencerStateFile {
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
