/**
 * On-disk chain store of the simulated execution client: an append-only journal (`<datadir>/chain.jsonl`) of the
 * Engine API calls that changed the chain (every `engine_newPayload*` answered VALID, every `engine_forkchoiceUpdated*`
 * answered VALID, without its payload attributes). On start the journal is replayed through the same handlers, so
 * a client killed with `kill -9` comes back with its blocks and fork-choice labels; deleting the datadir restarts it
 * wiped. The first line names the genesis hash; a journal of another genesis is refused. A torn last line (killed
 * mid-write) is ignored.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Hash } from "supernode/core";
import type { RpcHandler } from "./json-rpc.js";

interface JournalEntry {
  readonly m: string;
  readonly p: readonly unknown[];
}

function isValidStatus(method: string, result: unknown): boolean {
  const r = result as { status?: unknown; payloadStatus?: { status?: unknown } } | null;
  if (method.startsWith("engine_newPayload")) return r?.status === "VALID";
  if (method.startsWith("engine_forkchoiceUpdated")) return r?.payloadStatus?.status === "VALID";
  return false;
}

export class ElChainStore {
  readonly path: string;
  #replaying = false;

  constructor(
    datadir: string,
    private readonly genesisHash: Hash,
  ) {
    mkdirSync(datadir, { recursive: true });
    this.path = join(datadir, "chain.jsonl");
  }

  /**
   * Wraps the engine methods so that chain-changing calls are journaled, then replays the journal through them.
   * Returns the number of calls replayed.
   */
  async attach(methods: Map<string, RpcHandler>): Promise<number> {
    for (const [name, h] of methods) {
      if (!name.startsWith("engine_newPayload") && !name.startsWith("engine_forkchoiceUpdated")) continue;
      methods.set(name, async (ps) => {
        const result = await h(ps);
        if (!this.#replaying && isValidStatus(name, result)) {
          const p = name.startsWith("engine_forkchoiceUpdated") ? [ps[0]] : ps;
          appendFileSync(this.path, `${JSON.stringify({ m: name, p })}\n`);
        }
        return result;
      });
    }
    if (!existsSync(this.path)) {
      writeFileSync(this.path, `${JSON.stringify({ genesis: this.genesisHash })}\n`);
      return 0;
    }
    const lines = readFileSync(this.path, "utf8").split("\n");
    const head = JSON.parse(lines[0] ?? "{}") as { genesis?: string };
    if (head.genesis !== this.genesisHash)
      throw new Error(`chain store ${this.path} belongs to genesis ${head.genesis}, not ${this.genesisHash}`);
    let replayed = 0;
    this.#replaying = true;
    try {
      for (const line of lines.slice(1)) {
        if (line.trim() === "") continue;
        let e: JournalEntry;
        try {
          e = JSON.parse(line) as JournalEntry;
        } catch {
          break; // a torn last line
        }
        const h = methods.get(e.m);
        if (h === undefined) continue;
        try {
          await h(e.p);
          replayed++;
        } catch {
          // a call that no longer applies (e.g. a forkchoice state whose blocks were never journaled) is skipped
        }
      }
    } finally {
      this.#replaying = false;
    }
    return replayed;
  }
}
