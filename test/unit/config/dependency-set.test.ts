import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/load.js";
import type { SupernodeConfig } from "../../../src/config/types.js";
import { baseArgs, type Fixture, makeFixture } from "./helpers.js";

let f: Fixture;
beforeAll(() => {
  f = makeFixture();
});
afterAll(() => f.cleanup());

function load(argv: string[]): { config?: SupernodeConfig; messages: string[] } {
  const res = loadConfig(argv, {});
  return res.ok
    ? { config: res.config, messages: [] }
    : { messages: res.issues.map((i) => `${i.option}: ${i.message}`) };
}
const set = (ids: number[], window?: number) =>
  JSON.stringify({
    dependencies: Object.fromEntries(ids.map((i) => [String(i), {}])),
    ...(window !== undefined ? { overrideMessageExpiryWindow: window } : {}),
  });

describe("dependency set configuration", () => {
  it("defaults to the hosted chains", () => {
    const { config } = load(baseArgs(f, [902, 901]));
    expect(config?.dependencySet).toEqual({ chainIds: [901n, 902n], messageExpiryWindow: 604_800 });
  });

  it("reads the top-level --dependency-set", () => {
    const p = f.write("top.json", set([901, 902], 3600));
    const { config } = load([...baseArgs(f, [901, 902]), "--dependency-set", p]);
    expect(config?.dependencySet).toEqual({ chainIds: [901n, 902n], messageExpiryWindow: 3600 });
  });

  it("reads per-chain files that agree with each other and the top-level one", () => {
    const a = f.write("a.json", set([901, 902]));
    const b = f.write("b.json", set([902, 901]));
    const { config, messages } = load([
      ...baseArgs(f, [901, 902]),
      "--vn.901.interop.dependency-set",
      a,
      "--vn.902.interop.dependency-set",
      b,
      "--dependency-set",
      a,
    ]);
    expect(messages).toEqual([]);
    expect(config?.dependencySet?.chainIds).toEqual([901n, 902n]);
  });

  it.each<[string, () => string[], RegExp]>([
    [
      "chains disagree",
      () => [
        "--vn.901.interop.dependency-set",
        f.write("x.json", set([901, 902])),
        "--vn.902.interop.dependency-set",
        f.write("y.json", set([901, 902], 60)),
      ],
      /--vn\.902\.interop\.dependency-set: dependency set \{901,902\} expiry 60s differs .* all chains must agree/,
    ],
    ["a chain not hosted", () => ["--dependency-set", f.write("z.json", set([901, 902, 903]))], /does not host: 903/],
    [
      "a hosted chain missing",
      () => ["--dependency-set", f.write("w.json", set([901]))],
      /missing from the dependency set: 902/,
    ],
    ["a missing file", () => ["--dependency-set", `${f.dir}/nope.json`], /does not exist/],
    ["a malformed file", () => ["--dependency-set", f.write("bad.json", '{"dependencies":[]}')], /keyed by chain ID/],
  ])("rejects %s", (_n, extra, re) => {
    const { config, messages } = load([...baseArgs(f, [901, 902]), ...extra()]);
    expect(config).toBeUndefined();
    expect(
      messages.some((m) => re.test(m)),
      messages.join("\n"),
    ).toBe(true);
  });
});
