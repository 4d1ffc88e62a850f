/**
 * The look-ahead's ring of blocks read ahead: a long run of blocks (several turns of the ring) is served from batch
 * reads only, each block once and as read; an element's error reaches only who asks for that block; `drop` forgets.
 */
import { describe, expect, it } from "vitest";
import { BlockLookahead } from "../../../src/node/engine/block-lookahead.js";

const timed = <T>(_m: string, fn: () => Promise<T>) => fn();

function source(opts: { batched: boolean; failing?: number; unsafe?: number }) {
  const batches: number[][] = [];
  const singles: number[] = [];
  const block = (n: number) => ({ n, name: `block-${n}` });
  return {
    batches,
    singles,
    src: {
      names: { one: "one", many: "many" },
      async one(n: number) {
        singles.push(n);
        return block(n);
      },
      many: opts.batched
        ? async (ns: readonly number[]) => {
            batches.push([...ns]);
            return ns.map((n) => (n === opts.failing ? new Error(`read of ${n} failed`) : block(n)));
          }
        : undefined,
    },
  };
}

describe("BlockLookahead", () => {
  it("serves 1,000 consecutive blocks from whole batches, each block as read", async () => {
    const s = source({ batched: true });
    const la = new BlockLookahead(s.src, timed);
    for (let n = 1; n <= 1000; n++) expect(await la.get(n, 1000)).toEqual({ n, name: `block-${n}` });
    // Block 1 alone, then batches of 32 ahead; never beyond the unsafe head.
    expect(s.singles).toEqual([1]);
    const asked = s.batches.flat();
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked).toEqual(Array.from({ length: 999 }, (_, i) => i + 2));
    expect(s.batches.slice(0, -1).every((b) => b.length === BlockLookahead.BATCH)).toBe(true);
  });

  it("gives a failed element's error to the block's reader only", async () => {
    const s = source({ batched: true, failing: 10 });
    const la = new BlockLookahead(s.src, timed);
    for (let n = 1; n <= 9; n++) expect((await la.get(n, 100))?.n).toBe(n);
    await expect(la.get(10, 100)).rejects.toThrow("read of 10 failed");
    expect((await la.get(11, 100))?.n).toBe(11);
  });

  it("reads again after drop, and reads single blocks ahead without batches", async () => {
    const s = source({ batched: true });
    const la = new BlockLookahead(s.src, timed);
    await la.get(1, 200);
    la.drop();
    expect((await la.get(5, 200))?.n).toBe(5);
    expect(s.singles).toEqual([1, 5]);

    const u = source({ batched: false });
    const single = new BlockLookahead(u.src, timed);
    for (let n = 1; n <= 300; n++) expect((await single.get(n, 300))?.n).toBe(n);
    expect(u.singles).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });
});
