/**
 * Read-ahead of the EL's canonical blocks for a long run of consolidations (catch-up on an EL that already has
 * the blocks). Read-only calls, so they may be batched; the owner drops the look-ahead whenever the EL's
 * canonical chain may change under it (a build, an insertion, a reset), and decides on a fresh read when a
 * read-ahead block does not match. What a block is read as (a whole payload, or a header with transaction hashes)
 * is the owner's choice: {@link LookaheadSource}.
 */

type Timed = <T>(method: string, fn: () => Promise<T>) => Promise<T>;

/** How blocks are read: one by number, and optionally several in one batch request. */
export interface LookaheadSource<B> {
  /** Metric label of a single read and of a batch read. */
  readonly names: { readonly one: string; readonly many: string };
  one(n: number): Promise<B | undefined>;
  /** Each element: the block, undefined (no such block) or that element's error. */
  readonly many?: ((ns: readonly number[]) => Promise<(B | undefined | Error)[]>) | undefined;
}

export class BlockLookahead<B> {
  /** Without batched reads: single requests in flight ahead. */
  static readonly SINGLE_AHEAD = 8;
  /** With batched reads: blocks per batch request, and how far ahead of the block asked for. */
  static readonly BATCH = 32;
  static readonly AHEAD = 64;
  /** Slots of the ring (a power of two above AHEAD + BATCH: a block read ahead keeps its slot until asked for). */
  private static readonly SLOTS = 128;

  /**
   * The blocks read ahead, in a fixed ring by block number (slot `n & (SLOTS − 1)`): the number, the read's promise
   * (a batch's, shared by its blocks, or a single read's) and the block's index in the batch (−1: a single read).
   * Written in place, never rehashed nor holding a promise per block: nothing here keeps a block alive once it is
   * handed out or overwritten (docs/performance.md).
   */
  private readonly numbers = new Array<number>(BlockLookahead.SLOTS).fill(-1);
  private readonly reads = new Array<Promise<unknown> | undefined>(BlockLookahead.SLOTS).fill(undefined);
  private readonly index = new Array<number>(BlockLookahead.SLOTS).fill(-1);
  /** Highest block number requested in batches. */
  private requestedTo = 0;

  constructor(
    private readonly source: LookaheadSource<B>,
    private readonly timed: Timed,
  ) {}

  /** Block `n`; then the following blocks up to the look-ahead limit (never beyond `unsafe`) are requested. */
  get(n: number, unsafe: number): Promise<B | undefined> {
    const p = this.take(n) ?? this.timed(this.source.names.one, () => this.source.one(n));
    this.fill(n + 1, unsafe);
    return p;
  }

  drop(): void {
    this.numbers.fill(-1);
    this.reads.fill(undefined);
    this.index.fill(-1);
    this.requestedTo = 0;
  }

  private has(n: number): boolean {
    return this.numbers[n & (BlockLookahead.SLOTS - 1)] === n;
  }

  /** The read of block `n` made ahead, if any; its slot is freed. */
  private take(n: number): Promise<B | undefined> | undefined {
    const slot = n & (BlockLookahead.SLOTS - 1);
    if (this.numbers[slot] !== n) return undefined;
    const read = this.reads[slot];
    const i = this.index[slot]!;
    this.numbers[slot] = -1;
    this.reads[slot] = undefined;
    if (i < 0) return read as Promise<B | undefined>;
    return (read as Promise<(B | undefined | Error)[]>).then((r) => {
      const v = r[i];
      if (v instanceof Error) throw v;
      return v;
    });
  }

  private put(n: number, read: Promise<unknown>, i: number): void {
    const slot = n & (BlockLookahead.SLOTS - 1);
    this.numbers[slot] = n;
    this.reads[slot] = read;
    this.index[slot] = i;
  }

  private fill(from: number, unsafe: number): void {
    const batched = this.source.many;
    if (batched === undefined) {
      const last = Math.min(from - 1 + BlockLookahead.SINGLE_AHEAD, unsafe);
      for (let k = from; k <= last; k++) {
        if (this.has(k)) continue;
        const q = this.source.one(k);
        q.catch(() => {});
        this.put(k, q, -1);
      }
      return;
    }
    const B = BlockLookahead.BATCH;
    const limit = Math.min(from - 1 + BlockLookahead.AHEAD, unsafe);
    let start = Math.max(from, this.requestedTo + 1);
    // Whole batches only, except when nothing is requested ahead (then up to the limit).
    while (start <= limit && (limit - start + 1 >= B || start === from)) {
      const end = Math.min(start + B - 1, limit);
      const ns: number[] = [];
      for (let k = start; k <= end; k++) ns.push(k);
      const all = this.timed(this.source.names.many, () => batched(ns));
      // A failed batch surfaces only to whoever asks for one of its blocks.
      all.catch(() => {});
      for (let i = 0; i < ns.length; i++) this.put(ns[i]!, all, i);
      this.requestedTo = end;
      start = end + 1;
    }
  }
}
