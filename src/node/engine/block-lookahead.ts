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

  private readonly ahead = new Map<number, Promise<B | undefined>>();
  /** Highest block number requested in batches. */
  private requestedTo = 0;

  constructor(
    private readonly source: LookaheadSource<B>,
    private readonly timed: Timed,
  ) {}

  /** Block `n`; then the following blocks up to the look-ahead limit (never beyond `unsafe`) are requested. */
  get(n: number, unsafe: number): Promise<B | undefined> {
    const p = this.ahead.get(n) ?? this.timed(this.source.names.one, () => this.source.one(n));
    this.ahead.delete(n);
    this.fill(n + 1, unsafe);
    return p;
  }

  drop(): void {
    this.ahead.clear();
    this.requestedTo = 0;
  }

  private fill(from: number, unsafe: number): void {
    const batched = this.source.many;
    if (batched === undefined) {
      const last = Math.min(from - 1 + BlockLookahead.SINGLE_AHEAD, unsafe);
      for (let k = from; k <= last; k++) {
        if (this.ahead.has(k)) continue;
        const q = this.source.one(k);
        q.catch(() => {});
        this.ahead.set(k, q);
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
      ns.forEach((k, i) => {
        const q = all.then((r) => {
          const v = r[i];
          if (v instanceof Error) throw v;
          return v;
        });
        q.catch(() => {});
        this.ahead.set(k, q);
      });
      this.requestedTo = end;
      start = end + 1;
    }
  }
}
