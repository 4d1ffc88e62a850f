import { describe, expect, it } from "vitest";
import type { Hash } from "../../../../src/core/types/primitives.js";
import { type ExecutingMessage, expectedLogHash } from "../../../../src/protocol/interop/messages.js";
import {
  checkExecutingMessage,
  chainsInCycles,
  type InitiatingLog,
  type MessageRuleParams,
  type SameTimestampMessage,
  stronglyConnected,
} from "../../../../src/protocol/interop/rules.js";

const ACT = 1000;
const params: MessageRuleParams = {
  dependencySet: new Set(["901", "902"]),
  activationTimestamp: ACT,
  expiryWindow: 604_800,
  blockTime: (id) => (id === 901n ? 2 : 1),
};
const origin = "0x1111111111111111111111111111111111111111" as const;
const payloadHash: Hash = `0x${"ab".repeat(32)}`;
const message = (over: Partial<ExecutingMessage["id"]> = {}): ExecutingMessage => ({
  id: { origin, blockNumber: 50, logIndex: 3, timestamp: 1100, chainId: 901n, ...over },
  payloadHash,
});
const good: InitiatingLog = { logHash: expectedLogHash(message()), blockTimestamp: 1100 };

describe("checkExecutingMessage", () => {
  it.each<[string, ExecutingMessage, number, InitiatingLog | undefined, string | undefined]>([
    ["valid, older initiating message", message(), 1200, good, undefined],
    ["valid, same timestamp", message(), 1100, good, undefined],
    ["source chain outside the dependency set", message({ chainId: 903n }), 1200, good, "unknown-chain"],
    ["executing block at activation (too early)", message({ timestamp: ACT }), ACT, good, "executing-too-early"],
    [
      "executing at activation + own block time is fine",
      message({ timestamp: ACT + 2 }),
      ACT + 1,
      { ...good, blockTimestamp: ACT + 2 },
      "initiating-in-future",
    ],
    [
      "initiating block before activation + its block time",
      message({ timestamp: ACT + 1 }),
      1200,
      good,
      "initiating-too-early",
    ],
    [
      "initiating at activation + its block time",
      message({ timestamp: ACT + 2 }),
      1200,
      { ...good, blockTimestamp: ACT + 2 },
      undefined,
    ],
    ["initiating after executing", message({ timestamp: 1201 }), 1200, good, "initiating-in-future"],
    ["exactly at the expiry boundary", message(), 1100 + 604_800, good, undefined],
    ["one second past expiry", message(), 1100 + 604_801, good, "expired"],
    ["initiating log not found", message(), 1200, undefined, "initiating-not-found"],
    [
      "initiating block has another timestamp",
      message(),
      1200,
      { ...good, blockTimestamp: 1098 },
      "timestamp-mismatch",
    ],
    ["payload hash differs", message(), 1200, { ...good, logHash: `0x${"00".repeat(32)}` }, "hash-mismatch"],
    [
      "origin differs (log hash differs)",
      { ...message(), id: { ...message().id, origin: `0x${"22".repeat(20)}` } },
      1200,
      good,
      "hash-mismatch",
    ],
  ])("%s", (_n, m, execTs, found, want) => {
    const asked: [bigint, number, number][] = [];
    const got = checkExecutingMessage(params, 902n, execTs, m, (c, b, i) => {
      asked.push([c, b, i]);
      return found;
    });
    expect(got).toBe(want);
    if (asked.length > 0) expect(asked).toEqual([[m.id.chainId, m.id.blockNumber, m.id.logIndex]]);
  });

  it("does not look up the log when a cheaper rule already fails", () => {
    let asked = false;
    checkExecutingMessage(params, 902n, 1200, message({ chainId: 5n }), () => {
      asked = true;
      return good;
    });
    expect(asked).toBe(false);
  });
});

const node = (
  chainId: string,
  logIndex: number,
  sourceChainId: string,
  sourceLogIndex: number,
): SameTimestampMessage => ({
  chainId,
  logIndex,
  sourceChainId,
  sourceLogIndex,
});

describe("chainsInCycles", () => {
  it.each<[string, SameTimestampMessage[], string[]]>([
    ["no nodes", [], []],
    ["A reads an initiating log of B emitted after nothing", [node("1", 0, "2", 5)], []],
    ["A and B read each other's earlier logs (no cycle)", [node("1", 5, "2", 0), node("2", 5, "1", 0)], []],
    [
      "A reads B's log 1 which B emits after reading A's log 1: cycle",
      [node("1", 0, "2", 1), node("2", 0, "1", 1)],
      ["1", "2"],
    ],
    ["a message reading a later log of its own block", [node("1", 2, "1", 4)], ["1"]],
    ["a message reading an earlier log of its own block", [node("1", 4, "1", 2)], []],
    [
      "a three-chain cycle; a fourth chain only depends on it",
      [node("1", 0, "2", 1), node("2", 0, "3", 1), node("3", 0, "1", 1), node("4", 0, "1", 1)],
      ["1", "2", "3"],
    ],
    [
      "a chain the cycle depends on is not blamed",
      [node("1", 1, "2", 1), node("2", 0, "1", 5), node("3", 0, "9", 0), node("1", 0, "3", 0)],
      ["1", "2"],
    ],
    [
      "ordering within a block: the second message waits for the first",
      [node("1", 0, "2", 0), node("1", 1, "2", 2), node("2", 1, "1", 0)],
      [],
    ],
  ])("%s", (_n, nodes, want) => {
    expect(chainsInCycles(nodes)).toEqual(want);
  });

  it("sorts chain IDs numerically", () => {
    expect(chainsInCycles([node("10", 0, "9", 1), node("9", 0, "10", 1)])).toEqual(["9", "10"]);
  });
});

describe("stronglyConnected", () => {
  it("finds components of a long chain without recursion", () => {
    const n = 50_000;
    const edges = Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : [0]));
    const sccs = stronglyConnected(edges);
    expect(sccs).toHaveLength(1);
    expect(sccs[0]).toHaveLength(n);
    const line = Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : []));
    expect(stronglyConnected(line)).toHaveLength(n);
  });
});
