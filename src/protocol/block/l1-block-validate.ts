import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hash } from "../../core/types/primitives.js";
import { type BlockHeader, headerHash, parseRpcHeader } from "./header.js";
import { asArray, asObject, jsonHex } from "./json.js";
import { keccakHex } from "./keccak.js";
import { parseRpcReceipt, type Receipt, receiptsRoot } from "./receipt.js";
import { encodeRpcTransaction } from "./rpc-transaction.js";
import { orderedTrieRoot } from "./trie.js";
import { parseRpcWithdrawal, type Withdrawal, withdrawalsRoot } from "./withdrawal.js";

export type BlockValidationReason =
  | "malformed"
  | "block-hash"
  | "nil-transaction"
  | "transactions-root"
  | "nil-withdrawal"
  | "missing-withdrawals"
  | "withdrawals-root"
  | "receipts-root";

/** An `eth_getBlockBy*` response that does not verify. A DecodeError (bad data from the L1 node). */
export class BlockValidationError extends DecodeError {
  readonly reason: BlockValidationReason;
  constructor(reason: BlockValidationReason, message: string, meta: Readonly<Record<string, unknown>> = {}) {
    super(message, { reason, ...meta });
    this.reason = reason;
  }
}

/** A verified L1 block. */
export interface ValidatedBlock {
  readonly hash: Hash;
  readonly header: BlockHeader;
  /** EIP-2718 encodings of the transactions, when the response carried full transactions. */
  readonly transactions?: readonly Uint8Array[];
  /** Transaction hashes (from the hash list, or computed from the full transactions). */
  readonly txHashes: readonly Hash[];
  readonly withdrawals?: readonly Withdrawal[];
  readonly receipts?: readonly Receipt[];
}

/**
 * Verifies an `eth_getBlockBy*` JSON response (full transactions or only hashes) and, when given, its
 * receipts: the header must hash to `hash`; full transactions are re-encoded and must produce
 * `transactionsRoot`; withdrawals must produce `withdrawalsRoot`; receipts must produce `receiptsRoot`.
 * Throws {@link BlockValidationError} (a DecodeError) on any mismatch or malformed input.
 */
export interface ValidateBlockOptions {
  /**
   * Check `transactionsRoot` against the re-encoded transactions (default true). Anvil ≤ 1.7 commits the
   * root over the pooled (sidecar-carrying) encoding of blob transactions (foundry issue #15132), so a devnet
   * L1 may need this off for blocks with blob transactions; the block hash is always checked.
   */
  readonly verifyTransactionsRoot?: boolean;
}

export function validateRpcBlock(
  json: unknown,
  receiptsJson?: readonly unknown[],
  opts: ValidateBlockOptions = {},
): ValidatedBlock {
  let header: BlockHeader;
  let claimed: Hash;
  let o: Record<string, unknown>;
  try {
    o = asObject(json, "block");
    header = parseRpcHeader(o);
    claimed = jsonHex(o, "hash", "block", 32);
  } catch (e) {
    throw new BlockValidationError("malformed", `malformed block: ${(e as Error).message}`);
  }
  const computed = headerHash(header);
  if (computed !== claimed)
    throw new BlockValidationError("block-hash", "failed to verify block hash", { claimed, computed });

  let transactions: Uint8Array[] | undefined;
  let txHashes: Hash[] = [];
  if (o.transactions !== undefined && o.transactions !== null) {
    const list = asArrayOr(o.transactions, "transactions");
    const allStrings = list.length > 0 && list.every((t) => typeof t === "string");
    if (allStrings) {
      txHashes = list.map((t) => {
        if (typeof t !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(t))
          throw new BlockValidationError("malformed", "transaction hash is not a 32-byte hex string");
        return t.toLowerCase() as Hash;
      });
    } else {
      transactions = list.map((t, i) => {
        if (t === null || t === undefined) throw new BlockValidationError("nil-transaction", `block tx ${i} is nil`);
        try {
          return encodeRpcTransaction(t);
        } catch (e) {
          throw new BlockValidationError("malformed", `block tx ${i}: ${(e as Error).message}`);
        }
      });
      const root = opts.verifyTransactionsRoot === false ? header.transactionsRoot : orderedTrieRoot(transactions);
      if (root !== header.transactionsRoot)
        throw new BlockValidationError("transactions-root", "failed to verify transactions list", {
          claimed: header.transactionsRoot,
          computed: root,
        });
      txHashes = transactions.map(keccakHex);
    }
  }

  let withdrawals: Withdrawal[] | undefined;
  if (o.withdrawals !== undefined && o.withdrawals !== null) {
    const list = asArrayOr(o.withdrawals, "withdrawals");
    withdrawals = list.map((w, i) => {
      if (w === null || w === undefined)
        throw new BlockValidationError("nil-withdrawal", `block withdrawal ${i} is null`);
      try {
        return parseRpcWithdrawal(w);
      } catch (e) {
        throw new BlockValidationError("malformed", `block withdrawal ${i}: ${(e as Error).message}`);
      }
    });
    const root = withdrawalsRoot(withdrawals);
    if (header.withdrawalsRoot === undefined)
      throw new BlockValidationError("withdrawals-root", "withdrawals present but header has no withdrawalsRoot");
    if (root !== header.withdrawalsRoot)
      throw new BlockValidationError("withdrawals-root", "failed to verify withdrawals list", {
        claimed: header.withdrawalsRoot,
        computed: root,
      });
  } else if (header.withdrawalsRoot !== undefined && transactions !== undefined && transactions.length > 0) {
    // Only a full-transaction response is known to be a full block (an empty list is ambiguous).
    throw new BlockValidationError("missing-withdrawals", "header has a withdrawalsRoot but the block no withdrawals");
  }

  let receipts: Receipt[] | undefined;
  if (receiptsJson !== undefined) {
    receipts = receiptsJson.map((r, i) => {
      try {
        return parseRpcReceipt(r);
      } catch (e) {
        throw new BlockValidationError("malformed", `receipt ${i}: ${(e as Error).message}`);
      }
    });
    const root = receiptsRoot(receipts);
    if (root !== header.receiptsRoot)
      throw new BlockValidationError("receipts-root", "failed to verify receipts", {
        claimed: header.receiptsRoot,
        computed: root,
      });
  }

  return {
    hash: computed,
    header,
    ...(transactions === undefined ? {} : { transactions }),
    txHashes,
    ...(withdrawals === undefined ? {} : { withdrawals }),
    ...(receipts === undefined ? {} : { receipts }),
  };
}

/** Verifies a header-only response (`hash` must match the header fields). */
export function validateRpcHeader(json: unknown): { hash: Hash; header: BlockHeader } {
  let header: BlockHeader;
  let claimed: Hash;
  try {
    const o = asObject(json, "header");
    header = parseRpcHeader(o);
    claimed = jsonHex(o, "hash", "header", 32);
  } catch (e) {
    throw new BlockValidationError("malformed", `malformed header: ${(e as Error).message}`);
  }
  const computed = headerHash(header);
  if (computed !== claimed)
    throw new BlockValidationError("block-hash", "failed to verify block hash", { claimed, computed });
  return { hash: computed, header };
}

function asArrayOr(v: unknown, what: string): readonly unknown[] {
  try {
    return asArray(v, what);
  } catch (e) {
    throw new BlockValidationError("malformed", (e as Error).message);
  }
}
