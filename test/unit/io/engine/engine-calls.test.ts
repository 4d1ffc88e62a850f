import { describe, expect, it } from "vitest";
import { forkchoiceMethod, getPayloadMethod, newPayloadMethod } from "../../../../src/io/engine/engine-calls.js";
import { EVERY_FORK_AT_GENESIS } from "../../../support/fork-times.js";
import { testRollupConfig } from "../../node/fakes.js";

describe("Engine API method versions by fork (op-node GetPayloadVersion / NewPayloadVersion / ForkchoiceUpdatedVersion)", () => {
  const KARST = 1_800_000_000;
  const cfg = testRollupConfig({ ...EVERY_FORK_AT_GENESIS, karst_time: KARST, lagoon_time: KARST + 100 });
  const attrs = (timestamp: number) => ({ fields: { timestamp } }) as never;

  it("getPayloadV5 from Karst on; V4 from Isthmus before it", () => {
    expect(getPayloadMethod(cfg, KARST - 1)).toBe("engine_getPayloadV4");
    expect(getPayloadMethod(cfg, KARST)).toBe("engine_getPayloadV5");
    expect(getPayloadMethod(cfg, KARST + 100)).toBe("engine_getPayloadV5");
    expect(getPayloadMethod(testRollupConfig({ ecotone_time: 0 }), KARST)).toBe("engine_getPayloadV3");
  });

  it("newPayload stays V4 and forkchoiceUpdated V3 through Karst and Lagoon", () => {
    for (const t of [KARST - 1, KARST, KARST + 100]) {
      expect(newPayloadMethod(cfg, t)).toBe("engine_newPayloadV4");
      expect(forkchoiceMethod(cfg, attrs(t))).toBe("engine_forkchoiceUpdatedV3");
    }
  });
});
