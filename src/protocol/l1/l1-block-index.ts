/**
 * One L1 block's data indexed once for every hosted chain: transactions by destination (decoded and their sender
 * recovered lazily, at most once each, and only for destinations a chain asks about: its batch inbox), and
 * receipt logs by emitting address (a chain's SystemConfig and deposit contract). A supernode hosting N chains
 * thus does O(block) work per L1 block instead of O(N × block).
 */
import { hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hex } from "../../core/types/primitives.js";
import type { Log, Receipt } from "../block/receipt.js";
import { decodeSignedTx, type SignedTxInfo, txSender } from "./signed-tx.js";

/** Work counters (shared by every index of one owner; tests and benchmarks read them). */
export interface L1IndexCounters {
  /** Transactions decoded from their EIP-2718 bytes. */
  decoded: number;
  /** Senders recovered from signatures. */
  recovered: number;
  /** Receipt lists indexed by log address. */
  receiptsIndexed: number;
}

export function newL1IndexCounters(): L1IndexCounters {
  return { decoded: 0, recovered: 0, receiptsIndexed: 0 };
}

/** What the index needs of a transaction: its destination (authenticated by its hash) and its bytes. */
export interface IndexableTx {
  readonly to: Address | null;
  readonly raw: Hex | Uint8Array;
}

/** A transaction of the block, decoded on first use; `sender()` recovers once and remembers. */
export interface L1TxEntry {
  readonly txIndex: number;
  /** The decoded transaction, or null when its bytes are malformed. */
  readonly tx: SignedTxInfo | null;
  /** The recovered sender (deposit `from`), null for an invalid signature or a malformed transaction. */
  sender(): Address | null;
}

class LazyEntry implements L1TxEntry {
  private decoded: SignedTxInfo | null | undefined;
  private from: Address | null | undefined;

  constructor(
    readonly txIndex: number,
    private readonly raw: Hex | Uint8Array,
    private readonly counters: L1IndexCounters,
  ) {}

  get tx(): SignedTxInfo | null {
    if (this.decoded === undefined) {
      this.counters.decoded++;
      try {
        this.decoded = decodeSignedTx(typeof this.raw === "string" ? hexToBytes(this.raw) : this.raw);
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        this.decoded = null;
      }
    }
    return this.decoded;
  }

  sender(): Address | null {
    if (this.from === undefined) {
      const tx = this.tx;
      if (tx === null) {
        this.from = null;
      } else {
        if (tx.from === undefined) this.counters.recovered++;
        this.from = txSender(tx);
      }
    }
    return this.from;
  }
}

const NONE: readonly L1TxEntry[] = Object.freeze([]);

/** The transactions of one L1 block by (lower-case) destination; contract creations are not indexed. */
export class L1TxIndex {
  private readonly byTo = new Map<string, L1TxEntry[]>();

  constructor(txs: readonly IndexableTx[], counters: L1IndexCounters = newL1IndexCounters()) {
    txs.forEach((t, i) => {
      if (t.to === null) return;
      const key = t.to.toLowerCase();
      let list = this.byTo.get(key);
      if (list === undefined) {
        list = [];
        this.byTo.set(key, list);
      }
      list.push(new LazyEntry(i, t.raw, counters));
    });
  }

  /** The block's transactions sent to `to`, in block order. */
  txsTo(to: Address): readonly L1TxEntry[] {
    return this.byTo.get(to.toLowerCase()) ?? NONE;
  }
}

/** The receipts of one L1 block, reduced per emitting address to that address's logs of successful receipts. */
export class L1LogIndex {
  private readonly byAddress = new Map<string, Receipt[]>();

  constructor(
    receipts: readonly { readonly status: number; readonly logs: readonly Log[] }[],
    counters: L1IndexCounters = newL1IndexCounters(),
  ) {
    counters.receiptsIndexed++;
    let index = 0;
    for (const r of receipts) {
      const perAddress = new Map<string, Log[]>();
      for (const log of r.logs) {
        const logIndex = log.logIndex ?? index;
        index++;
        if (r.status !== 1) continue;
        const key = log.address.toLowerCase();
        let logs = perAddress.get(key);
        if (logs === undefined) {
          logs = [];
          perAddress.set(key, logs);
        }
        logs.push(log.logIndex === undefined ? { ...log, logIndex } : log);
      }
      for (const [key, logs] of perAddress) {
        let list = this.byAddress.get(key);
        if (list === undefined) {
          list = [];
          this.byAddress.set(key, list);
        }
        list.push({ type: 0, status: 1, cumulativeGasUsed: 0n, logs });
      }
    }
  }

  /**
   * Receipts (successful ones, in block order) holding only the logs `address` emitted, with their block-wide
   * `logIndex`: what `applySystemConfigReceipts` and `userDepositsFromReceipts` read of the whole list.
   */
  receiptsOf(address: Address): readonly Receipt[] {
    return this.byAddress.get(address.toLowerCase()) ?? [];
  }
}
