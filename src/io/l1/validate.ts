import { ResetError } from "../../core/errors/supernode-error.js";
import type { Hash } from "../../core/types/primitives.js";
import { BlockValidationError, validateRpcBlock, validateRpcHeader } from "../../protocol/block/l1-block-validate.js";
import { encodeRpcTransaction } from "../../protocol/block/rpc-transaction.js";
import { rlpEncodeBytes, rlpEncodeListRaw } from "../../protocol/block/rlp.js";
import { orderedTrieRoot } from "../../protocol/block/trie.js";
import { hexToBytes } from "../../core/codec/hex.js";
import { parseRpcReceipt, receiptsRoot } from "../../protocol/block/receipt.js";
import { decodeRpcTransaction } from "../common/rpc-tx.js";
import {
  decodeL1BlockInfo,
  decodeL1Receipt,
  type L1BlockInfo,
  type L1Receipt,
  type L1Transaction,
} from "./l1-types.js";

/**
 * Decodes a header-only block response; unless `trust`, the header must hash to the claimed `hash`
 * (BlockValidationError, a DecodeError, otherwise).
 */
export function checkedHeader(raw: unknown, trust: boolean): L1BlockInfo {
  if (!trust) validateRpcHeader(raw);
  return decodeL1BlockInfo(raw);
}

/**
 * Decodes a block with full transactions; unless `trust`, verifies block hash, transactions root and withdrawals
 * root (the accept/reject cases of op-service's L1 block conformance data).
 */
export function checkedBody(raw: unknown, trust: boolean): { info: L1BlockInfo; txs: L1Transaction[] } {
  const info = decodeL1BlockInfo(raw);
  const list = (raw as { transactions?: unknown }).transactions;
  if (!Array.isArray(list)) throw new ResetError("L1_INVALID", "block has no transactions array", { hash: info.hash });
  if (trust) return { info, txs: list.map((t) => decodeRpcTransaction(t)) };
  try {
    const v = validateRpcBlock(raw);
    const bytes = v.transactions ?? [];
    if (bytes.length !== list.length) {
      throw new ResetError("L1_INVALID", "block transactions are hashes, expected full objects", { hash: info.hash });
    }
    return { info, txs: list.map((t, i) => decodeRpcTransaction(t, bytes[i])) };
  } catch (err) {
    if (!(err instanceof BlockValidationError && err.reason === "transactions-root") || !hasSidecars(list)) throw err;
    return anvilCompatBody(raw as Record<string, unknown>, info, list);
  }
}

function hasSidecars(list: readonly unknown[]): boolean {
  return list.some((t) => Array.isArray((t as { blobs?: unknown } | null)?.blobs));
}

/**
 * anvil commits blob transactions to `transactionsRoot` in their network form (with blobs, commitments and
 * proofs, which it also returns in the JSON). Accept such a block only when the header hash and withdrawals root
 * verify, every transaction hashes to its canonical encoding, and the network-form trie matches the header.
 */
function anvilCompatBody(
  raw: Record<string, unknown>,
  info: L1BlockInfo,
  list: readonly unknown[],
): { info: L1BlockInfo; txs: L1Transaction[] } {
  validateRpcBlock({ ...raw, transactions: undefined });
  const canonical = list.map((t) => encodeRpcTransaction(t));
  const network = canonical.map((bytes, i) => {
    const t = list[i] as { blobs?: string[]; commitments?: string[]; proofs?: string[] };
    if (bytes[0] !== 3 || !Array.isArray(t.blobs)) return bytes;
    const items = (xs: readonly string[] | undefined) =>
      rlpEncodeListRaw((xs ?? []).map((x) => rlpEncodeBytes(hexToBytes(x))));
    const body = rlpEncodeListRaw([bytes.subarray(1), items(t.blobs), items(t.commitments), items(t.proofs)]);
    const out = new Uint8Array(body.length + 1);
    out[0] = 3;
    out.set(body, 1);
    return out;
  });
  const root: Hash = orderedTrieRoot(network);
  if (root !== info.transactionsRoot) {
    throw new BlockValidationError("transactions-root", "failed to verify transactions list", {
      claimed: info.transactionsRoot,
      computed: root,
    });
  }
  return { info, txs: list.map((t, i) => decodeRpcTransaction(t, canonical[i])) };
}

/** Decodes receipts; unless `trust`, they must produce the header's receipts root and belong to `info.hash`. */
export function checkedReceipts(info: L1BlockInfo, raw: readonly unknown[], trust: boolean): L1Receipt[] {
  const receipts = raw.map(decodeL1Receipt);
  if (trust) return receipts;
  const root: Hash = receiptsRoot(raw.map(parseRpcReceipt));
  if (root !== info.receiptsRoot) {
    throw new ResetError("L1_INVALID", "receipts do not match the block's receipts root", {
      hash: info.hash,
      claimed: info.receiptsRoot,
      computed: root,
    });
  }
  for (const r of receipts) {
    if (r.blockHash !== info.hash) {
      throw new ResetError("L1_INVALID", "receipt belongs to another block", { hash: info.hash, got: r.blockHash });
    }
  }
  return receipts;
}
