import { TemporaryError } from "../../core/errors/supernode-error.js";
import type { ChainId } from "../../core/types/primitives.js";
import { blockLogs } from "../../protocol/interop/messages.js";
import type { InitiatingLog } from "../../protocol/interop/rules.js";
import type { InteropChain, LogsStorePort } from "./ports.js";

/** Blocks read from an execution client for references before the logs stores (kept for repeated references). */
const CACHED_BLOCKS = 256;

/**
 * Finds an initiating log for the message checks: in the source chain's logs store, or — for a block before what
 * that store holds (older than the cold start and its backfill) — in the block itself, read from the source chain's
 * execution client. That history is not verified by this node, as the backfilled logs are not; reading it on demand
 * means a node started without (or with too short) a backfill still judges such messages instead of rejecting
 * valid ones. A block the execution client cannot serve there is a temporary error (the round is retried).
 */
export class InitiatingLookup {
  private readonly cache = new Map<string, { logs: readonly { hash: `0x${string}` }[]; timestamp: number }>();

  constructor(
    private readonly chains: ReadonlyMap<string, InteropChain>,
    private readonly logs: ReadonlyMap<string, LogsStorePort>,
  ) {}

  /**
   * The log at (block, index) of chain `chainId`, for a round verifying timestamp `ts`. Old means below both the
   * store's first block (every block when the store is empty) and the chain's block at `ts`, so a reference to a
   * block the chain does not have yet never goes to its execution client.
   */
  async find(chainId: ChainId, blockNumber: number, logIndex: number, ts: number): Promise<InitiatingLog | undefined> {
    const id = chainId.toString(10);
    const store = this.logs.get(id);
    const chain = this.chains.get(id);
    if (store === undefined || chain === undefined) return undefined;
    const frontier = chain.numberAt(Math.max(ts, chain.genesisTime));
    const floor = Math.min(store.first()?.number ?? frontier, frontier);
    if (blockNumber >= floor || blockNumber < chain.numberAt(chain.genesisTime))
      return store.findLog(blockNumber, logIndex);
    const key = `${id}:${blockNumber}`;
    let b = this.cache.get(key);
    if (b === undefined) {
      const src = await chain.blockLogsAt(blockNumber);
      if (src === undefined)
        throw new TemporaryError(
          "INTEROP_OLD_BLOCK",
          `chain ${id}: block ${blockNumber} (an initiating message before the ingested logs) is not available from its execution client`,
        );
      b = { logs: blockLogs(src.receipts), timestamp: src.block.timestamp };
      this.cache.set(key, b);
      if (this.cache.size > CACHED_BLOCKS) this.cache.delete(this.cache.keys().next().value as string);
    }
    const l = b.logs[logIndex];
    return l === undefined ? undefined : { logHash: l.hash, blockTimestamp: b.timestamp };
  }
}
