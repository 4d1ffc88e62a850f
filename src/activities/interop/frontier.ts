import type { Hash } from "../../core/types/primitives.js";
import { blockLogs, type StoredLog, txIndexOfLog } from "../../protocol/interop/messages.js";
import type { SealedBlock } from "../../protocol/interop/types.js";
import type { InteropChain } from "./ports.js";

/** A frontier block's logs (and which transaction emitted each), read from its chain's execution client. */
export interface Frontier {
  readonly block: SealedBlock;
  readonly logs: StoredLog[];
  readonly txIndexOfLog?: (logIndex: number) => number | undefined;
}

/**
 * The logs of the blocks a round verifies, read once from each chain's execution client and kept until the block
 * is no longer at the frontier, so that applying the advance reuses what verifying read.
 */
export class FrontierCache {
  private readonly byHash = new Map<Hash, Frontier>();

  constructor(private readonly byId: ReadonlyMap<string, InteropChain>) {}

  /** The logs of chain `id`'s block `hash` (read from its EL unless cached). */
  async get(id: string, hash: Hash): Promise<Frontier> {
    const cached = this.byHash.get(hash);
    if (cached !== undefined) return cached;
    const src = await (this.byId.get(id) as InteropChain).blockLogs(hash);
    if (src === undefined) throw new Error(`chain ${id}: block ${hash} is unknown to its execution client`);
    const receipts = src.receipts;
    const f = { block: src.block, logs: blockLogs(receipts), txIndexOfLog: (i: number) => txIndexOfLog(receipts, i) };
    this.byHash.set(hash, f);
    return f;
  }

  /** Forgets every block but `keep`. */
  retain(keep: ReadonlySet<Hash>): void {
    for (const h of [...this.byHash.keys()]) if (!keep.has(h)) this.byHash.delete(h);
  }

  clear(): void {
    this.byHash.clear();
  }
}
