import { describe, expect, it } from "vitest";
import { describeForkOffsets, parseForkOffsets } from "../../../src/cli/commands/devnet-fork-offsets.js";

describe("supernode devnet --fork-offsets", () => {
  it("parses <fork>=<seconds>|never entries into a complete schedule", () => {
    const o = parseForkOffsets("ecotone=6, isthmus=12,jovian=never");
    expect([o.canyon, o.ecotone, o.holocene, o.isthmus, o.jovian]).toEqual([0, 6, 6, 12, undefined]);
  });

  it("rejects unknown forks, malformed entries and an impossible order with a clear message", () => {
    expect(() => parseForkOffsets("shanghai=3")).toThrow(/bad entry "shanghai=3"/);
    expect(() => parseForkOffsets("ecotone")).toThrow(/want <fork>=<seconds>\|never/);
    expect(() => parseForkOffsets("ecotone=1=2")).toThrow(/bad entry/);
    expect(() => parseForkOffsets("ecotone=-3")).toThrow(/bad entry/);
    expect(() => parseForkOffsets("ecotone=9,fjord=3")).toThrow(/cannot activate before ecotone/);
  });

  it("describes a schedule by grouping forks with the same offset", () => {
    expect(describeForkOffsets(parseForkOffsets("ecotone=20,isthmus=40"))).toBe(
      "regolith…delta +0 s, ecotone…holocene +20 s, isthmus…jovian +40 s",
    );
    expect(describeForkOffsets({})).toBe("no forks scheduled");
  });
});
