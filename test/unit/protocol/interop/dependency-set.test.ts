import { describe, expect, it } from "vitest";
import {
  DEFAULT_MESSAGE_EXPIRY_WINDOW,
  makeDependencySet,
  parseDependencySet,
  sameDependencySet,
} from "../../../../src/protocol/interop/dependency-set.js";

describe("parseDependencySet", () => {
  it.each<[string, string, bigint[], number]>([
    ["two chains, default window", '{"dependencies":{"902":{},"901":{}}}', [901n, 902n], 604_800],
    ["window override", '{"dependencies":{"10":{}},"overrideMessageExpiryWindow":3600}', [10n], 3600],
    ["override 0 means the default", '{"dependencies":{"10":{}},"overrideMessageExpiryWindow":0}', [10n], 604_800],
    [
      "entries may carry fields (older format)",
      '{"dependencies":{"900":{"chainIndex":900,"activationTime":0,"historyMinTime":0}}}',
      [900n],
      604_800,
    ],
  ])("%s", (_n, text, ids, window) => {
    expect(parseDependencySet(text)).toEqual({ chainIds: ids, messageExpiryWindow: window });
  });

  it.each<[string, string, RegExp]>([
    ["not JSON", "{", /not JSON/],
    ["an array", "[]", /must be a JSON object/],
    ["no dependencies", "{}", /"dependencies" must be an object/],
    ["empty", '{"dependencies":{}}', /no chains/],
    ["hex chain ID", '{"dependencies":{"0x10":{}}}', /not a decimal/],
    ["leading zero", '{"dependencies":{"010":{}}}', /not a decimal/],
    ["chain 0", '{"dependencies":{"0":{}}}', /chain ID 0/],
    ["entry not an object", '{"dependencies":{"10":1}}', /must be an object/],
    ["negative window", '{"dependencies":{"10":{}},"overrideMessageExpiryWindow":-1}', /non-negative/],
    ["fractional window", '{"dependencies":{"10":{}},"overrideMessageExpiryWindow":1.5}', /non-negative/],
    ["unknown field", '{"dependencies":{"10":{}},"extra":1}', /unknown field "extra"/],
  ])("rejects %s", (_n, text, re) => {
    expect(() => parseDependencySet(text)).toThrow(re);
  });
});

describe("dependency set helpers", () => {
  it("dedupes and sorts; compares chains and window", () => {
    const a = makeDependencySet([902n, 901n, 902n]);
    expect(a).toEqual({ chainIds: [901n, 902n], messageExpiryWindow: DEFAULT_MESSAGE_EXPIRY_WINDOW });
    expect(sameDependencySet(a, makeDependencySet([901n, 902n]))).toBe(true);
    expect(sameDependencySet(a, makeDependencySet([901n, 902n], 60))).toBe(false);
    expect(sameDependencySet(a, makeDependencySet([901n]))).toBe(false);
    expect(sameDependencySet(a, makeDependencySet([901n, 903n]))).toBe(false);
  });
});
