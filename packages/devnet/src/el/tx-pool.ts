import type { Hash } from "supernode/core";
import type { LedgerState } from "./ledger.js";
import type { SimTx } from "./types.js";

/**
 * The simulated client's transaction pool: signed transactions by sender and nonce. `pending` are those whose
 * nonces continue the sender's current nonce without gaps; the rest are `queued`.
 */
export class TxPool {
  readonly #bySender = new Map<string, Map<bigint, SimTx>>();
  readonly #byHash = new Map<Hash, SimTx>();
  readonly #listeners = new Set<(tx: SimTx) => void>();

  get size(): number {
    return this.#byHash.size;
  }

  has(hash: Hash): boolean {
    return this.#byHash.has(hash);
  }

  get(hash: Hash): SimTx | undefined {
    return this.#byHash.get(hash.toLowerCase() as Hash);
  }

  onAdd(fn: (tx: SimTx) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Adds a transaction; throws with a geth-like message when it can never be executed. */
  add(tx: SimTx, state: LedgerState): void {
    if (tx.nonce === undefined) throw new Error("deposit transactions cannot enter the pool");
    if (this.#byHash.has(tx.hash)) throw new Error("already known");
    const acc = state.account(tx.from);
    if (tx.nonce < acc.nonce) throw new Error("nonce too low");
    const key = tx.from.toLowerCase();
    let m = this.#bySender.get(key);
    if (m === undefined) {
      m = new Map();
      this.#bySender.set(key, m);
    }
    const old = m.get(tx.nonce);
    if (old !== undefined) this.#byHash.delete(old.hash);
    m.set(tx.nonce, tx);
    this.#byHash.set(tx.hash, tx);
    for (const fn of this.#listeners) fn(tx);
  }

  /**
   * Puts transactions of blocks that left the canonical chain back (as geth's pool does on a reorg): each one whose
   * nonce the state has not passed and whose (sender, nonce) slot is free. Returns how many went back.
   */
  reinject(txs: readonly SimTx[], state: LedgerState): number {
    let n = 0;
    for (const tx of txs) {
      if (tx.nonce === undefined || this.#byHash.has(tx.hash)) continue;
      if (tx.nonce < state.account(tx.from).nonce) continue;
      if (this.#bySender.get(tx.from.toLowerCase())?.has(tx.nonce) === true) continue;
      this.add(tx, state);
      n++;
    }
    return n;
  }

  /** Drops transactions whose nonces the state has passed (after a new head). */
  prune(state: LedgerState): void {
    for (const [sender, m] of this.#bySender) {
      const nonce = state.account(sender as Hash).nonce;
      for (const [n, tx] of m) {
        if (n < nonce) {
          m.delete(n);
          this.#byHash.delete(tx.hash);
        }
      }
      if (m.size === 0) this.#bySender.delete(sender);
    }
  }

  /** Executable transactions in sender-then-nonce order. */
  pending(state: LedgerState): SimTx[] {
    const out: SimTx[] = [];
    for (const [sender, m] of this.#bySender) {
      let n = state.account(sender as Hash).nonce;
      for (let tx = m.get(n); tx !== undefined; tx = m.get(n)) {
        out.push(tx);
        n++;
      }
    }
    return out;
  }

  /** Transactions waiting for an earlier nonce (a gap after the sender's current nonce), sender-then-nonce order. */
  queued(state: LedgerState): SimTx[] {
    const ready = new Set(this.pending(state));
    const out: SimTx[] = [];
    for (const m of this.#bySender.values()) {
      const nonces = [...m.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      for (const n of nonces) if (!ready.has(m.get(n)!)) out.push(m.get(n)!);
    }
    return out;
  }

  status(state: LedgerState): { pending: number; queued: number } {
    const pending = this.pending(state).length;
    return { pending, queued: this.#byHash.size - pending };
  }
}
