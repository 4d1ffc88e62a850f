import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import type { Address, Hex } from "../../core/types/primitives.js";
import { keccak } from "../block/keccak.js";
import { rlpEncode, uintToBytes } from "../block/rlp.js";
import { upgradeDepositSourceHash } from "../l1/source-hash.js";
import { isForkActivationBlock, type RollupConfig } from "../rollup-config.js";
import { CriticalError } from "../../core/errors/supernode-error.js";
import { type DepositTx, encodeDepositTx } from "./deposit-tx.js";
import { NUT_UPGRADE_GAS, type NutBundle, type NutBundles, type NutFork } from "./nut-bundle.js";
import * as code from "./upgrade-bytecode.js";

export const L1_INFO_DEPOSITOR: Address = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
export const L1_BLOCK_PREDEPLOY: Address = "0x4200000000000000000000000000000000000015";
export const GAS_PRICE_ORACLE_PREDEPLOY: Address = "0x420000000000000000000000000000000000000f";
export const OPERATOR_FEE_VAULT_PREDEPLOY: Address = "0x420000000000000000000000000000000000001b";
export const CROSS_L2_INBOX_PREDEPLOY: Address = "0x4200000000000000000000000000000000000022";
export const L2_TO_L2_XDM_PREDEPLOY: Address = "0x4200000000000000000000000000000000000023";
export const SUPERCHAIN_ETH_BRIDGE_PREDEPLOY: Address = "0x4200000000000000000000000000000000000024";
export const ETH_LIQUIDITY_PREDEPLOY: Address = "0x4200000000000000000000000000000000000025";
export const ZERO_ADDR: Address = "0x0000000000000000000000000000000000000000";
const BEACON_ROOTS_DEPLOYER: Address = "0x0b799c86a49deeb90402691f1041aa3af2d3c875";
const BLOCK_HASH_HISTORY_DEPLOYER: Address = "0x3462413af4609098e1e27a490f554f260213d685";

/** The address a contract created by `deployer` at `nonce` gets: keccak(rlp([deployer, nonce]))[12:]. */
export function createAddress(deployer: Address, nonce: bigint | number = 0): Address {
  return bytesToHex(keccak(rlpEncode([hexToBytes(deployer), uintToBytes(nonce)])).subarray(12));
}

/** `upgradeTo(address)` calldata. */
export function upgradeToCalldata(impl: Address): Hex {
  return `0x3659cfe6${impl.slice(2).toLowerCase().padStart(64, "0")}`;
}

interface UpgradeSpec {
  readonly intent: string;
  readonly from: Address;
  readonly to: Address | null;
  readonly gas: number;
  readonly data: Hex;
  readonly mint?: bigint;
  readonly value?: bigint;
}

function deposit(s: UpgradeSpec): DepositTx {
  return {
    sourceHash: upgradeDepositSourceHash(s.intent),
    from: s.from,
    to: s.to,
    mint: s.mint ?? 0n,
    value: s.value ?? 0n,
    gas: BigInt(s.gas),
    isSystemTx: false,
    data: s.data,
  };
}

const deployer = (n: number, prefix = "0x42100000000000000000000000000000000000"): Address =>
  `${prefix}${n.toString(16).padStart(2, "0")}` as Address;

function deploy(intent: string, from: Address, gas: number, creationCode: string): UpgradeSpec {
  return { intent, from, to: null, gas, data: `0x${creationCode}` };
}

function proxyUpdate(intent: string, proxy: Address, impl: Address): UpgradeSpec {
  return { intent, from: ZERO_ADDR, to: proxy, gas: 50_000, data: upgradeToCalldata(impl) };
}

/** The Gas Price Oracle's `set<Fork>()` call (4-byte `selector`) by the L1-info depositor. */
function setGasPriceOracleFork(intent: string, gas: number, selector: Hex): UpgradeSpec {
  return { intent, from: L1_INFO_DEPOSITOR, to: GAS_PRICE_ORACLE_PREDEPLOY, gas, data: selector };
}

