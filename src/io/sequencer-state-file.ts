/**
 * The sequencer's admin state persisted as `{"sequencerStarted": bool, "sdmPostExecOptIn": bool}` (each field only
 * once set) in a small JSON file, written atomically (`<file>.tmp` + fsync + rename) and merged, so one update
 * never erases the other, as op-node's `--rpc.admin-state` does.
 */
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";

interface Persisted {
  sequencerStarted?: boolean;
  sdmPostExecOptIn?: boolean;
}

/** What the node's `SequencerStateStore` port (node/ports.ts) asks for. */
export interface SequencerStateFile {
  load(): Promise<boolean | undefined>;
  save(started: boolean): Promise<void>;
  loadSdmOptIn(): Promise<boolean | undefined>;
  saveSdmOptIn(on: boolean): Promise<void>;
}

export function fileSequencerStateStore(path: string): SequencerStateFile {
  const read = async (): Promise<Persisted> => {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw err;
    }
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const out: Persisted = {};
    if (typeof parsed.sequencerStarted === "boolean") out.sequencerStarted = parsed.sequencerStarted;
    if (typeof parsed.sdmPostExecOptIn === "boolean") out.sdmPostExecOptIn = parsed.sdmPostExecOptIn;
    return out;
  };
  const write = async (state: Persisted): Promise<void> => {
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.tmp`;
    const fh = await open(tmp, "w", 0o600);
    try {
      await fh.writeFile(`${JSON.stringify(state)}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  };
  // Updates run one at a time (each reads, merges and replaces the file).
  let queue: Promise<unknown> = Promise.resolve();
  const update = (patch: Persisted): Promise<void> => {
    const next = queue.then(async () => write({ ...(await read()), ...patch }));
    queue = next.catch(() => {});
    return next;
  };
  return {
    load: async () => (await read()).sequencerStarted,
    save: (started) => update({ sequencerStarted: started }),
    loadSdmOptIn: async () => (await read()).sdmPostExecOptIn,
    saveSdmOptIn: (on) => update({ sdmPostExecOptIn: on }),
  };
}
