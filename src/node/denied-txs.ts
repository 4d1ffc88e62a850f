/**
 * Transactions of denied blocks (interop): the hashes of the offending ones, and a sealed payload's transactions
 * without them, so the sequencer never includes an offending transaction again (the EL puts a rewound block's
 * transactions back in its pool, as geth does; the block's other transactions are included again).
 */
import { DEPOSIT_TX_TYPE } from "../protocol/l2/deposit-tx.js";
import { hexToBytes } from "../core/codec/hex.js";
import { SupernodeError } from "../core/errors/supernode-error.js";
import type { Address, Hash, Hex } from "../core/types/primitives.js";
import { keccakHex } from "../protocol/block/keccak.js";
import { decodeSignedTx, txSender } from "../protocol/l1/signed-tx.js";
import type { PayloadAttributes } from "./ports.js";

/** The payload just built is on the interop deny list: it was not inserted. */
export class DeniedPayloadError extends SupernodeError {
  constructor(number: number) {
    super("PAYLOAD_DENIED", `built payload ${number} is denied; not inserted`, { severity: "temporary" });
  }
}

const isDeposit = (tx: Hex): boolean => tx.slice(0, 4).toLowerCase() === "0x7e";

export function txHash(tx: Hex): Hash {
  return keccakHex(hexToBytes(tx));
}

/** Hashes of the non-deposit transactions (the block's batch / pool transactions). */
export function nonDepositTxHashes(txs: readonly Hex[]): Hash[] {
  return txs.filter((t) => !isDeposit(t)).map(txHash);
}

/**
 * Hashes of a denied block's offending transactions: those at `txIndices` (deposits never: they are forced by L1 and
 * cannot execute messages), or every non-deposit transaction when the positions are unknown.
 */
export function offendingTxHashes(txs: readonly Hex[], txIndices: readonly number[] | undefined): Hash[] {
  if (txIndices === undefined) return nonDepositTxHashes(txs);
  const out: Hash[] = [];
  for (const i of txIndices) {
    const tx = txs[i];
    if (tx !== undefined && !isDeposit(tx)) out.push(txHash(tx));
  }
  return out;
}

/** The same attributes with only their deposits (the replacement of a denied or invalid block). */
export function depositsOnlyAttributes(a: PayloadAttributes): PayloadAttributes {
  return { fields: { ...a.fields, noTxPool: true }, txBytes: a.txBytes.filter((t) => t[0] === DEPOSIT_TX_TYPE) };
}

function senderOf(tx: Hex): Address | undefined {
  try {
    return txSender(decodeSignedTx(hexToBytes(tx))) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * `txs` without the excluded transactions and without the later transactions of their senders (their nonces would
 * no longer follow); undefined when nothing is excluded. A prefix of a valid block stays valid, and a sender's
 * transactions are independent of other senders' nonces, so what remains can be forced in the same order.
 */
export function withoutExcluded(txs: readonly Hex[], excluded: ReadonlySet<Hash>): Hex[] | undefined {
  if (excluded.size === 0) return undefined;
  const blocked = new Set<Address>();
  const out: Hex[] = [];
  let dropped = false;
  for (const tx of txs) {
    if (isDeposit(tx)) {
      out.push(tx);
      continue;
    }
    const isExcluded = excluded.has(txHash(tx));
    if (isExcluded || blocked.size > 0) {
      const from = senderOf(tx)?.toLowerCase() as Address | undefined;
      if (isExcluded) {
        dropped = true;
        if (from !== undefined) blocked.add(from);
        continue;
      }
      if (from !== undefined && blocked.has(from)) continue;
    }
    out.push(tx);
  }
  return dropped ? out : undefined;
}
