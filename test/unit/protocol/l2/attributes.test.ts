import { describe, expect, it } from "vitest";
import { hexToBytes } from "../../../../src/core/codec/hex.js";
import { DecodeError, ResetError } from "../../../../src/core/errors/supernode-error.js";
import type { L2BlockRef } from "../../../../src/core/types/block-ref.js";
import type { Hash } from "../../../../src/core/types/primitives.js";
import { encodeEcotoneScalars, encodeOperatorFeeParams } from "../../../../src/protocol/l1/fee-scalars.js";
import { l1InfoDepositSourceHash } from "../../../../src/protocol/l1/source-hash.js";
import {
  buildPayloadAttributes,
  payloadAttributesToJson,
  type BuildAttributesInput,
  type PayloadAttributes,
  SEQUENCER_FEE_VAULT,
  transactionsHex,
} from "../../../../src/protocol/l2/attributes.js";
import { l2BlockToBlockRef, systemConfigFromL2Block } from "../../../../src/protocol/l2/block-ref.js";
import { decodeDepositTx } from "../../../../src/protocol/l2/deposit-tx.js";
import {
  decodeExtraData,
  encodeHoloceneExtraData,
  encodeJovianExtraData,
  extraDataForAttributes,
  extraDataRejection,
} from "../../../../src/protocol/l2/extra-data.js";
import type { L1OriginInfo } from "../../../../src/protocol/l2/l1-info.js";
import {
  ecotoneUpgradeDeposits,
  fjordUpgradeDeposits,
  isthmusUpgradeDeposits,
  jovianUpgradeDeposits,
  upgradeTransactionsAt,
} from "../../../../src/protocol/l2/upgrade-txs.js";
import type { RollupConfig, SystemConfig } from "../../../../src/protocol/rollup-config.js";
import { loadNutBundle } from "../../../../src/config/nut-bundles.js";

const nutBundles = { lagoon: loadNutBundle("lagoon") };

