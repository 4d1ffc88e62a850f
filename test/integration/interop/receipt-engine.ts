/** A FakeEngine whose receipts carry the logs a test assigns to transactions (one receipt per transaction). */
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import type { Log, Receipt } from "../../../src/protocol/block/receipt.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { FakeEngine } from "../../unit/node/fakes.js";

export class ReceiptEngine extends FakeEngine {
  constructor(
    cfg: RollupConfig,
    readonly logsOf: Map<Hex, Log[]>,
  ) {
    super(cfg);
  }
  async blockReceipts(hash: Hash): Promise<Receipt[] | undefined> {
    const env = this.byHash.get(hash);
    if (env === undefined) return undefined;
    return env.executionPayload.transactions.map((t) => ({
      type: 2,
      status: 1 as const,
      cumulativeGasUsed: 0n,
      logs: this.logsOf.get(t) ?? [],
    }));
  }
}
