/**
 * The libp2p peer store of one chain, persisted: libp2p keeps it in a `MemoryDatastore` that is loaded from
 * `chain-<id>/p2p/peerstore.json` at start and written back every few minutes (when it changed) and at stop.
 * (op-node keeps its peerstore in LevelDB; a JSON snapshot keeps 16+ chains from opening 16+ LevelDB instances.)
 */
import { MemoryDatastore } from "datastore-core";
import { Key } from "interface-datastore";
import { JsonFile } from "./json-file.js";

interface Persisted {
  readonly version: 1;
  /** Datastore key → base64 value (libp2p's protobuf peer records). */
  readonly entries: Record<string, string>;
}

export class PersistedDatastore {
  readonly datastore = new MemoryDatastore();
  private last = "";

  private constructor(private readonly file: JsonFile<Persisted> | undefined) {}

  /** `path` undefined keeps the store in memory only (`p2p.peerstore.path=memory`). */
  static async open(path: string | undefined): Promise<PersistedDatastore> {
    const s = new PersistedDatastore(path === undefined ? undefined : new JsonFile<Persisted>(path));
    const p = await s.file?.read();
    for (const [k, v] of Object.entries(p?.entries ?? {})) await s.datastore.put(new Key(k), Buffer.from(v, "base64"));
    s.last = JSON.stringify(p?.entries ?? {});
    return s;
  }

  /** Writes the snapshot when it changed since the last write; returns the number of entries. */
  async save(): Promise<number> {
    const entries: Record<string, string> = {};
    for await (const { key, value } of this.datastore.query({}))
      entries[key.toString()] = Buffer.from(value).toString("base64");
    const text = JSON.stringify(entries);
    if (this.file !== undefined && text !== this.last) {
      await this.file.write({ version: 1, entries });
      this.last = text;
    }
    return Object.keys(entries).length;
  }
}
