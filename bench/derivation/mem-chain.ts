/** The derivation bench's in-memory L1 (blocks with their batcher transactions) and SafeDB (window bounds). */
import { type Hash, ZERO_HASH } from "supernode/core";
import type { BlockId, BlockLabel, L1BlockInfo, L1BlockRef, L1Source, L1Transaction, SafeDbPort } from "supernode/node";
import { type Mark, mark } from "./metering.js";
import { benchHash as h, GENESIS_TIME } from "./rollup-config.js";

export const L1_BLOCK_TIME = 12;

interface MemBlock {
  ref: L1BlockRef;
  info: L1BlockInfo;
  txs: L1Transaction[];
}

export class MemL1 implements L1Source {
  readonly blocks: MemBlock[] = [];
  private readonly byHash = new Map<Hash, MemBlock>();

  /** `notFound`: the error for an unknown block (the node under test's own TemporaryError class). */
  constructor(private readonly notFound: () => Error) {
    this.push([]);
  }

  push(txs: L1Transaction[]): L1BlockRef {
    const parent = this.blocks[this.blocks.length - 1];
    const number = parent === undefined ? 0 : parent.ref.number + 1;
    const ref: L1BlockRef = {
      hash: h(`l1-${number}`),
      number,
      parentHash: parent?.ref.hash ?? ZERO_HASH,
      timestamp: GENESIS_TIME + number * L1_BLOCK_TIME,
    };
    // Headers are immutable: computed once and handed out as the same object, as the L1 client's cache does.
    const info = { ...ref, baseFeePerGas: 1_000_000_000n, mixHash: h(`mix-${number}`), excessBlobGas: 0n };
    const b = { ref, info, txs };
    this.blocks.push(b);
    this.byHash.set(ref.hash, b);
    return ref;
  }

  private info(b: MemBlock): L1BlockInfo {
    return b.info;
  }
  private get(hash: Hash): MemBlock {
    const b = this.byHash.get(hash);
    if (b === undefined) throw this.notFound();
    return b;
  }
  getLabel(label: BlockLabel): L1BlockRef | undefined {
    const head = this.blocks[this.blocks.length - 1]!.ref;
    return label === "latest" ? head : this.blocks[0]!.ref;
  }
  async l1BlockRefByLabel(label: BlockLabel) {
    return this.getLabel(label)!;
  }
  async l1BlockRefByNumber(n: number) {
    const b = this.blocks[n];
    if (b === undefined) throw this.notFound();
    return b.ref;
  }
  async l1BlockRefByHash(hash: Hash) {
    return this.get(hash).ref;
  }
  async infoByHash(hash: Hash) {
    return this.info(this.get(hash));
  }
  async infoAndTxsByHash(hash: Hash) {
    const b = this.get(hash);
    return { info: this.info(b), txs: b.txs };
  }
  async fetchReceipts(hash: Hash) {
    return { info: this.info(this.get(hash)), receipts: [] };
  }
}

export class MemSafeDb implements SafeDbPort {
  last: { l1Block: BlockId; safeHead: BlockId } | undefined;
  /** Taken when the safe head first reached each wanted block: exact window bounds. */
  readonly marks = new Map<number, Mark>();
  wanted: readonly number[] = [];
  /** Called on every safe-head entry (the bench waits on it instead of polling). */
  onUpdate: ((safe: number) => void) | undefined;
  async safeHeadUpdated(safeHead: BlockId, l1Block: BlockId) {
    this.last = { safeHead, l1Block };
    for (const n of this.wanted) {
      if (safeHead.number >= n && !this.marks.has(n))
        this.marks.set(n, mark(n === this.wanted[this.wanted.length - 1]));
    }
    this.onUpdate?.(safeHead.number);
  }
  async safeHeadAtL1Block() {
    return this.last;
  }
  async truncate() {}
}