/** The attributes' fields with their transactions as hex (what the assertions read). */
const flat = (a: PayloadAttributes) => ({ ...a.fields, transactions: transactionsHex(a) });
const build = (input: BuildAttributesInput) => flat(buildPayloadAttributes(input));

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;
const sys: SystemConfig = {
  batcherAddr: "0x6887246668a3b87f54deb3b94ba47a6f63f32985",
  overhead: h(0),
  scalar: encodeEcotoneScalars({ baseFeeScalar: 1368, blobBaseFeeScalar: 810949 }),
  gasLimit: 60_000_000n,
  eip1559Params: "0x000000fa00000006",
  operatorFeeParams: encodeOperatorFeeParams({ scalar: 5, constant: 77n }),
  minBaseFee: 1000n,
  daFootprintGasScalar: 0,
};
function cfgWith(forks: Partial<RollupConfig>): RollupConfig {
  return {
    genesis: {
      l1: { hash: h(0xa1), number: 100 },
      l2: { hash: h(0xb1), number: 0 },
      l2_time: 1000,
      system_config: sys,
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 3600,
    channel_timeout: 300,
    l1_chain_id: 900n,
    l2_chain_id: 901n,
    batch_inbox_address: "0xff00000000000000000000000000000000000901",
    deposit_contract_address: "0x0000000000000000000000000000000000000abc",
    l1_system_config_address: "0x0000000000000000000000000000000000000def",
    protocol_versions_address: "0x0000000000000000000000000000000000000000",
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    ...forks,
  };
}
const parent = (ts: number): L2BlockRef => ({
  hash: h(0xc1),
  number: 10,
  parentHash: h(0xc0),
  timestamp: ts,
  l1origin: { hash: h(0xa1), number: 100 },
  sequenceNumber: 0,
});
const origin: L1OriginInfo = {
  number: 101,
  hash: h(0xa2),
  time: 1010,
  baseFee: 7n,
  blobBaseFee: 3n,
  mixHash: h(0x99),
  parentBeaconBlockRoot: h(0x77),
};

describe("payload attributes", () => {
  it("pre-Ecotone: Bedrock L1 info, withdrawals (Canyon), no beacon root", () => {
    const cfg = cfgWith({});
    const a = build({
      cfg,
      sysConfig: sys,
      l2Parent: parent(1018),
      l1Origin: origin,
      depositTxs: [],
      seqNumber: 0,
    });
    expect(a.timestamp).toBe(1020);
    expect(a.prevRandao).toBe(origin.mixHash);
    expect(a.suggestedFeeRecipient).toBe(SEQUENCER_FEE_VAULT);
    expect(a.withdrawals).toEqual([]);
    expect(a.parentBeaconBlockRoot).toBeUndefined();
    expect(a.eip1559Params).toBeUndefined();
    expect(a.gasLimit).toBe(60_000_000n);
    expect(a.noTxPool).toBe(true);
    expect(a.transactions).toHaveLength(1);
    const info = decodeDepositTx(hexToBytes(a.transactions[0] as `0x${string}`));
    expect(info.sourceHash).toBe(l1InfoDepositSourceHash(origin.hash, 0));
    expect(info.gas).toBe(1_000_000n);
    expect(info.isSystemTx).toBe(false);
    expect(info.data.slice(0, 10)).toBe("0x015d8eb9");
  });

  it("activation blocks carry upgrade txs after deposits; Jovian fields", () => {
    const cfg = cfgWith({
      ecotone_time: 1020,
      fjord_time: 1020,
      granite_time: 1020,
      holocene_time: 1020,
      isthmus_time: 1022,
      jovian_time: 1024,
    });
    const dep = {
      sourceHash: h(5),
      from: sys.batcherAddr,
      to: null,
      mint: 1n,
      value: 0n,
      gas: 21000n,
      isSystemTx: false,
      data: "0x" as const,
    };
    const eco = build({
      cfg,
      sysConfig: sys,
      l2Parent: parent(1018),
      l1Origin: origin,
      depositTxs: [dep],
      seqNumber: 0,
    });
    expect(eco.transactions).toHaveLength(1 + 1 + 6 + 3);
    expect(decodeDepositTx(hexToBytes(eco.transactions[1] as `0x${string}`)).sourceHash).toBe(h(5));
    expect(eco.parentBeaconBlockRoot).toBe(origin.parentBeaconBlockRoot);
    expect(eco.eip1559Params).toBe(sys.eip1559Params);
    expect(eco.minBaseFee).toBeUndefined();
    const ist = build({
      cfg,
      sysConfig: sys,
      l2Parent: parent(1020),
      l1Origin: origin,
      depositTxs: [],
      seqNumber: 1,
    });
    expect(ist.transactions).toHaveLength(1 + 8);
    expect(decodeDepositTx(hexToBytes(ist.transactions[0] as `0x${string}`)).data.slice(0, 10)).toBe("0x440a5e20");
    const jov = build({
      cfg,
      sysConfig: sys,
      l2Parent: parent(1022),
      l1Origin: origin,
      depositTxs: [],
      seqNumber: 2,
    });
    expect(jov.transactions).toHaveLength(1 + 5);
    expect(jov.minBaseFee).toBe(1000n);
    expect(decodeDepositTx(hexToBytes(jov.transactions[0] as `0x${string}`)).data.slice(0, 10)).toBe("0x098999be");
    const afterAttributes = buildPayloadAttributes({
      cfg,
      sysConfig: sys,
      l2Parent: parent(1024),
      l1Origin: origin,
      depositTxs: [],
      seqNumber: 3,
    });
    const after = flat(afterAttributes);
    expect(after.transactions).toHaveLength(1);
    const data = decodeDepositTx(hexToBytes(after.transactions[0] as `0x${string}`)).data;
    expect(data.slice(0, 10)).toBe("0x3db6be2b");
    expect(data.slice(-4)).toBe("0190"); // DA footprint default 400
    const json = payloadAttributesToJson(afterAttributes);
    expect(Object.keys(json)).toEqual([
      "timestamp",
      "prevRandao",
      "suggestedFeeRecipient",
      "withdrawals",
      "parentBeaconBlockRoot",
      "transactions",
      "noTxPool",
      "gasLimit",
      "eip1559Params",
      "minBaseFee",
    ]);
    expect(json.minBaseFee).toBe(1000);
    expect(json.timestamp).toBe("0x402");
  });

  it("rejects an L2 time before the L1 origin", () => {
    const cfg = cfgWith({});
    expect(() =>
      build({
        cfg,
        sysConfig: sys,
        l2Parent: parent(1000),
        l1Origin: origin,
        depositTxs: [],
        seqNumber: 0,
      }),
    ).toThrow(ResetError);
  });
});

describe("derived attributes carry their transactions' bytes", () => {
  it("appends the batch's transactions after the deposits, its bytes themselves (no copy), hex accepted", () => {
    const user = new Uint8Array([0x02, 0xf8, 0xaa]);
    const a = buildPayloadAttributes({
      cfg: cfgWith({ ecotone_time: 0, holocene_time: 0 }),
      sysConfig: sys,
      l2Parent: parent(1018),
      l1Origin: origin,
      depositTxs: [],
      seqNumber: 0,
      batchTransactions: [user, "0x01c0"],
    });
    expect(a.txBytes).toHaveLength(3);
    expect(a.txBytes[1]).toBe(user);
    expect(transactionsHex(a).slice(1)).toEqual(["0x02f8aa", "0x01c0"]);
    expect(decodeDepositTx(a.txBytes[0]!).isSystemTx).toBe(false);
    expect(a.fields.noTxPool).toBe(true);
  });
});

describe("L2 block → block ref and SystemConfig", () => {
  it("round-trips through the L1-info deposit for every format", () => {
    const cfg = cfgWith({ ecotone_time: 1010, holocene_time: 1010, isthmus_time: 1030, jovian_time: 1040 });
    for (const ts of [1004, 1020, 1034, 1044]) {
      const a = build({
        cfg,
        sysConfig: sys,
        l2Parent: parent(ts - 2),
        l1Origin: { ...origin, time: 1000 },
        depositTxs: [],
        seqNumber: 3,
        timestamp: ts,
      });
      const extraData = extraDataForAttributes(cfg, ts, a.eip1559Params, a.minBaseFee);
      const facts = {
        hash: h(0xd0),
        number: 11,
        parentHash: h(0xc1),
        timestamp: ts,
        gasLimit: a.gasLimit,
        extraData,
        firstTx: a.transactions[0],
      };
      const ref = l2BlockToBlockRef(cfg, facts);
      expect(ref.l1origin).toEqual({ hash: origin.hash, number: origin.number });
      expect(ref.sequenceNumber).toBe(3);
      const back = systemConfigFromL2Block(cfg, facts);
      expect(back.batcherAddr).toBe(sys.batcherAddr);
      expect(back.gasLimit).toBe(sys.gasLimit);
      if (ts >= 1012) expect(back.scalar).toBe(sys.scalar);
      if (ts >= 1012) expect(back.eip1559Params).toBe(sys.eip1559Params);
      if (ts >= 1032) expect(back.operatorFeeParams).toBe(sys.operatorFeeParams);
      if (ts >= 1042) expect(back.minBaseFee).toBe(sys.minBaseFee);
      if (ts >= 1042) expect(back.daFootprintGasScalar).toBe(400);
    }
  });

  it("reading back is a projection: a read-back SystemConfig reads back as itself (attributes-builder memo)", () => {
    const cfg = cfgWith({ ecotone_time: 1010, holocene_time: 1010, isthmus_time: 1030, jovian_time: 1040 });
    const v0 = { ...sys, scalar: `0x00${"00".repeat(27)}00000558` as Hash, daFootprintGasScalar: 0 };
    const odd = {
      ...sys,
      scalar: `0x00${"00".repeat(26)}0100000558` as Hash,
      eip1559Params: "0x0000000000000000" as Hash,
    };
    const readBack = (s: SystemConfig, ts: number): SystemConfig => {
      const a = build({
        cfg,
        sysConfig: s,
        l2Parent: parent(ts - 2),
        l1Origin: { ...origin, time: 1000 },
        depositTxs: [],
        seqNumber: 1,
        timestamp: ts,
      });
      const extraData = extraDataForAttributes(cfg, ts, a.eip1559Params, a.minBaseFee);
      return systemConfigFromL2Block(cfg, {
        hash: h(0xd0),
        number: 11,
        parentHash: h(0xc1),
        timestamp: ts,
        gasLimit: a.gasLimit,
        extraData,
        firstTx: a.transactions[0],
      });
    };
    for (const s0 of [sys, v0, odd]) {
      for (const ts of [1004, 1020, 1034, 1044]) {
        const once = readBack(s0, ts);
        expect(readBack(once, ts)).toEqual(once);
      }
    }
  });

  it("genesis uses the rollup config; bad genesis hash and missing L1 info are DecodeErrors", () => {
    const cfg = cfgWith({});
    const g = { hash: h(0xb1), number: 0, parentHash: h(0), timestamp: 1000, firstTx: undefined };
    expect(l2BlockToBlockRef(cfg, g)).toMatchObject({ l1origin: cfg.genesis.l1, sequenceNumber: 0 });
    expect(systemConfigFromL2Block(cfg, g)).toBe(sys);
    expect(() => l2BlockToBlockRef(cfg, { ...g, hash: h(0xb2) })).toThrow(DecodeError);
    expect(() => l2BlockToBlockRef(cfg, { ...g, number: 1 })).toThrow(DecodeError);
    expect(() => l2BlockToBlockRef(cfg, { ...g, number: 1, firstTx: "0x02c0" })).toThrow(DecodeError);
  });
});

describe("EIP-1559 params in extraData", () => {
  it("encodes, decodes and validates Holocene and Jovian formats", () => {
    expect(encodeHoloceneExtraData(250, 6)).toBe("0x00000000fa00000006");
    expect(encodeJovianExtraData(250, 6, 1000n)).toBe("0x01000000fa0000000600000000000003e8");
    expect(decodeExtraData("0x01000000fa0000000600000000000003e8")).toEqual({
      denominator: 250,
      elasticity: 6,
      minBaseFee: 1000n,
    });
    const cfg = cfgWith({ holocene_time: 10, jovian_time: 20 });
    expect(extraDataRejection(cfg, 5, "0x1234")).toBeNull();
    expect(extraDataRejection(cfg, 12, "0x00000000fa00000006")).toBeNull();
    expect(extraDataRejection(cfg, 12, "0x00000000fa0000000600")).toMatch(/9 bytes/);
    expect(extraDataRejection(cfg, 12, "0x")).not.toBeNull();
    expect(extraDataRejection(cfg, 12, "0x123")).not.toBeNull();
    expect(extraDataRejection(cfg, 12, "0x000000000000000006")).toMatch(/denominator/);
    expect(extraDataRejection(cfg, 22, "0x00000000fa00000006")).toMatch(/version 1/);
    expect(extraDataRejection(cfg, 22, "0x01000000fa0000000600000000000003e8")).toBeNull();
    // zero params → chain constants (Canyon denominator, elasticity)
    expect(extraDataForAttributes(cfg, 12, "0x0000000000000000", undefined)).toBe("0x00000000fa00000006");
    expect(extraDataForAttributes(cfg, 5, "0x0000000000000000", undefined)).toBe("0x");
    expect(() => decodeExtraData("0x02")).toThrow(DecodeError);
  });
});

describe("upgrade transactions per block", () => {
  it("only a fork's activation block has any, in fork order; every other block gets none", () => {
    const cfg = cfgWith({
      ecotone_time: 1010,
      fjord_time: 1014,
      granite_time: 1016,
      holocene_time: 1018,
      isthmus_time: 1020,
      jovian_time: 1020,
      lagoon_time: 1026,
    });
    const counts = new Map<number, number>();
    for (let ts = 1000; ts <= 1040; ts += 2) counts.set(ts, upgradeTransactionsAt(cfg, ts, { nutBundles }).length);
    const expected = new Map<number, number>([
      [1010, ecotoneUpgradeDeposits().length],
      [1014, fjordUpgradeDeposits().length],
      [1020, isthmusUpgradeDeposits().length + jovianUpgradeDeposits().length],
      [1026, 28],
    ]);
    for (const [ts, n] of counts) expect(n, `block at ${ts}`).toBe(expected.get(ts) ?? 0);
    expect(upgradeTransactionsAt(cfg, 1026, { dependencySetSize: 2, nutBundles })).toHaveLength(30);
    // The empty answer is shared and cannot be changed by a caller.
    expect(upgradeTransactionsAt(cfg, 1012)).toBe(upgradeTransactionsAt(cfg, 1040));
    expect(Object.isFrozen(upgradeTransactionsAt(cfg, 1012))).toBe(true);
  });
});
