import { describe, expect, it } from "vitest";
import { DEFAULT_DEVNET_FORKS, devnetForkOffsets } from "../../src/config.js";

describe("devnetForkOffsets", () => {
  it("defaults to Regolith … Jovian at genesis, Karst and Interop unscheduled", () => {
    const o = devnetForkOffsets();
    for (const f of DEFAULT_DEVNET_FORKS) expect(o[f], f).toBe(0);
    expect(o.karst).toBeUndefined();
    expect(o.lagoon).toBeUndefined();
  });

  it("forks without an override follow the fork before them", () => {
    const o = devnetForkOffsets({ ecotone: 20, isthmus: 40 });
    expect([o.delta, o.ecotone, o.fjord, o.granite, o.holocene, o.isthmus, o.jovian, o.karst]).toEqual([
      0,
      20,
      20,
      20,
      20,
      40,
      40,
      undefined,
    ]);
    expect(devnetForkOffsets({ karst: 50 }).karst).toBe(50);
    // a later fork given a time brings Karst along with the fork before it
    expect(devnetForkOffsets({ lagoon: 30 })).toMatchObject({ jovian: 0, karst: 0, lagoon: 30 });
    expect(devnetForkOffsets({ jovian: 10, lagoon: 30 })).toMatchObject({ jovian: 10, karst: 10, lagoon: 30 });
    expect(devnetForkOffsets({ lagoon: 0 })).toMatchObject({ karst: 0, lagoon: 0 });
  });

  it("null unschedules a fork and the later ones without an override", () => {
    const o = devnetForkOffsets({ isthmus: null });
    expect([o.holocene, o.isthmus, o.jovian]).toEqual([0, undefined, undefined]);
  });

  it("rejects decreasing offsets, a fork after an unscheduled one, and bad numbers", () => {
    expect(() => devnetForkOffsets({ ecotone: 20, fjord: 10 })).toThrow(
      /fjord \(\+10 s\) cannot activate before ecotone/,
    );
    expect(() => devnetForkOffsets({ holocene: null, jovian: 5 })).toThrow(/jovian cannot be scheduled after/);
    expect(() => devnetForkOffsets({ ecotone: -1 })).toThrow(/non-negative integer/);
    expect(() => devnetForkOffsets({ ecotone: 1.5 })).toThrow(/non-negative integer/);
  });
});
