/**
 * viem's `estimateTotalFee` against what the same transaction then costs, in every fee model, on both variants. The
 * chain activates its forks at offsets (Bedrock/Regolith at genesis, then Ecotone, Fjord with Granite and Holocene,
 * Isthmus with an operator fee, Jovian with the DA footprint) and each block is what a rollup node hands the client:
 * the L1-info deposit in the format of the block's fork (`encodeL1InfoDepositTx`) and the activation blocks' upgrade
 * deposits (`upgradeTransactionsAt`), one L1 origin throughout so the L1 fee parameters stay put between the estimate
 * and the inclusion. The transaction pays the gas price quoted at the estimate (fee cap = tip = `eth_gasPrice`, so a
 * base fee that falls a little in the next block does not change its price).
 *
 * What must hold: the sender pays exactly the receipt's `l1Fee` + `gasUsed × effectiveGasPrice` + the operator fee
 * of the receipt's scalars; the estimate's L2 and operator parts equal the paid ones; and from Fjord the whole
 * estimate equals what is paid. Before Fjord the oracle prices an unsigned copy of the transaction (viem's, with its
 * own placeholder fee fields) plus 68 signature bytes by counting calldata bytes, which a signed transaction matches
 * only by chance: there the L1 part is within 3% (a real GasPriceOracle gives the same figure, it is its formula).
 */
import { createPublicClient, createWalletClient, defineChain, type Hex, http } from "viem";
import { chainConfig, publicActionsL2 } from "viem/op-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesToHex, type Hash, toQuantity } from "supernode/core";
import {
  encodeL1InfoDepositTx,
  encodeOperatorFeeParams,
  isForkActivationBlock,
  isForkActive,
  type L1OriginInfo,
  upgradeTransactionsAt,
} from "supernode/protocol";
import { devnetRollupConfig } from "../../src/config.js";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import type { ElForks } from "../../src/el/types.js";
import { alice, BOB, buildAndSeal, call, FEE_RECIPIENT, GENESIS_TIME, startEl } from "../support/el-support.js";

const G = GENESIS_TIME;
const FORKS = {
  regolith: 0,
  canyon: 0,
  delta: 0,
  ecotone: G + 6,
  fjord: G + 12,
  granite: G + 12,
  holocene: G + 12,
  isthmus: G + 18,
  jovian: G + 24,
} as const satisfies ElForks;
const OPERATOR = { scalar: 1_500_000, constant: 7_000n };
const word = (v: bigint): Hash => `0x${v.toString(16).padStart(64, "0")}`;
const ORIGIN: L1OriginInfo = {
  number: 100,
  hash: `0x${"11".repeat(32)}`,
  time: G - 12,
  baseFee: 20_000_000_000n,
  blobBaseFee: 3n,
  mixHash: `0x${"22".repeat(32)}`,
};

