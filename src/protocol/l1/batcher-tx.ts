import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash } from "../../core/types/primitives.js";
import type { L1TxEntry } from "./l1-block-index.js";
import { decodeSignedTx, type SignedTxInfo, txSender } from "./signed-tx.js";

/** One data item of an L1 block for derivation: batcher calldata, or a blob still to be fetched. */
export type BatcherDataItem =
  | { readonly kind: "calldata"; readonly txIndex: number; readonly data: Uint8Array }
  | { readonly kind: "blob"; readonly txIndex: number; readonly blobIndex: number; readonly versionedHash: Hash };

export interface BatcherSelection {
  readonly batchInbox: Address;
  /** The authorised batcher (SystemConfig `batcherAddr` at this L1 block). */
  readonly batcherAddr: Address;
  readonly l1ChainId: bigint;
  /** Blob data source (L1 block time ≥ ecotone_time): type-3 txs yield their blob hashes. */
  readonly blobs: boolean;
}

/** Transaction types a batcher may use: legacy, access-list, dynamic-fee, blob, deposit (L3). */
const ALLOWED_TYPES: ReadonlySet<number> = new Set([0, 1, 2, 3, 0x7e]);

/**
 * Why a transaction is not a valid batcher transaction, or null when it is one. `senderOf` is only called for a
 * transaction that passes every cheaper check (recovery is the expensive part).
 */
export function batcherTxRejection(
  tx: SignedTxInfo,
  sel: BatcherSelection,
  senderOf: (tx: SignedTxInfo) => Address | null = txSender,
): string | null {
  if (!ALLOWED_TYPES.has(tx.type)) return `unsupported tx type ${tx.type}`;
  if (tx.to === null || tx.to.toLowerCase() !== sel.batchInbox.toLowerCase()) return "not sent to the batch inbox";
  if (tx.chainId !== undefined && tx.type !== 0x7e && tx.chainId !== sel.l1ChainId) return "wrong chain id";
  const sender = senderOf(tx);
  if (sender === null) return "invalid signature";
  if (sender.toLowerCase() !== sel.batcherAddr.toLowerCase()) return "not sent by the authorised batcher";
  return null;
}

/**
 * Selects the batcher data of an L1 block's transactions (EIP-2718 bytes, in block order). Calldata
 * source: the calldata of each valid batcher tx. Blob source: non-blob txs give their calldata, blob txs
 * one item per blob hash (calldata ignored). Malformed or invalid transactions are skipped.
 */
export function selectBatcherData(txs: readonly Uint8Array[], sel: BatcherSelection): BatcherDataItem[] {
  const out: BatcherDataItem[] = [];
  const inbox = sel.batchInbox.toLowerCase();
  txs.forEach((raw, txIndex) => {
    let tx: SignedTxInfo;
    try {
      // Sender recovery (the expensive part) only happens for txs sent to the inbox.
      tx = decodeSignedTx(raw);
    } catch (e) {
      if (e instanceof DecodeError) return;
      throw e;
    }
    if (tx.to === null || tx.to.toLowerCase() !== inbox) return;
    if (batcherTxRejection(tx, sel) !== null) return;
    pushItems(out, txIndex, tx, sel);
  });
  return out;
}

function pushItems(out: BatcherDataItem[], txIndex: number, tx: SignedTxInfo, sel: BatcherSelection): void {
  if (sel.blobs && tx.type === 3) {
    tx.blobVersionedHashes.forEach((versionedHash, blobIndex) => {
      out.push({ kind: "blob", txIndex, blobIndex, versionedHash });
    });
  } else {
    out.push({ kind: "calldata", txIndex, data: tx.data });
  }
}

/**
 * {@link selectBatcherData} over a shared index's entries for the inbox (`L1TxIndex.txsTo(batchInbox)`): the
 * same items, but each transaction is decoded and its sender recovered at most once for all chains.
 */
export function selectBatcherEntries(entries: readonly L1TxEntry[], sel: BatcherSelection): BatcherDataItem[] {
  const out: BatcherDataItem[] = [];
  for (const e of entries) {
    const tx = e.tx;
    if (tx === null) continue;
    if (batcherTxRejection(tx, sel, () => e.sender()) !== null) continue;
    pushItems(out, e.txIndex, tx, sel);
  }
  return out;
}
