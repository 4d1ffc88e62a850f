import { describe, expect, it } from "vitest";
import { DecodeError } from "../../../src/core/errors/supernode-error.js";
import type { Hex } from "../../../src/core/types/primitives.js";
import { l2RefFromPayload, systemConfigFromPayload } from "../../../src/node/derivation/l2-block.js";
import type { ExecutionPayloadEnvelope } from "../../../src/node/ports.js";
import { encodeEcotoneScalars, encodeOperatorFeeParams } from "../../../src/protocol/l1/fee-scalars.js";
import { encodeDepositTxHex } from "../../../src/protocol/l2/deposit-tx.js";
import { encodeJovianExtraData } from "../../../src/protocol/l2/extra-data.js";
import { l1InfoDepositTx } from "../../../src/protocol/l2/l1-info.js";
import type { SystemConfig } from "../../../src/protocol/rollup-config.js";
import { EVERY_FORK_AT_GENESIS } from "../../support/fork-times.js";
import { GENESIS_TIME, h, testRollupConfig } from "./fakes.js";

/** The node reads payloads through `protocol/l2/block-ref.ts` (l2-block.ts only adapts the payload shape). */
const cfg = testRollupConfig({
  ...EVERY_FORK_AT_GENESIS,
});
const sys: SystemConfig = {
  ...cfg.genesis.system_config,
  scalar: encodeEcotoneScalars({ baseFeeScalar: 1368, blobBaseFeeScalar: 810949 }),
  eip1559Params: "0x000000fa00000006",
  operatorFeeParams: encodeOperatorFeeParams({ scalar: 5, constant: 77n }),
  minBaseFee: 1000n,
  daFootprintGasScalar: 600,
};
const origin = { number: 7, hash: h("l1-7"), time: GENESIS_TIME - 10, baseFee: 9n, blobBaseFee: 1n, mixHash: h("mix") };
const ts = GENESIS_TIME + 4;

function payload(extraData: Hex, number = 2): ExecutionPayloadEnvelope {
  return {
    executionPayload: {
      parentHash: h("p"),
      feeRecipient: "0x4200000000000000000000000000000000000011",
      stateRoot: h("s"),
      prevRandao: h("mix"),
      blockNumber: number,
      gasLimit: sys.gasLimit,
      timestamp: ts,
      extraData,
      blockHash: h(`b${number}`),
      transactions: [encodeDepositTxHex(l1InfoDepositTx(cfg, sys, origin, 3, ts))],
    },
  };
}

describe("L2 payload → block ref and SystemConfig (protocol/l2)", () => {
  it("reads l1origin, sequence number and the Jovian SystemConfig", () => {
    const env = payload(encodeJovianExtraData(250, 6, 1000n));
    expect(l2RefFromPayload(cfg, env)).toMatchObject({
      number: 2,
      l1origin: { hash: origin.hash, number: 7 },
      sequenceNumber: 3,
      timestamp: ts,
    });
    expect(systemConfigFromPayload(cfg, env)).toEqual(sys);
  });

  it("genesis comes from the rollup config; malformed Holocene extraData is a DecodeError", () => {
    const g = payload("0x", 0);
    const genesis = { ...g, executionPayload: { ...g.executionPayload, blockHash: cfg.genesis.l2.hash } };
    expect(l2RefFromPayload(cfg, genesis)).toMatchObject({ l1origin: cfg.genesis.l1, sequenceNumber: 0 });
    expect(systemConfigFromPayload(cfg, genesis)).toBe(cfg.genesis.system_config);
    expect(() => systemConfigFromPayload(cfg, payload("0x"))).toThrow(DecodeError);
  });
});

describe("L2 block refs: one shape from every producer", () => {
  it("payload reads, genesis, consolidated headers and the all-zero ref have the same fields in the same order", async () => {
    const { genesisL2Ref, ZERO_L2_REF } = await import("../../../src/node/engine/heads.js");
    const { existingBlockRef } = await import("../../../src/node/engine/existing-block.js");
    const { ZERO_SYNC_STATUS } = await import("../../../src/activities/sync-status.js");
    const fromPayload = l2RefFromPayload(cfg, payload(encodeJovianExtraData(250, 6, 1000n)));
    // The config's L1 genesis object may carry more fields (or another field order): the ref copies hash and number.
    const genesisCfg = { ...cfg, genesis: { ...cfg.genesis, l1: { number: 0, extra: 1, hash: h("l1-0") } } };
    const genesis = genesisL2Ref(genesisCfg as typeof cfg);
    const header = existingBlockRef(
      { header: { blockHash: h("b"), blockNumber: 2, parentHash: h("p"), timestamp: ts } as never },
      { l1origin: { hash: h("o"), number: 7 }, sequenceNumber: 3 },
      () => {
        throw new Error("not used for a header");
      },
    );
    const shape = (r: object) => [Object.keys(r), Object.keys((r as { l1origin: object }).l1origin)];
    const want = [
      ["hash", "number", "parentHash", "timestamp", "l1origin", "sequenceNumber"],
      ["hash", "number"],
    ];
    for (const r of [fromPayload, genesis, header, ZERO_L2_REF, ZERO_SYNC_STATUS.safe_l2])
      expect(shape(r)).toEqual(want);
    expect(genesis.l1origin).toEqual({ hash: h("l1-0"), number: 0 });
    expect(header).toEqual({
      hash: h("b"),
      number: 2,
      parentHash: h("p"),
      timestamp: ts,
      l1origin: { hash: h("o"), number: 7 },
      sequenceNumber: 3,
    });
  });
});