/** The six Ecotone upgrade deposits. */
export function ecotoneUpgradeDeposits(): DepositTx[] {
  const l1b = deployer(0);
  const gpo = deployer(1);
  return [
    deploy("Ecotone: L1 Block Deployment", l1b, 375_000, code.L1_BLOCK_ECOTONE),
    deploy("Ecotone: Gas Price Oracle Deployment", gpo, 1_000_000, code.GAS_PRICE_ORACLE_ECOTONE),
    proxyUpdate("Ecotone: L1 Block Proxy Update", L1_BLOCK_PREDEPLOY, createAddress(l1b)),
    proxyUpdate("Ecotone: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_PREDEPLOY, createAddress(gpo)),
    setGasPriceOracleFork("Ecotone: Gas Price Oracle Set Ecotone", 80_000, "0x22b90ab3"),
    deploy(
      "Ecotone: beacon block roots contract deployment",
      BEACON_ROOTS_DEPLOYER,
      250_000,
      code.BEACON_ROOTS_CONTRACT_ECOTONE,
    ),
  ].map(deposit);
}

/** The three Fjord upgrade deposits. */
export function fjordUpgradeDeposits(): DepositTx[] {
  const gpo = deployer(2);
  return [
    deploy("Fjord: Gas Price Oracle Deployment", gpo, 1_450_000, code.GAS_PRICE_ORACLE_FJORD),
    proxyUpdate("Fjord: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_PREDEPLOY, createAddress(gpo)),
    setGasPriceOracleFork("Fjord: Gas Price Oracle Set Fjord", 90_000, "0x8e98b106"),
  ].map(deposit);
}

/** The eight Isthmus upgrade deposits. */
export function isthmusUpgradeDeposits(): DepositTx[] {
  const l1b = deployer(3);
  const gpo = deployer(4);
  const ofv = deployer(5);
  return [
    deploy("Isthmus: L1 Block Deployment", l1b, 425_000, code.L1_BLOCK_ISTHMUS),
    deploy("Isthmus: Gas Price Oracle Deployment", gpo, 1_625_000, code.GAS_PRICE_ORACLE_ISTHMUS),
    deploy("Isthmus: Operator Fee Vault Deployment", ofv, 500_000, code.OPERATOR_FEE_VAULT_ISTHMUS),
    proxyUpdate("Isthmus: L1 Block Proxy Update", L1_BLOCK_PREDEPLOY, createAddress(l1b)),
    proxyUpdate("Isthmus: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_PREDEPLOY, createAddress(gpo)),
    proxyUpdate("Isthmus: Operator Fee Vault Proxy Update", OPERATOR_FEE_VAULT_PREDEPLOY, createAddress(ofv)),
    setGasPriceOracleFork("Isthmus: Gas Price Oracle Set Isthmus", 90_000, "0x291b0383"),
    deploy(
      "Isthmus: EIP-2935 Contract Deployment",
      BLOCK_HASH_HISTORY_DEPLOYER,
      250_000,
      code.BLOCK_HASH_HISTORY_ISTHMUS,
    ),
  ].map(deposit);
}

/** The five Jovian upgrade deposits. */
export function jovianUpgradeDeposits(): DepositTx[] {
  const l1b = deployer(6);
  const gpo = deployer(7);
  return [
    deploy("Jovian: L1 Block Deployment", l1b, 447_315, code.L1_BLOCK_JOVIAN),
    proxyUpdate("Jovian: L1 Block Proxy Update", L1_BLOCK_PREDEPLOY, createAddress(l1b)),
    deploy("Jovian: Gas Price Oracle Deployment", gpo, 1_750_714, code.GAS_PRICE_ORACLE_JOVIAN),
    proxyUpdate("Jovian: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_PREDEPLOY, createAddress(gpo)),
    setGasPriceOracleFork("Jovian: Gas Price Oracle Set Jovian", 90_000, "0xb3d72079"),
  ].map(deposit);
}

const U128_MAX = (1n << 128n) - 1n;

/** `setFeature(bytes32)` with the feature name "INTEROP", right-padded to 32 bytes. */
const SET_FEATURE_INTEROP: Hex = `0x${bytesToHex(keccak(new TextEncoder().encode("setFeature(bytes32)")).subarray(0, 4)).slice(2)}${bytesToHex(new TextEncoder().encode("INTEROP")).slice(2).padEnd(64, "0")}`;

/**
 * The deposit before the Lagoon bundle when the dependency set has more than one chain: L1Block
 * `setFeature("INTEROP")`, so that the bundle's L2ContractsManager upgrade applies the interop contracts.
 */
export function lagoonSetFeatureDeposit(): DepositTx {
  return deposit({
    intent: "Interop pre: setFeature(INTEROP)",
    from: L1_INFO_DEPOSITOR,
    to: L1_BLOCK_PREDEPLOY,
    gas: 100_000,
    data: SET_FEATURE_INTEROP,
  });
}

/** The deposit after the Lagoon bundle (same condition): ETHLiquidity `fund()` with mint = value = 2^128 − 1. */
export function lagoonEthLiquidityFundingDeposit(): DepositTx {
  return deposit({
    intent: "Interop post: ETHLiquidity Funding",
    from: L1_INFO_DEPOSITOR,
    to: ETH_LIQUIDITY_PREDEPLOY,
    gas: 50_000,
    data: "0xb60d4288" as Hex,
    mint: U128_MAX,
    value: U128_MAX,
  });
}

/** What a block's upgrade deposits depend on beyond the rollup config. */
export interface UpgradeInputs {
  /** Chains in the dependency set (default 1): > 1 wraps the Lagoon bundle in its two interop deposits. */
  readonly dependencySetSize?: number | undefined;
  /** The NUT bundles of Karst and Lagoon (required on their activation blocks). */
  readonly nutBundles?: NutBundles | undefined;
}

function bundleOf(opts: UpgradeInputs, fork: NutFork): NutBundle {
  const b = opts.nutBundles?.[fork];
  if (b === undefined)
    throw new CriticalError("NUT_BUNDLE_MISSING", `the ${fork} activation block needs the ${fork} NUT bundle`, {
      fork,
    });
  return b;
}

const NO_UPGRADE_TXS: readonly Uint8Array[] = Object.freeze([]);

/** Whether the L2 block at `timestamp` is the activation block of a fork with upgrade deposits. */
function activatesUpgradeFork(cfg: RollupConfig, timestamp: number): boolean {
  return (
    isForkActivationBlock(cfg, "ecotone", timestamp) ||
    isForkActivationBlock(cfg, "fjord", timestamp) ||
    isForkActivationBlock(cfg, "isthmus", timestamp) ||
    isForkActivationBlock(cfg, "jovian", timestamp) ||
    isForkActivationBlock(cfg, "karst", timestamp) ||
    isForkActivationBlock(cfg, "lagoon", timestamp)
  );
}

/** Whether the Lagoon activation block carries the setFeature and funding deposits around its bundle. */
const lagoonWrapped = (opts: UpgradeInputs): boolean => (opts.dependencySetSize ?? 1) > 1;

/**
 * Upgrade deposits of the L2 block at `timestamp`, in protocol order (Ecotone, Fjord, Isthmus, Jovian, Karst's
 * bundle, Lagoon's bundle — with setFeature before and the ETHLiquidity funding after it when the dependency set
 * has more than one chain), as EIP-2718 bytes. Empty for blocks that activate no fork.
 */
export function upgradeTransactionsAt(
  cfg: RollupConfig,
  timestamp: number,
  opts: UpgradeInputs = {},
): readonly Uint8Array[] {
  // Every block asks; only a fork's first block has any (docs/performance.md): no arrays for the others.
  if (!activatesUpgradeFork(cfg, timestamp)) return NO_UPGRADE_TXS;
  const out: DepositTx[] = [];
  if (isForkActivationBlock(cfg, "ecotone", timestamp)) out.push(...ecotoneUpgradeDeposits());
  if (isForkActivationBlock(cfg, "fjord", timestamp)) out.push(...fjordUpgradeDeposits());
  if (isForkActivationBlock(cfg, "isthmus", timestamp)) out.push(...isthmusUpgradeDeposits());
  if (isForkActivationBlock(cfg, "jovian", timestamp)) out.push(...jovianUpgradeDeposits());
  const encoded = out.map(encodeDepositTx);
  if (isForkActivationBlock(cfg, "karst", timestamp)) encoded.push(...bundleOf(opts, "karst").encoded);
  if (isForkActivationBlock(cfg, "lagoon", timestamp)) {
    const wrapped = lagoonWrapped(opts);
    if (wrapped) encoded.push(encodeDepositTx(lagoonSetFeatureDeposit()));
    encoded.push(...bundleOf(opts, "lagoon").encoded);
    if (wrapped) encoded.push(encodeDepositTx(lagoonEthLiquidityFundingDeposit()));
  }
  return encoded;
}

/**
 * Gas added on top of the SystemConfig gas limit of the L2 block at `timestamp` (op-node `PreparePayloadAttributes`):
 * the Karst bundle's gas on the Karst activation block; on the Lagoon activation block the Lagoon bundle's gas, plus
 * the two wrapper deposits' gas (100,000 + 50,000) when they are there. 0 elsewhere.
 */
export function upgradeGasAt(cfg: RollupConfig, timestamp: number, opts: UpgradeInputs = {}): bigint {
  let gas = 0n;
  if (isForkActivationBlock(cfg, "karst", timestamp)) gas += bundleOf(opts, "karst").gas;
  if (isForkActivationBlock(cfg, "lagoon", timestamp))
    gas += bundleOf(opts, "lagoon").gas + (lagoonWrapped(opts) ? 150_000n : 0n);
  return gas;
}

/**
 * Upgrade gas to take off the gas limit of the SystemConfig read back from the L2 block at `timestamp` (op-node
 * after 2026-06 `upgradeGasToStrip`): the Karst bundle's gas on the Karst activation block unless
 * `keep_karst_upgrade_gas` (chains that activated Karst with the leak kept it), the Lagoon bundle's gas on the Lagoon
 * activation block; so the limit returns to the SystemConfig's after the one block. The pinned totals are used: the
 * read-back needs no bundle at hand.
 */
export function upgradeGasToStrip(cfg: RollupConfig, timestamp: number): bigint {
  let gas = 0n;
  if (isForkActivationBlock(cfg, "karst", timestamp) && cfg.keep_karst_upgrade_gas !== true)
    gas += NUT_UPGRADE_GAS.karst;
  if (isForkActivationBlock(cfg, "lagoon", timestamp)) gas += NUT_UPGRADE_GAS.lagoon;
  return gas;
}
