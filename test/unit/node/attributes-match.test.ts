import { describe, expect, it } from "vitest";
import type { Hex } from "../../../src/core/types/primitives.js";
import {
  AttributesTxHashes,
  attributesMatchBlock,
  attributesMatchHeader,
} from "../../../src/node/engine/attributes-match.js";
import type {
  AttributesFields,
  ExecutionPayloadEnvelope,
  L2BlockHeader,
  PayloadAttributes,
} from "../../../src/node/ports.js";
import { keccakHex } from "../../../src/protocol/block/keccak.js";
import { hexToBytes } from "../../../src/core/codec/hex.js";
import { attributesFromHex } from "../../../src/protocol/l2/attributes.js";
import { encodeHoloceneExtraData, encodeJovianExtraData } from "../../../src/protocol/l2/extra-data.js";
import { GENESIS_TIME, h, testRollupConfig } from "./fakes.js";

/** The extraData part of AttributesMatchBlock, decoded through `protocol/l2/extra-data.ts`. */
const holocene = testRollupConfig({
  canyon_time: 0,
  ecotone_time: 0,
  fjord_time: 0,
  granite_time: 0,
  holocene_time: 0,
  chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
});
const jovian = testRollupConfig({ ...holocene, isthmus_time: 0, jovian_time: 0 });
const ts = GENESIS_TIME + 2;

function attrs(over: Partial<AttributesFields & { transactions: Hex[] }> = {}): PayloadAttributes {
  const { transactions = ["0x7e01"], ...fields } = over;
  return attributesFromHex(
    {
      timestamp: ts,
      prevRandao: h("randao"),
      suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
      withdrawals: [],
      parentBeaconBlockRoot: h("beacon"),
      noTxPool: true,
      gasLimit: 30_000_000n,
      eip1559Params: "0x0000000000000000",
      ...fields,
    },
    transactions,
  );
}

function block(extraData: Hex, isthmus = false): ExecutionPayloadEnvelope {
  return {
    executionPayload: {
      parentHash: h("parent"),
      feeRecipient: "0x4200000000000000000000000000000000000011",
      stateRoot: h("state"),
      prevRandao: h("randao"),
      blockNumber: 1,
      gasLimit: 30_000_000n,
      timestamp: ts,
      extraData,
      blockHash: h("block"),
      transactions: ["0x7e01"],
      withdrawals: [],
      ...(isthmus ? { withdrawalsRoot: h("wroot") } : {}),
    },
    parentBeaconBlockRoot: h("beacon"),
  };
}

describe("attributesMatchBlock extraData (Holocene/Jovian)", () => {
  it("accepts zero eip1559Params as the chain's Canyon constants and explicit params as given", () => {
    expect(attributesMatchBlock(holocene, attrs(), h("parent"), block(encodeHoloceneExtraData(250, 6)))).toBe(
      undefined,
    );
    const explicit = attrs({ eip1559Params: "0x0000000800000002" });
    expect(attributesMatchBlock(holocene, explicit, h("parent"), block(encodeHoloceneExtraData(8, 2)))).toBe(undefined);
  });

  it("reports differing params, wrong version, malformed extraData and bad attributes", () => {
    expect(attributesMatchBlock(holocene, attrs(), h("parent"), block(encodeHoloceneExtraData(8, 2)))).toMatch(
      /eip1559 params differ: block \(8,2\) vs attributes \(250,6\)/,
    );
    expect(attributesMatchBlock(holocene, attrs(), h("parent"), block(encodeJovianExtraData(250, 6, 1n)))).toMatch(
      /wrong version/,
    );
    expect(attributesMatchBlock(holocene, attrs(), h("parent"), block("0x00000000fa"))).toMatch(/extraData invalid/);
    expect(attributesMatchBlock(holocene, attrs({ eip1559Params: "0x00000000" }), h("parent"), block("0x"))).toMatch(
      /eip1559Params must be 8 bytes/,
    );
    expect(
      attributesMatchBlock(holocene, attrs({ eip1559Params: "0x0000000000000006" }), h("parent"), block("0x")),
    ).toMatch(/zero denominator/);
  });

  it("checks the Jovian minimum base fee", () => {
    const a = attrs({ minBaseFee: 7n });
    expect(attributesMatchBlock(jovian, a, h("parent"), block(encodeJovianExtraData(250, 6, 7n), true))).toBe(
      undefined,
    );
    expect(attributesMatchBlock(jovian, a, h("parent"), block(encodeJovianExtraData(250, 6, 8n), true))).toMatch(
      /minBaseFee differs/,
    );
    expect(attributesMatchBlock(jovian, a, h("parent"), block(encodeHoloceneExtraData(250, 6), true))).toMatch(
      /wrong version/,
    );
  });

  it("requires empty extraData when the attributes carry no eip1559Params (pre-Holocene)", () => {
    const pre = testRollupConfig({ canyon_time: 0 });
    expect(attributesMatchBlock(pre, attrs({ eip1559Params: undefined }), h("parent"), block("0x"))).toBe(undefined);
    expect(attributesMatchBlock(pre, attrs({ eip1559Params: undefined }), h("parent"), block("0x01"))).toMatch(
      /unexpected extraData/,
    );
  });
});

