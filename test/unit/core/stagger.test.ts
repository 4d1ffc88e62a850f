import { describe, expect, it } from "vitest";
import { STAGGER_STEP_MS, staggerOffsetMs } from "../../../src/core/async/stagger.js";

describe("staggerOffsetMs", () => {
  it("spreads chains STAGGER_STEP_MS apart, over at most a quarter of the slot", () => {
    expect(staggerOffsetMs(0, 1, 2_000)).toBe(0);
    expect([0, 1, 2, 3, 7].map((i) => staggerOffsetMs(i, 8, 2_000))).toEqual([0, 5, 10, 15, 35]);
    const hundred = Array.from({ length: 100 }, (_, i) => staggerOffsetMs(i, 100, 2_000));
    expect(hundred[1]).toBe(STAGGER_STEP_MS);
    expect(hundred[99]).toBe(495);
    expect(new Set(hundred).size).toBe(100);
    // 400 chains: a quarter of the 2-s slot, 1.25 ms apart
    expect(staggerOffsetMs(399, 400, 2_000)).toBe(498);
    expect(staggerOffsetMs(200, 400, 2_000)).toBe(250);
    // 1-s blocks: the quarter is 250 ms
    expect(staggerOffsetMs(99, 100, 1_000)).toBe(247);
  });
});
