import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { dataModeProblem, describeForkOffsets, parseForkOffsets } from "../../../src/cli/fork-offsets.js";

import { devnetBin } from "../../../src/bin-path.js";

const BIN = devnetBin();

describe("supernode-devnet --fork-offsets", () => {
  it("parses <fork>=<seconds>|never entries into a complete schedule", () => {
    const o = parseForkOffsets("ecotone=6, isthmus=12,jovian=never");
    expect([o.canyon, o.ecotone, o.holocene, o.isthmus, o.jovian]).toEqual([0, 6, 6, 12, undefined]);
  });

  it("karst=N,lagoon=M; interop is Lagoon's older name", () => {
    expect(parseForkOffsets("karst=20,lagoon=40")).toMatchObject({ jovian: 0, karst: 20, lagoon: 40 });
    expect(parseForkOffsets("karst=20,interop=40")).toMatchObject({ karst: 20, lagoon: 40 });
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

describe("supernode-devnet --data-mode blobs with --fork-offsets", () => {
  it("is accepted with Ecotone at genesis or without a schedule, rejected with a later or no Ecotone", () => {
    expect(dataModeProblem("blobs", undefined)).toBeUndefined();
    expect(dataModeProblem("blobs", parseForkOffsets("isthmus=40"))).toBeUndefined();
    expect(dataModeProblem("calldata", parseForkOffsets("ecotone=20"))).toBeUndefined();
    expect(dataModeProblem("blobs", parseForkOffsets("ecotone=20"))).toMatch(
      /needs Ecotone at genesis.*activates at \+20 s.*--data-mode calldata/,
    );
    expect(dataModeProblem("blobs", parseForkOffsets("canyon=10"))).toContain("activates at +10 s");
    expect(dataModeProblem("blobs", parseForkOffsets("ecotone=never"))).toContain("never activates");
  });

  it("the CLI rejects the combination before starting anything (exit status 2, the reason on stderr)", () => {
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        "--data-mode",
        "blobs",
        "--fork-offsets",
        "ecotone=20",
        "--rpc.port",
        "0",
        "--metrics.port",
        "0",
        "--el.port",
        "0",
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--data-mode blobs needs Ecotone at genesis");
    expect(r.stdout).not.toContain("starting devnet");
  });
});
