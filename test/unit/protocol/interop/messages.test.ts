import { concat, encodeAbiParameters, encodePacked, keccak256, toBytes, toHex } from "viem";
import { describe, expect, it } from "vitest";
import type { Log } from "../../../../src/protocol/block/receipt.js";
import {
  blockLogs,
  CROSS_L2_INBOX,
  decodeLog,
  EXECUTING_MESSAGE_TOPIC,
  type ExecutingMessage,
  encodeExecutingMessageLog,
  expectedLogHash,
  logHash,
  messageChecksum,
} from "../../../../src/protocol/interop/messages.js";

const origin = "0x1111111111111111111111111111111111111111" as const;
const msg: ExecutingMessage = {
  id: { origin, blockNumber: 12_345, logIndex: 7, timestamp: 1_700_000_123, chainId: 902n },
  payloadHash: `0x${"ab".repeat(32)}`,
};
const word = (v: bigint) => toHex(v, { size: 32 }).slice(2);

/** The event as a Solidity emitter would ABI-encode it (viem: an independent encoder). */
function abiLog(m: ExecutingMessage): Log {
  const data = encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { type: "address" },
          { type: "uint256" },
          { type: "uint256" },
          { type: "uint256" },
          { type: "uint256" },
        ],
      },
    ],
    [[m.id.origin, BigInt(m.id.blockNumber), BigInt(m.id.logIndex), BigInt(m.id.timestamp), m.id.chainId]],
  );
  return { address: CROSS_L2_INBOX, topics: [EXECUTING_MESSAGE_TOPIC, m.payloadHash], data };
}

describe("ExecutingMessage event", () => {
  it("has the topic of its signature", () => {
    expect(EXECUTING_MESSAGE_TOPIC).toBe(
      keccak256(toBytes("ExecutingMessage(bytes32,(address,uint256,uint256,uint256,uint256))")),
    );
    expect(EXECUTING_MESSAGE_TOPIC).toBe("0x5c37832d2e8d10e346e55ad62071a6a2f9fa5130614ef2ec6617555c6f467ba7");
  });

  it("decodes the ABI layout and encodes it back byte for byte", () => {
    const log = abiLog(msg);
    expect(decodeLog(log)).toEqual({ kind: "executing", message: msg });
    expect(encodeExecutingMessageLog(msg)).toEqual(log);
  });

  const base = abiLog(msg);
  const withWord = (i: number, w: string): Log => {
    const hex = base.data.slice(2);
    return { ...base, data: `0x${hex.slice(0, i * 64)}${w}${hex.slice((i + 1) * 64)}` };
  };
  it.each<[string, Log, string]>([
    ["another emitter", { ...base, address: "0x4200000000000000000000000000000000000023" }, "plain"],
    ["another topic0", { ...base, topics: [`0x${"00".repeat(32)}`, msg.payloadHash] }, "plain"],
    ["one topic", { ...base, topics: [EXECUTING_MESSAGE_TOPIC] }, "plain"],
    ["three topics", { ...base, topics: [EXECUTING_MESSAGE_TOPIC, msg.payloadHash, msg.payloadHash] }, "plain"],
    ["159 bytes of data", { ...base, data: base.data.slice(0, -2) as `0x${string}` }, "malformed"],
    ["192 bytes of data", { ...base, data: `${base.data}${"00".repeat(32)}` as `0x${string}` }, "malformed"],
    ["origin wider than 20 bytes", withWord(0, `01${"00".repeat(11)}${origin.slice(2)}`), "malformed"],
    ["block number over uint64", withWord(1, word(1n << 64n)), "malformed"],
    ["log index over uint32", withWord(2, word(1n << 32n)), "malformed"],
    ["timestamp over uint64", withWord(3, word(1n << 64n)), "malformed"],
    ["a uint64-max block number is malformed here (past 2^53)", withWord(1, word((1n << 64n) - 1n)), "malformed"],
    [
      "upper-case inbox address",
      { ...base, address: CROSS_L2_INBOX.toUpperCase().replace("0X", "0x") as `0x${string}` },
      "executing",
    ],
  ])("%s → %s", (_n, log, kind) => {
    expect(decodeLog(log).kind).toBe(kind);
  });

  it("accepts a full 256-bit chain ID", () => {
    const big = (1n << 255n) + 5n;
    const d = decodeLog(withWord(4, word(big)));
    expect(d.kind === "executing" && d.message.id.chainId).toBe(big);
  });
});

describe("log hash and checksum", () => {
  const plain: Log = {
    address: "0x2222222222222222222222222222222222222222",
    topics: [`0x${"01".repeat(32)}`, `0x${"02".repeat(32)}`],
    data: "0xdeadbeef",
  };
  it("hashes keccak(address ‖ keccak(topics ‖ data))", () => {
    const payloadHash = keccak256(concat([...plain.topics, plain.data]));
    expect(logHash(plain)).toBe(keccak256(concat([plain.address, payloadHash])));
  });

  it("an executing message expects keccak(origin ‖ payloadHash)", () => {
    expect(expectedLogHash(msg)).toBe(keccak256(concat([origin, msg.payloadHash])));
  });

  it("matches the packed-identifier checksum", () => {
    const lh = expectedLogHash(msg);
    const packed = encodePacked(
      ["bytes12", "uint64", "uint64", "uint32"],
      [`0x${"00".repeat(12)}`, BigInt(msg.id.blockNumber), BigInt(msg.id.timestamp), msg.id.logIndex],
    );
    const h = keccak256(concat([lh, packed]));
    const out = keccak256(concat([h, toHex(msg.id.chainId, { size: 32 })]));
    const want = `0x03${out.slice(4)}`;
    expect(messageChecksum(msg.id, lh)).toBe(want);
    // Every field takes part.
    for (const changed of [
      { ...msg.id, blockNumber: 1 },
      { ...msg.id, timestamp: 1 },
      { ...msg.id, logIndex: 1 },
      { ...msg.id, chainId: 1n },
    ]) {
      expect(messageChecksum(changed, lh)).not.toBe(want);
    }
  });

  it("numbers logs across receipts and classifies them", () => {
    const logs = blockLogs([{ logs: [plain] }, { logs: [] }, { logs: [abiLog(msg), { ...abiLog(msg), data: "0x" }] }]);
    expect(logs).toHaveLength(3);
    expect(logs[0]).toEqual({ hash: logHash(plain) });
    expect(logs[1]?.executing).toEqual(msg);
    expect(logs[2]?.malformed).toMatch(/160 bytes/);
  });
});
