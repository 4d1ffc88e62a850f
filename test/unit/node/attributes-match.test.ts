import { describe, expect, it } from "vitest";
import type { Hex } from "../../../src/core/types/primitives.js";
import { attributesMatchBlock } from "../../../src/node/engine/attributes-match.js";
import type { ExecutionPayloadEnvelope, PayloadAttributes } from "../../../src/node/ports.js";
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

function attrs(over: Partial<PayloadAttributes> = {}): PayloadAttributes {
  return {
    timestamp: ts,
    prevRandao: h("randao"),
    suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
    withdrawals: [],
    parentBeaconBlockRoot: h("beacon"),
    transactions: ["0x7e01"],
    noTxPool: true,
    gasLimit: 30_000_000n,
    eip1559Params: "0x0000000000000000",
    ...over,
  };
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
