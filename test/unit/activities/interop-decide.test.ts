import { describe, expect, it } from "vitest";
import {
  decideRound,
  isEmptyResult,
  planRewind,
  type RoundObservation,
  type VerificationResult,
} from "../../../src/activities/interop/decide.js";

const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as const;
const empty: VerificationResult = { timestamp: 100, l2Heads: {}, invalidHeads: {} };
const valid: VerificationResult = {
  timestamp: 100,
  l1Inclusion: { hash: h(1), number: 1 },
  l2Heads: { "10": { hash: h(2), number: 5 } },
  invalidHeads: {},
};
const invalid: VerificationResult = {
  ...valid,
  invalidHeads: { "10": { hash: h(2), number: 5, stateRoot: h(3), messagePasserStorageRoot: h(4) } },
};
const ok: RoundObservation = { paused: false, chainsReady: true, verifiedL1Canonical: true, frontierL1Canonical: true };

describe("decideRound", () => {
  it.each([
    ["paused", { ...ok, paused: true }, valid, { kind: "wait", reason: "paused" }, false],
    [
      "paused wins over everything",
      { paused: true, chainsReady: false, verifiedL1Canonical: false, frontierL1Canonical: false },
      invalid,
      { kind: "wait", reason: "paused" },
      false,
    ],
    ["chains not ready", { ...ok, chainsReady: false }, valid, { kind: "wait", reason: "chains-not-ready" }, false],
    [
      "not ready wins over L1 inconsistency",
      { ...ok, chainsReady: false, verifiedL1Canonical: false },
      valid,
      { kind: "wait", reason: "chains-not-ready" },
      false,
    ],
    ["verified L1 inclusion reorged out", { ...ok, verifiedL1Canonical: false }, valid, { kind: "rewind" }, false],
    [
      "stale frontier L1 head only",
      { ...ok, frontierL1Canonical: false },
      valid,
      { kind: "wait", reason: "frontier-l1-stale" },
      false,
    ],
    [
      "rewind wins over a stale frontier",
      { ...ok, verifiedL1Canonical: false, frontierL1Canonical: false },
      valid,
      { kind: "rewind" },
      false,
    ],
    ["empty result", ok, empty, { kind: "wait", reason: "empty-result" }, true],
    ["an invalid head", ok, invalid, { kind: "invalidate", result: invalid }, true],
    ["all valid", ok, valid, { kind: "advance", result: valid }, true],
  ] as const)("%s", async (_name, obs, result, expected, verifies) => {
    let called = false;
    const d = await decideRound(obs, async () => {
      called = true;
      return result;
    });
    expect(d).toEqual(expected);
    expect(called).toBe(verifies);
  });
});

describe("isEmptyResult", () => {
  it("ignores the timestamp and counts L1 inclusion, heads and invalid heads", () => {
    expect(isEmptyResult(empty)).toBe(true);
    expect(isEmptyResult({ ...empty, l1Inclusion: { hash: h(0), number: 0 } })).toBe(false);
    expect(isEmptyResult({ ...empty, l2Heads: { "1": { hash: h(1), number: 1 } } })).toBe(false);
    expect(isEmptyResult({ ...empty, invalidHeads: invalid.invalidHeads })).toBe(false);
  });
});

describe("planRewind", () => {
  const acc = (flags: boolean[]) => flags.map((l1Canonical, i) => ({ timestamp: 1000 + i, l1Canonical }));
  it.each([
    [[], { kind: "none" }],
    [[true, true, true], { kind: "none" }],
    [[false], { kind: "rewind", rewindAtOrAfter: 1000 }],
    [[true, true, false], { kind: "rewind", rewindAtOrAfter: 1002 }],
    [[true, false, false, false], { kind: "rewind", rewindAtOrAfter: 1001 }],
    [[false, false], { kind: "rewind", rewindAtOrAfter: 1000 }],
  ] as const)("%j → %j", (flags, plan) => {
    expect(planRewind(acc([...flags]))).toEqual(plan);
  });

  it("finds the first non-canonical timestamp in long histories", () => {
    for (const cut of [0, 1, 500, 998, 999]) {
      const flags = Array.from({ length: 1000 }, (_, i) => i < cut);
      expect(planRewind(acc(flags))).toEqual({ kind: "rewind", rewindAtOrAfter: 1000 + cut });
    }
  });
});