describe.each(["a", "b"] as const)("variant %s: estimateTotalFee in every fee model", (variant) => {
  let el: SimulatedExecutionClient;
  let seq = 0;
  const cfg = devnetRollupConfig({
    l2ChainId: 901,
    l1ChainId: 900,
    l1Genesis: { hash: ORIGIN.hash, number: ORIGIN.number },
    l2Genesis: { hash: `0x${"00".repeat(32)}`, timestamp: G },
    batcher: "0x00000000000000000000000000000000000000ba",
    forks: FORKS,
    systemConfig: {
      overhead: word(188n),
      scalar: word(684_000n), // a version-0 scalar: Ecotone reads it as the base fee scalar
      operatorFeeParams: encodeOperatorFeeParams(OPERATOR),
    },
  });
  beforeAll(async () => {
    el = await startEl({ variant, forks: FORKS });
  });
  afterAll(async () => {
    await el?.stop();
  });

  /** Builds the next block (2 s on) as a rollup node would, with the pool's transactions. */
  async function nextBlock(): Promise<void> {
    const t = el.head.header.timestamp + 2;
    const at = (f: Parameters<typeof isForkActive>[1]) => isForkActive(cfg, f, t);
    const info = encodeL1InfoDepositTx(cfg, cfg.genesis.system_config, ORIGIN, ++seq, t);
    const attrs = {
      timestamp: toQuantity(t),
      prevRandao: `0x${"ab".repeat(32)}`,
      suggestedFeeRecipient: FEE_RECIPIENT,
      withdrawals: [],
      ...(at("ecotone") ? { parentBeaconBlockRoot: `0x${"cd".repeat(32)}` } : {}),
      transactions: [info, ...upgradeTransactionsAt(cfg, t)].map((b) => bytesToHex(b)),
      gasLimit: toQuantity(30_000_000n),
      ...(at("holocene") ? { eip1559Params: "0x0000000000000000" } : {}),
      ...(at("jovian") ? { minBaseFee: 0 } : {}),
    };
    const v = at("isthmus")
      ? { fcu: 3, get: 4, np: 4 }
      : at("ecotone")
        ? { fcu: 3, get: 3, np: 3 }
        : { fcu: 2, get: 2, np: 2 };
    await buildAndSeal(el, attrs, v);
  }

  /** Blocks until the head is in `fork`'s era past its activation block (whose L1-info deposit has the old format). */
  async function enter(fork: "regolith" | "ecotone" | "fjord" | "isthmus" | "jovian"): Promise<void> {
    for (;;) {
      const t = el.head.header.timestamp;
      if (el.head.header.number > 0 && isForkActive(cfg, fork, t) && !isForkActivationBlock(cfg, fork, t)) return;
      await nextBlock();
    }
  }

  it.each([
    ["regolith", "Bedrock fee model"],
    ["ecotone", "Ecotone"],
    ["fjord", "Fjord (FastLZ)"],
    ["isthmus", "Isthmus, operator fee"],
    ["jovian", "Jovian, DA footprint"],
  ] as const)("%s era (%s): the estimate against the receipt and the balance", async (fork, _model) => {
    await enter(fork);
    const chain = defineChain({
      ...chainConfig,
      id: 901,
      name: "devnet",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [el.httpUrl] } },
    });
    const client = createPublicClient({ chain, transport: http() }).extend(publicActionsL2());
    const wallet = createWalletClient({ account: alice, chain, transport: http() });
    const quote = await client.getGasPrice();
    const req = {
      account: alice,
      to: BOB,
      value: 1n,
      data: "0xdeadbeef" as Hex,
      maxFeePerGas: quote,
      maxPriorityFeePerGas: quote,
    };
    const total = await client.estimateTotalFee(req);
    const l1Estimate = await client.estimateL1Fee(req);
    const opEstimate = await client.estimateOperatorFee(req);
    const before = await client.getBalance({ address: alice.address });
    const hash = await wallet.sendTransaction(req);
    await nextBlock();
    const r = await call<Record<string, Hex>>(el.httpUrl, "eth_getTransactionReceipt", [hash]);
    expect(r.status).toBe("0x1");
    const paid = before - (await client.getBalance({ address: alice.address })) - req.value;
    const gasUsed = BigInt(r.gasUsed!);
    const l2Fee = gasUsed * BigInt(r.effectiveGasPrice!);
    expect(BigInt(r.effectiveGasPrice!)).toBe(quote);
    const l1Fee = BigInt(r.l1Fee!);
    expect(l1Fee).toBeGreaterThan(0n);
    // the operator fee of the receipt's scalars: Isthmus gas × scalar / 1e6 + constant, Jovian gas × scalar × 100 + constant
    const isthmus = fork === "isthmus" || fork === "jovian";
    expect(r.operatorFeeScalar === undefined).toBe(!isthmus);
    const opFee = !isthmus
      ? 0n
      : fork === "jovian"
        ? gasUsed * BigInt(r.operatorFeeScalar!) * 100n + BigInt(r.operatorFeeConstant!)
        : (gasUsed * BigInt(r.operatorFeeScalar!)) / 1_000_000n + BigInt(r.operatorFeeConstant!);
    if (isthmus) expect(opFee).toBeGreaterThan(OPERATOR.constant);
    // Jovian: the block counts the transaction's DA footprint (blobGasUsed, at the default scalar 400)
    if (fork === "jovian") expect(el.head.header.blobGasUsed).toBeGreaterThan(0n);
    expect(paid).toBe(l1Fee + l2Fee + opFee);
    expect(opEstimate).toBe(opFee);
    expect(total - l1Estimate).toBe(l2Fee + opFee);
    if (fork === "regolith" || fork === "ecotone") {
      expect(r.l1FeeScalar === undefined).toBe(fork === "ecotone");
      expect(Number(l1Estimate - l1Fee) / Number(l1Fee)).toBeLessThan(0.03);
      expect(Number(l1Fee - l1Estimate) / Number(l1Fee)).toBeLessThan(0.03);
    } else {
      expect(l1Estimate).toBe(l1Fee);
      expect(total).toBe(paid);
    }
  });
});
