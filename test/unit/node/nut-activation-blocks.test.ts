/**
 * The Karst and Lagoon activation blocks as the attributes builder makes them, from the bundles the product ships
 * (config/nuts): the bundle's deposits after the L1-info deposit, the bundle's gas on top of the gas limit, the
 * Lagoon bundle wrapped in setFeature / ETHLiquidity funding only for a dependency set of more than one chain, and
 * the next block's SystemConfig with the upgrade gas taken off again (kept for Karst with keep_karst_upgrade_gas).
 */
import { toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../src/core/codec/hex.js";
import { loadNutBundle } from "../../../src/config/nut-bundles.js";
import { FetchingAttributesBuilder } from "../../../src/node/derivation/attributes-builder.js";
import { decodeDepositTx } from "../../../src/protocol/l2/deposit-tx.js";
import {
  L1_BLOCK_PREDEPLOY,
  lagoonEthLiquidityFundingDeposit,
  lagoonSetFeatureDeposit,
  upgradeTransactionsAt,
} from "../../../src/protocol/l2/upgrade-txs.js";
import { upgradeDepositSourceHash } from "../../../src/protocol/l1/source-hash.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { EVERY_FORK_AT_GENESIS } from "../../support/fork-times.js";
import { FakeEngine, FakeL1, GENESIS_TIME, testRollupConfig } from "./fakes.js";
import { type PayloadAttributes, transactionsHex } from "../../../src/protocol/l2/attributes.js";

/** The attributes' fields with their transactions as hex (what the assertions read). */
const flat = (a: PayloadAttributes) => ({ ...a.fields, transactions: transactionsHex(a) });

const karst = loadNutBundle("karst");
const lagoon = loadNutBundle("lagoon");
const nutBundles = { karst, lagoon };
const BASE_GAS = 30_000_000n;

function parentOf(cfg: RollupConfig) {
  const g = cfg.genesis;
  return {
    hash: g.l2.hash,
    number: g.l2.number,
    parentHash: `0x${"00".repeat(32)}` as const,
    timestamp: g.l2_time,
    l1origin: g.l1,
    sequenceNumber: 0,
  };
}

async function firstBlock(over: Partial<RollupConfig>, dependencySetSize = 1) {
  const cfg = testRollupConfig({ ...EVERY_FORK_AT_GENESIS, ...over });
  const builder = new FetchingAttributesBuilder(cfg, new FakeL1(3), new FakeEngine(cfg) as never, undefined, {
    dependencySetSize,
    nutBundles,
  });
  const first = await builder.prepare(parentOf(cfg), cfg.genesis.l1);
  return { cfg, builder, attrs: flat(first.attributes) };
}

describe("Karst activation block", () => {
  it("carries the Karst bundle's 31 deposits after the L1-info deposit, its gas on top of the gas limit", async () => {
    const { attrs } = await firstBlock({ karst_time: GENESIS_TIME + 2 });
    expect(attrs.timestamp).toBe(GENESIS_TIME + 2);
    expect(attrs.transactions).toHaveLength(1 + 31);
    expect(attrs.transactions.slice(1)).toEqual(karst.encoded.map(bytesToHex));
    expect(attrs.gasLimit).toBe(BASE_GAS + 55_370_657n);
    const first = decodeDepositTx(karst.encoded[0]!);
    expect(first.sourceHash).toBe(upgradeDepositSourceHash(`Karst 0: ${"ConditionalDeployer Deployment"}`));
    expect([first.mint, first.value, first.isSystemTx]).toEqual([0n, 0n, false]);
  });

  it("a block that activates nothing has no upgrade deposits and the SystemConfig's gas limit", () => {
    const cfg = testRollupConfig({ ...EVERY_FORK_AT_GENESIS, karst_time: GENESIS_TIME + 2 });
    expect(upgradeTransactionsAt(cfg, GENESIS_TIME + 4, { nutBundles })).toHaveLength(0);
    expect(() => upgradeTransactionsAt(cfg, GENESIS_TIME + 2)).toThrow(/needs the karst NUT bundle/);
  });
});

describe("Lagoon activation block", () => {
  it("a single-chain dependency set: the Lagoon bundle alone (28 deposits, intents labelled Interop)", async () => {
    const { attrs } = await firstBlock({ karst_time: 0, lagoon_time: GENESIS_TIME + 2 });
    expect(attrs.transactions.slice(1)).toEqual(lagoon.encoded.map(bytesToHex));
    expect(attrs.transactions).toHaveLength(1 + 28);
    expect(attrs.gasLimit).toBe(BASE_GAS + 60_503_172n);
    const first = decodeDepositTx(lagoon.encoded[0]!);
    expect(first.sourceHash).toBe(upgradeDepositSourceHash("Interop 0: Deploy StorageSetter Implementation"));
  });

  it("two chains: setFeature(INTEROP) before the bundle, the ETHLiquidity funding after it, their gas added", async () => {
    const { attrs } = await firstBlock({ karst_time: 0, lagoon_time: GENESIS_TIME + 2 }, 2);
    const txs = attrs.transactions.slice(1);
    expect(txs).toHaveLength(30);
    const set = decodeDepositTx(Buffer.from(txs[0]!.slice(2), "hex"));
    expect(set).toEqual(lagoonSetFeatureDeposit());
    expect(set.to).toBe(L1_BLOCK_PREDEPLOY);
    const selector = toFunctionSelector("setFeature(bytes32)");
    expect(set.data).toBe(`${selector}${Buffer.from("INTEROP").toString("hex").padEnd(64, "0")}`);
    expect(set.sourceHash).toBe(upgradeDepositSourceHash("Interop pre: setFeature(INTEROP)"));
    expect(txs.slice(1, 29)).toEqual(lagoon.encoded.map(bytesToHex));
    const fund = decodeDepositTx(Buffer.from(txs[29]!.slice(2), "hex"));
    expect(fund).toEqual(lagoonEthLiquidityFundingDeposit());
    expect(fund.data).toBe(toFunctionSelector("fund()"));
    expect([fund.mint, fund.value, fund.gas]).toEqual([(1n << 128n) - 1n, (1n << 128n) - 1n, 50_000n]);
    expect(fund.sourceHash).toBe(upgradeDepositSourceHash("Interop post: ETHLiquidity Funding"));
    expect(attrs.gasLimit).toBe(BASE_GAS + 60_503_172n + 150_000n);
  });
});

describe("the upgrade gas after the activation block", () => {
  /** The gas limit of the block after the activation block (its SystemConfig read back from the latter). */
  async function nextGasLimit(over: Partial<RollupConfig>): Promise<bigint> {
    const { cfg, builder, attrs } = await firstBlock(over);
    const parent = parentOf(cfg);
    const built = {
      hash: `0x${"ab".repeat(32)}` as const,
      number: parent.number + 1,
      parentHash: parent.hash,
      timestamp: attrs.timestamp,
      l1origin: cfg.genesis.l1,
      sequenceNumber: 1,
    };
    const second = await builder.prepare(built, cfg.genesis.l1);
    expect(second.attributes.fields.timestamp).toBe(attrs.timestamp + 2);
    return second.attributes.fields.gasLimit;
  }

  it("Karst: the next block returns to the SystemConfig's gas limit", async () => {
    expect(await nextGasLimit({ karst_time: GENESIS_TIME + 2 })).toBe(BASE_GAS);
  });
  it("Karst with keep_karst_upgrade_gas: the next block keeps the upgrade gas", async () => {
    expect(await nextGasLimit({ karst_time: GENESIS_TIME + 2, keep_karst_upgrade_gas: true })).toBe(
      BASE_GAS + 55_370_657n,
    );
  });
  it("Lagoon: the next block returns to the SystemConfig's gas limit", async () => {
    expect(await nextGasLimit({ karst_time: 0, lagoon_time: GENESIS_TIME + 2 })).toBe(BASE_GAS);
  });
});
