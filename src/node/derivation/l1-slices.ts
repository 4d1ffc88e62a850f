/**
 * A chain's slice of shared L1 data: the transactions sent to its batch inbox and the logs of its own L1
 * contracts. With the shared L1 client (`txsTo` / `receiptsOf`) the block is decoded and indexed once for every
 * chain; with a plain L1 source (tests, tools) the chain indexes the block itself.
 */
import type { Address, Hash } from "../../core/types/primitives.js";
import type { Receipt } from "../../protocol/block/receipt.js";
import { L1LogIndex, type L1TxEntry, L1TxIndex } from "../../protocol/l1/l1-block-index.js";
import type { L1BlockInfo, L1Source } from "../ports.js";

export async function txsTo(l1: L1Source, hash: Hash, to: Address): Promise<readonly L1TxEntry[]> {
  if (l1.txsTo !== undefined) return l1.txsTo(hash, to);
  const { txs } = await l1.infoAndTxsByHash(hash);
  return new L1TxIndex(txs).txsTo(to);
}

/** The block's successful receipts reduced to the logs of each address in `addresses` (same order). */
export async function receiptsOf(
  l1: L1Source,
  hash: Hash,
  addresses: readonly Address[],
): Promise<{ info: L1BlockInfo; receipts: (readonly Receipt[])[] }> {
  if (l1.receiptsOf !== undefined) {
    const get = l1.receiptsOf.bind(l1);
    const parts = await Promise.all(addresses.map((a) => get(hash, a)));
    const info = parts[0]?.info ?? (await l1.infoByHash(hash));
    return { info, receipts: parts.map((p) => p.receipts) };
  }
  const r = await l1.fetchReceipts(hash);
  const index = new L1LogIndex(r.receipts);
  return { info: r.info, receipts: addresses.map((a) => index.receiptsOf(a)) };
}