/** The block read without its transactions: header fields and the transactions' keccak256 hashes. */
function header(env: ExecutionPayloadEnvelope, txs: readonly Hex[]): L2BlockHeader {
  const { transactions: _, ...fields } = env.executionPayload;
  return {
    ...fields,
    transactionHashes: txs.map((t) => keccakHex(hexToBytes(t))),
    parentBeaconBlockRoot: env.parentBeaconBlockRoot,
  };
}

describe("attributesMatchHeader (transactions compared by hash)", () => {
  const txs: Hex[] = ["0x7e01", "0x02f8aa", "0x01c0"];
  const a = attrs({ transactions: txs });
  const env = block(encodeHoloceneExtraData(250, 6));

  it("matches when every transaction hash is the hash of the attributes' transaction", () => {
    expect(attributesMatchHeader(holocene, new AttributesTxHashes(a), h("parent"), header(env, txs))).toBe(undefined);
    // Upper-case hex in the block's hashes is the same hash.
    const upper = header(env, txs);
    const hdr = { ...upper, transactionHashes: upper.transactionHashes.map((x) => `0x${x.slice(2).toUpperCase()}`) };
    expect(attributesMatchHeader(holocene, new AttributesTxHashes(a), h("parent"), hdr as L2BlockHeader)).toBe(
      undefined,
    );
  });

  it("compares the hex fields in either case, and a different value of the same length still differs", () => {
    const up = (x: string) => `0x${x.slice(2).toUpperCase()}` as Hex;
    const p = env.executionPayload;
    const mixed = { ...header(env, txs), parentHash: up(p.parentHash), prevRandao: up(p.prevRandao) };
    mixed.feeRecipient = up(p.feeRecipient);
    expect(attributesMatchHeader(holocene, new AttributesTxHashes(a), h("parent"), mixed)).toBe(undefined);
    const flipped = `${p.prevRandao.slice(0, -1)}${p.prevRandao.endsWith("0") ? "1" : "0"}` as Hex;
    expect(
      attributesMatchHeader(holocene, new AttributesTxHashes(a), h("parent"), { ...mixed, prevRandao: flipped }),
    ).toBe("prevRandao differs");
  });

  it("reports the first differing transaction, a differing count, and the other fields as for a payload", () => {
    const other: Hex[] = ["0x7e01", "0x02f8ab", "0x01c0"];
    expect(attributesMatchHeader(holocene, new AttributesTxHashes(a), h("parent"), header(env, other))).toBe(
      "transaction 1 differs",
    );
    expect(attributesMatchHeader(holocene, new AttributesTxHashes(a), h("parent"), header(env, txs.slice(0, 2)))).toBe(
      "transaction count differs: 2 vs 3",
    );
    expect(attributesMatchHeader(holocene, new AttributesTxHashes(a), h("other"), header(env, txs))).toMatch(
      /parent hash differs/,
    );
    const env2 = block(encodeHoloceneExtraData(8, 2));
    expect(attributesMatchHeader(holocene, new AttributesTxHashes(a), h("parent"), header(env2, txs))).toBe(
      attributesMatchBlock(holocene, a, h("parent"), {
        ...env2,
        executionPayload: { ...env2.executionPayload, transactions: txs },
      }),
    );
  });

  it("hashes each attribute transaction once, and only as far as the comparison goes", () => {
    const hashes = new AttributesTxHashes(a);
    const wrongFirst = header(env, ["0x7e02", ...txs.slice(1)]);
    expect(attributesMatchHeader(holocene, hashes, h("parent"), wrongFirst)).toBe("transaction 0 differs");
    expect(hashes.at(0)).toBe(keccakHex(hexToBytes("0x7e01")));
    expect(hashes.at(2)).toBe(keccakHex(hexToBytes("0x01c0")));
  });
});

describe("AttributesTxHashes", () => {
  it("hashes the attributes' transaction bytes, compared with a hash in either case", () => {
    const a = attrs({ transactions: ["0x7e01", "0x02f8aa"] });
    const hashes = new AttributesTxHashes(a);
    expect(hashes.count).toBe(2);
    expect(hashes.at(1)).toBe(keccakHex(hexToBytes("0x02f8aa")));
    expect(hashes.matches(1, keccakHex(hexToBytes("0x02f8aa")).toUpperCase().replace("0X", "0x"))).toBe(true);
    expect(hashes.matches(1, keccakHex(hexToBytes("0x02f8ab")))).toBe(false);
    expect(hashes.matches(1, "0x12")).toBe(false);
  });
});
