import { describe, expect, it } from "vitest";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { OutputAtBlock } from "../../../src/node/chain-view.js";
import { OutputCache } from "../../../src/node/output-cache.js";

const ref = (n: number, tag = "a"): L2BlockRef =>
  ({
    number: n,
    hash: `0x${tag.repeat(2)}${n.toString(16).padStart(62, "0")}`,
    parentHash: `0x${"00".repeat(32)}`,
    timestamp: n * 2,
    l1origin: { number: 0, hash: `0x${"00".repeat(32)}` },
    sequenceNumber: 0,
  }) as L2BlockRef;
const out = (r: L2BlockRef): OutputAtBlock =>
  ({ version: "0x", outputRoot: r.hash, blockRef: r, withdrawalStorageRoot: r.hash, stateRoot: r.hash }) as never;

describe("OutputCache", () => {
  it("serves finalized blocks for good and head blocks while they are still the head", () => {
    const c = new OutputCache();
    c.put(out(ref(5)), [ref(9)], 5); // finalized
    c.put(out(ref(9)), [ref(9)], 5); // the unsafe head
    c.put(out(ref(7)), [ref(9)], 5); // neither: not cached
    expect(c.get(5, [ref(10)], 6)?.blockRef.number).toBe(5);
    expect(c.get(9, [ref(9)], 5)?.blockRef.number).toBe(9);
    expect(c.get(7, [ref(9)], 5)).toBeUndefined();
    // the head moved on: block 9 may still be canonical but is no longer known to be
    expect(c.get(9, [ref(10)], 5)).toBeUndefined();
    // a head replaced by another block at the same height (reorg) is not served
    expect(c.get(9, [ref(9, "b")], 5)).toBeUndefined();
  });

  it("drops a head entry once its height is finalized (it may have been reorged out meanwhile)", () => {
    const c = new OutputCache();
    c.put(out(ref(9)), [ref(9)], 5);
    expect(c.get(9, [ref(12)], 9)).toBeUndefined();
    expect(c.get(9, [ref(9)], 5)).toBeUndefined();
  });

  it("keeps at most `capacity` entries, dropping the oldest", () => {
    const c = new OutputCache(2);
    for (const n of [1, 2, 3]) c.put(out(ref(n)), [], 10);
    expect(c.get(1, [], 10)).toBeUndefined();
    expect(c.get(3, [], 10)?.blockRef.number).toBe(3);
  });
});
