import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import type { Address, Hex } from "../../core/types/primitives.js";
import { keccak } from "../block/keccak.js";
import { rlpEncode, uintToBytes } from "../block/rlp.js";
import { upgradeDepositSourceHash } from "../l1/source-hash.js";
import { isForkActivationBlock, type RollupConfig } from "../rollup-config.js";
import { type DepositTx, encodeDepositTx } from "./deposit-tx.js";
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

/** The six Ecotone upgrade deposits. */
export function ecotoneUpgradeDeposits(): DepositTx[] {
  const l1b = deployer(0);
  const gpo = deployer(1);
  return [
    deploy("Ecotone: L1 Block Deployment", l1b, 375_000, code.L1_BLOCK_ECOTONE),
    deploy("Ecotone: Gas Price Oracle Deployment", gpo, 1_000_000, code.GAS_PRICE_ORACLE_ECOTONE),
    proxyUpdate("Ecotone: L1 Block Proxy Update", L1_BLOCK_PREDEPLOY, createAddress(l1b)),
    proxyUpdate("Ecotone: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_PREDEPLOY, createAddress(gpo)),
    {
      intent: "Ecotone: Gas Price Oracle Set Ecotone",
      from: L1_INFO_DEPOSITOR,
      to: GAS_PRICE_ORACLE_PREDEPLOY,
      gas: 80_000,
      data: "0x22b90ab3" as Hex,
    },
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
    {
      intent: "Fjord: Gas Price Oracle Set Fjord",
      from: L1_INFO_DEPOSITOR,
      to: GAS_PRICE_ORACLE_PREDEPLOY,
      gas: 90_000,
      data: "0x8e98b106" as Hex,
    },
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
    {
      intent: "Isthmus: Gas Price Oracle Set Isthmus",
      from: L1_INFO_DEPOSITOR,
      to: GAS_PRICE_ORACLE_PREDEPLOY,
      gas: 90_000,
      data: "0x291b0383" as Hex,
    },
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
    deploy("Jovian: L1Block Deployment", l1b, 447_315, code.L1_BLOCK_JOVIAN),
    proxyUpdate("Jovian: L1Block Proxy Update", L1_BLOCK_PREDEPLOY, createAddress(l1b)),
    deploy("Jovian: GasPriceOracle Deployment", gpo, 1_750_714, code.GAS_PRICE_ORACLE_JOVIAN),
    proxyUpdate("Jovian: GasPriceOracle Proxy Update", GAS_PRICE_ORACLE_PREDEPLOY, createAddress(gpo)),
    {
      intent: "Jovian: Gas Price Oracle Set Jovian",
      from: L1_INFO_DEPOSITOR,
      to: GAS_PRICE_ORACLE_PREDEPLOY,
      gas: 90_000,
      data: "0xb3d72079" as Hex,
    },
  ].map(deposit);
}

const U128_MAX = (1n << 128n) - 1n;

/**
 * The Interop upgrade deposits: L2ToL2CrossDomainMessenger, SuperchainETHBridge and ETHLiquidity
 * (deployments, proxy updates, liquidity funding), plus CrossL2Inbox when the dependency set has more
 * than one chain.
 */
export function interopUpgradeDeposits(dependencySetSize: number): DepositTx[] {
  const p = "0x42200000000000000000000000000000000000";
  const inbox = deployer(0, p);
  const xdm = deployer(1, p);
  const bridge = deployer(2, p);
  const liq = deployer(3, p);
  const specs: UpgradeSpec[] = [
    deploy("Interop: L2ToL2CrossDomainMessenger Deployment", xdm, 1_100_000, code.L2_TO_L2_XDM_INTEROP),
    proxyUpdate("Interop: L2ToL2CrossDomainMessenger Proxy Update", L2_TO_L2_XDM_PREDEPLOY, createAddress(xdm)),
    deploy("Interop: SuperchainETHBridge Deployment", bridge, 500_000, code.SUPERCHAIN_ETH_BRIDGE_INTEROP),
    proxyUpdate("Interop: SuperchainETHBridge Proxy Update", SUPERCHAIN_ETH_BRIDGE_PREDEPLOY, createAddress(bridge)),
    deploy("Interop: ETHLiquidity Deployment", liq, 375_000, code.ETH_LIQUIDITY_INTEROP),
    proxyUpdate("Interop: ETHLiquidity Proxy Update", ETH_LIQUIDITY_PREDEPLOY, createAddress(liq)),
    {
      intent: "Interop: ETHLiquidity Funding",
      from: L1_INFO_DEPOSITOR,
      to: ETH_LIQUIDITY_PREDEPLOY,
      gas: 50_000,
      data: "0xb60d4288" as Hex,
      mint: U128_MAX,
      value: U128_MAX,
    },
  ];
  if (dependencySetSize > 1) {
    specs.push(
      deploy("Interop: CrossL2Inbox Deployment", inbox, 420_000, code.CROSS_L2_INBOX_INTEROP),
      proxyUpdate("Interop: CrossL2Inbox Proxy Update", CROSS_L2_INBOX_PREDEPLOY, createAddress(inbox)),
    );
  }
  return specs.map(deposit);
}

const NO_UPGRADE_TXS: readonly Uint8Array[] = Object.freeze([]);

/** Whether the L2 block at `timestamp` is the activation block of a fork with upgrade deposits. */
function activatesUpgradeFork(cfg: RollupConfig, timestamp: number): boolean {
  return (
    isForkActivationBlock(cfg, "ecotone", timestamp) ||
    isForkActivationBlock(cfg, "fjord", timestamp) ||
    isForkActivationBlock(cfg, "isthmus", timestamp) ||
    isForkActivationBlock(cfg, "jovian", timestamp) ||
    isForkActivationBlock(cfg, "lagoon", timestamp)
  );
}

/**
 * Upgrade deposits of the L2 block at `timestamp`, in protocol order (Ecotone, Fjord, Isthmus, Jovian,
 * Interop), as EIP-2718 bytes. Empty for blocks that activate no fork. Karst (NUT bundle) is not supported.
 */
export function upgradeTransactionsAt(
  cfg: RollupConfig,
  timestamp: number,
  opts: { readonly dependencySetSize?: number | undefined } = {},
): readonly Uint8Array[] {
  // Every block asks; only a fork's first block has any (ADR 0106): no arrays for the others.
  if (!activatesUpgradeFork(cfg, timestamp)) return NO_UPGRADE_TXS;
  const out: DepositTx[] = [];
  if (isForkActivationBlock(cfg, "ecotone", timestamp)) out.push(...ecotoneUpgradeDeposits());
  if (isForkActivationBlock(cfg, "fjord", timestamp)) out.push(...fjordUpgradeDeposits());
  if (isForkActivationBlock(cfg, "isthmus", timestamp)) out.push(...isthmusUpgradeDeposits());
  if (isForkActivationBlock(cfg, "jovian", timestamp)) out.push(...jovianUpgradeDeposits());
  if (isForkActivationBlock(cfg, "lagoon", timestamp)) out.push(...interopUpgradeDeposits(opts.dependencySetSize ?? 1));
  return out.map(encodeDepositTx);
}
