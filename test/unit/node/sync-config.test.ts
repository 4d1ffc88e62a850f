import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/load.js";
import { type Fixture, baseArgs, makeFixture } from "../config/helpers.js";

let f: Fixture;
beforeAll(() => {
  f = makeFixture();
});
afterAll(() => f.cleanup());

describe("sync options reach the chain config (EL sync)", () => {
  it("carries syncmode, syncmode.req-resp and syncmode.offset-el-safe per chain", () => {
    const res = loadConfig(
      [
        ...baseArgs(f, [901, 902]),
        "--vn.901.syncmode=execution-layer",
        "--vn.901.syncmode.offset-el-safe=30s",
        "--vn.902.syncmode.req-resp",
      ],
      {},
    );
    if (!res.ok) throw new Error(JSON.stringify(res.issues));
    const [a, b] = res.config.chainConfigs;
    expect([a?.syncMode, a?.syncOffsetElSafeMs, a?.syncModeReqResp]).toEqual(["execution-layer", 30_000, false]);
    expect([b?.syncMode, b?.syncOffsetElSafeMs, b?.syncModeReqResp]).toEqual(["consensus-layer", 0, true]);
  });
});
