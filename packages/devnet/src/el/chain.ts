import type { Hash } from "supernode/core";
import type { SimBlock, SimTx } from "./types.js";

export interface TxLocation {
  readonly block: SimBlock;
  readonly index: number;
}

/** What changed when the canonical head moved (for subscriptions and the tx pool). */
export interface HeadChange {
  readonly added: readonly SimBlock[];
  readonly removed: readonly SimBlock[];
}

/**
 * Every block the simulated client knows (canonical or not), the canonical chain by number, and the fork-choice
 * labels. Moving the head to a block on another branch rewrites the canonical chain back to the common ancestor.
 */
export class SimChain {
  readonly #blocks = new Map<Hash, SimBlock>();
  readonly #canonical: SimBlock[] = [];
  readonly #txs = new Map<Hash, { block: SimBlock; index: number }[]>();
  #safe: SimBlock;
  #finalized: SimBlock;
  readonly #listeners = new Set<(c: HeadChange) => void>();

  constructor(readonly genesis: SimBlock) {
    this.add(genesis);
    this.#canonical.push(genesis);
    this.#safe = genesis;
    this.#finalized = genesis;
  }

  add(block: SimBlock): void {
    if (this.#blocks.has(block.hash)) return;
    this.#blocks.set(block.hash, block);
    block.txs.forEach((tx: SimTx, index) => {
      const list = this.#txs.get(tx.hash);
      if (list === undefined) this.#txs.set(tx.hash, [{ block, index }]);
      else list.push({ block, index });
    });
  }

  byHash(hash: Hash): SimBlock | undefined {
    return this.#blocks.get(hash.toLowerCase() as Hash);
  }

  byNumber(n: number): SimBlock | undefined {
    return this.#canonical[n];
  }

  isCanonical(block: SimBlock): boolean {
    return this.#canonical[block.header.number] === block;
  }

  get head(): SimBlock {
    return this.#canonical[this.#canonical.length - 1]!;
  }

  get safe(): SimBlock {
    return this.#safe;
  }

  get finalized(): SimBlock {
    return this.#finalized;
  }

  /** The canonical location of a transaction. */
  tx(hash: Hash): TxLocation | undefined {
    const list = this.#txs.get(hash.toLowerCase() as Hash);
    if (list === undefined) return undefined;
    for (const loc of list) if (this.isCanonical(loc.block)) return loc;
    return undefined;
  }

  onHeadChange(fn: (c: HeadChange) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Makes `block` (already added) the canonical head. */
  setHead(block: SimBlock): HeadChange {
    const added: SimBlock[] = [];
    let cur: SimBlock | undefined = block;
    while (cur !== undefined && this.#canonical[cur.header.number] !== cur) {
      added.push(cur);
      cur = this.#blocks.get(cur.header.parentHash);
    }
    if (cur === undefined) throw new Error("setHead: block does not connect to the canonical chain");
    const removed = this.#canonical.splice(cur.header.number + 1);
    added.reverse();
    for (const b of added) this.#canonical[b.header.number] = b;
    const change = { added, removed };
    if (added.length > 0 || removed.length > 0) for (const fn of this.#listeners) fn(change);
    return change;
  }

  setSafe(block: SimBlock): void {
    this.#safe = block;
  }

  setFinalized(block: SimBlock): void {
    this.#finalized = block;
  }

  /** Whether `descendant` has `ancestor` on its parent chain (or is it). */
  isAncestor(ancestor: SimBlock, descendant: SimBlock): boolean {
    let cur: SimBlock | undefined = descendant;
    // Walk only the non-canonical part; on the canonical chain ancestry is a number comparison.
    while (cur !== undefined && cur.header.number > ancestor.header.number && !this.isCanonical(cur))
      cur = this.#blocks.get(cur.header.parentHash);
    if (cur === undefined || cur.header.number < ancestor.header.number) return false;
    if (cur === ancestor) return true;
    return this.isCanonical(cur) && this.isCanonical(ancestor);
  }
}
