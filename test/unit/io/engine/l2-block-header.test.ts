import { describe, expect, it } from "vitest";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import { headerFromRpcBlock, payloadFromRpcBlock } from "../../../../src/io/engine/l2-block.js";
import type { RollupConfig } from "../../../../src/protocol/rollup-config.js";

const cfgAt = (forks: Record<string, number>) =>
  ({
    genesis: { l1: {}, l2: { number: 0, hash: `0x${"00".repeat(32)}` }, l2_time: 0 },
    ...forks,
  }) as unknown as RollupConfig;
const ISTHMUS = cfgAt({ regolith_time: 0, canyon_time: 0, delta_time: 0, ecotone_time: 0, isthmus_time: 0 });
const BEDROCK = cfgAt({});
const h = (b: string) => `0x${b.repeat(32)}`;

function blockJson(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    number: "0x2a",
    hash: `0x${"AB".repeat(32)}`,
    parentHash: `0x${"CD".repeat(32)}`,
    mixHash: h("ef"),
    stateRoot: h("12"),
    receiptsRoot: h("34"),
    logsBloom: `0x${"00".repeat(256)}`,
    miner: `0x${"42".repeat(20)}`,
    gasLimit: "0x1c9c380",
    gasUsed: "0x5208",
    timestamp: "0x64",
    extraData: "0x01000000fa00000006",
    baseFeePerGas: "0x7",
    withdrawals: [],
    withdrawalsRoot: h("56"),
    blobGasUsed: "0x0",
    excessBlobGas: "0x0",
    parentBeaconBlockRoot: h("99"),
    transactions: [h("01"), `0x${"0A".repeat(32)}`],
    ...over,
  };
}

describe("headerFromRpcBlock: what consolidation reads of a block", () => {
  it("reads the compared fields, the ref's fields validated and lower-cased, transaction hashes as listed", () => {
    const hdr = headerFromRpcBlock(blockJson(), ISTHMUS);
    expect(hdr).toEqual({
      parentHash: h("cd"),
      feeRecipient: `0x${"42".repeat(20)}`,
      prevRandao: h("ef"),
      blockNumber: 42,
      gasLimit: 30_000_000n,
      timestamp: 100,
      extraData: "0x01000000fa00000006",
      blockHash: h("ab"),
      withdrawals: [],
      withdrawalsRoot: h("56"),
      transactionHashes: [h("01"), `0x${"0A".repeat(32)}`],
      parentBeaconBlockRoot: h("99"),
    });
    // The same fields as the whole-payload reading gives them.
    const p = payloadFromRpcBlock({ ...blockJson(), transactions: [] }, ISTHMUS).executionPayload;
    for (const k of [
      "parentHash",
      "blockHash",
      "blockNumber",
      "timestamp",
      "gasLimit",
      "withdrawals",
      "withdrawalsRoot",
    ] as const)
      expect(hdr[k]).toEqual(p[k]);
  });

  it("one object shape whatever the block carries; fork-dependent fields as the payload reading has them", () => {
    const bare = headerFromRpcBlock(
      blockJson({ withdrawals: undefined, withdrawalsRoot: null, parentBeaconBlockRoot: undefined }),
      BEDROCK,
    );
    expect(Object.keys(bare)).toEqual(Object.keys(headerFromRpcBlock(blockJson(), ISTHMUS)));
    expect(bare.withdrawals).toBeUndefined();
    expect(bare.withdrawalsRoot).toBeUndefined();
    expect(bare.parentBeaconBlockRoot).toBeUndefined();
    // Canyon without a withdrawals list: an empty one; before Isthmus no withdrawals root, as for payloads.
    const canyon = cfgAt({ regolith_time: 0, canyon_time: 0 });
    const c = headerFromRpcBlock(blockJson({ withdrawals: undefined }), canyon);
    expect(c.withdrawals).toEqual([]);
    expect(c.withdrawalsRoot).toBeUndefined();
  });

  it("a full block's transaction objects are read by their hash", () => {
    const hdr = headerFromRpcBlock(blockJson({ transactions: [{ hash: h("07"), type: "0x7e" }] }), ISTHMUS);
    expect(hdr.transactionHashes).toEqual([h("07")]);
  });

  it("rejects a block whose ref fields or transaction list are malformed", () => {
    for (const bad of [
      { hash: "0x1234" },
      { parentHash: `0x${"zz".repeat(32)}` },
      { number: "42" },
      { timestamp: null },
      { gasLimit: "0x" },
      { transactions: [42] },
      { transactions: "0x" },
      { mixHash: 7 },
    ]) {
      expect(() => headerFromRpcBlock(blockJson(bad), ISTHMUS), JSON.stringify(bad)).toThrow(DecodeError);
    }
  });

  it("a malformed compared field is read as written (it can only mismatch: the whole block then decides)", () => {
    expect(headerFromRpcBlock(blockJson({ mixHash: "0xnot-hex" }), ISTHMUS).prevRandao).toBe("0xnot-hex");
  });
});
