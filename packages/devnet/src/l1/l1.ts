/**
 * The devnet L1: anvil plus, for each devnet chain, a deposit contract and a SystemConfig stand-in at fixed
 * per-chain addresses, with helpers that make a deposit or change the system config, each returning the L1 receipt.
 */
import { encodeFunctionData, type TransactionReceipt } from "viem";
import { type Address, bytesToHex, concatBytes, type Hex, hexToBytes, padHex } from "supernode/core";
import { Anvil, type AnvilOptions } from "./anvil.js";
import {
  ConfigUpdateType,
  type ConfigUpdateTypeName,
  DEPOSIT_CONTRACT_CODE,
  depositContractAddress,
  SYSTEM_CONFIG_CODE,
  systemConfigAddress,
} from "./contracts.js";
import { type BeaconApi, startBeaconApi } from "./beacon-api.js";
import { DEPLOYER_INDEX, devAccount } from "./dev-accounts.js";
import { L1Client } from "./l1-client.js";

export const DEPOSIT_TRANSACTION_ABI = [
  {
    type: "function",
    name: "depositTransaction",
    stateMutability: "payable",
    inputs: [
      { name: "_to", type: "address" },
      { name: "_value", type: "uint256" },
      { name: "_gasLimit", type: "uint64" },
      { name: "_isCreation", type: "bool" },
      { name: "_data", type: "bytes" },
    ],
    outputs: [],
  },
] as const;

export interface DepositRequest {
  /** Dev account index that sends the L1 transaction (default 0). The L2 `from` is that account's address. */
  readonly fromAccount?: number;
  /** L2 recipient; `null` = contract creation. */
  readonly to: Address | null;
  /** L2 value transferred (default 0). */
  readonly value?: bigint;
  /** ETH minted on L2 = the L1 msg.value (default 0). */
  readonly mint?: bigint;
  /** L2 gas limit (default 100_000). */
  readonly gasLimit?: bigint;
  readonly data?: Hex;
}

const u256 = (v: bigint | number): Hex => padHex(`0x${BigInt(v).toString(16)}` as Hex, 32);

/** The exact ConfigUpdate payloads the real SystemConfig setters emit (before the outer `abi.encode(bytes)`). */
export const configPayload = {
  batcher: (addr: Address): Hex => padHex(addr.toLowerCase() as Hex, 32),
  /** Pre-Ecotone `setGasConfig(overhead, scalar)`: two raw words. */
  feeScalarsLegacy: (overhead: bigint, scalar: bigint): Hex =>
    bytesToHex(concatBytes(hexToBytes(u256(overhead)), hexToBytes(u256(scalar)))),
  /** `setGasConfigEcotone(basefeeScalar, blobbasefeeScalar)`: overhead 0, scalar = 0x01 ‖ 0… ‖ blob u32 ‖ base u32. */
  feeScalars: (baseFeeScalar: number, blobBaseFeeScalar: number): Hex => {
    const scalar = (1n << 248n) | (BigInt(blobBaseFeeScalar) << 32n) | BigInt(baseFeeScalar);
    return bytesToHex(concatBytes(hexToBytes(u256(0)), hexToBytes(u256(scalar))));
  },
  gasLimit: (gasLimit: bigint): Hex => u256(gasLimit),
  unsafeBlockSigner: (addr: Address): Hex => padHex(addr.toLowerCase() as Hex, 32),
  eip1559Params: (denominator: number, elasticity: number): Hex =>
    u256((BigInt(denominator) << 32n) | BigInt(elasticity)),
  operatorFee: (scalar: number, constant: bigint): Hex => u256((BigInt(scalar) << 64n) | constant),
  minBaseFee: (minBaseFee: bigint): Hex => u256(minBaseFee),
  daFootprintGasScalar: (scalar: number): Hex => u256(scalar),
};

export interface DevnetL1Options extends AnvilOptions {
  /** Chains whose contracts are placed at start (more can be added with `deployChain`). */
  readonly chainIds?: readonly (bigint | number)[];
  /**
   * Serve the beacon API as a consensus client does (`config/spec`, blobs by slot; beacon-api.ts) in front of
   * anvil's, so `beaconUrl` works for op-node's beacon client. Default false: `beaconUrl` is anvil's own.
   */
  readonly beaconApi?: boolean;
}

/** Anvil plus the per-chain rollup contracts. */
export class DevnetL1 {
  readonly client: L1Client;
  private readonly chains = new Map<bigint, L1ChainContracts>();
  private beacon: BeaconApi | undefined;

  private constructor(readonly anvil: Anvil) {
    this.client = new L1Client(anvil.rpcUrl, anvil.chainId);
  }

  /** Starts anvil and places the contracts of `chainIds` (then mines one block so they exist at a real block). */
  static async start(opts: DevnetL1Options = {}): Promise<DevnetL1> {
    const anvil = await Anvil.start(opts);
    try {
      const l1 = new DevnetL1(anvil);
      for (const id of opts.chainIds ?? []) await l1.deployChain(id, false);
      await anvil.mine(1);
      if (opts.beaconApi === true) {
        const secondsPerSlot = Math.max(1, anvil.blockTimeSec);
        l1.beacon = await startBeaconApi({
          anvilUrl: anvil.beaconUrl,
          secondsPerSlot,
          slotsPerEpoch: anvil.slotsInAnEpoch,
        });
      }
      return l1;
    } catch (err) {
      await anvil.stop();
      throw err;
    }
  }

  /** Wraps an already-running anvil. */
  static attach(anvil: Anvil): DevnetL1 {
    return new DevnetL1(anvil);
  }

  get rpcUrl(): string {
    return this.anvil.rpcUrl;
  }

  get beaconUrl(): string {
    return this.beacon?.url ?? this.anvil.beaconUrl;
  }

  /** Places the deposit and SystemConfig contracts of `chainId` (idempotent). */
  async deployChain(chainId: bigint | number, mine = true): Promise<L1ChainContracts> {
    const id = BigInt(chainId);
    const existing = this.chains.get(id);
    if (existing !== undefined) return existing;
    const c = new L1ChainContracts(this.client, id, DEPLOYER_INDEX);
    await this.anvil.setCode(c.depositContract, DEPOSIT_CONTRACT_CODE);
    await this.anvil.setCode(c.systemConfig, SYSTEM_CONFIG_CODE);
    if (mine) await this.anvil.mine(1);
    this.chains.set(id, c);
    return c;
  }

  /** The contracts of a deployed chain. */
  chain(chainId: bigint | number): L1ChainContracts {
    const c = this.chains.get(BigInt(chainId));
    if (c === undefined) throw new Error(`chain ${chainId} has no contracts on the devnet L1`);
    return c;
  }

  async stop(): Promise<void> {
    await this.beacon?.close();
    await this.anvil.stop();
  }

  /** The address of dev account `index` (for batcher / signer settings). */
  static accountAddress(index: number): Address {
    return devAccount(index).address;
  }
}

/** One chain's deposit contract and SystemConfig on the devnet L1. */
export class L1ChainContracts {
  readonly depositContract: Address;
  readonly systemConfig: Address;

  constructor(
    private readonly client: L1Client,
    readonly chainId: bigint,
    private readonly ownerIndex: number,
  ) {
    this.depositContract = depositContractAddress(chainId);
    this.systemConfig = systemConfigAddress(chainId);
  }

  /** Calls the deposit contract; the emitted TransactionDeposited log is in the receipt. */
  async deposit(req: DepositRequest): Promise<TransactionReceipt> {
    const data = encodeFunctionData({
      abi: DEPOSIT_TRANSACTION_ABI,
      functionName: "depositTransaction",
      args: [
        req.to ?? "0x0000000000000000000000000000000000000000",
        req.value ?? 0n,
        req.gasLimit ?? 100_000n,
        req.to === null,
        req.data ?? "0x",
      ],
    });
    return this.client.sendAndWait(req.fromAccount ?? DEPLOYER_INDEX, {
      to: this.depositContract,
      data,
      value: req.mint ?? 0n,
      gas: 500_000n,
    });
  }

  /** Emits one ConfigUpdate of `type` with the given (already ABI-encoded) payload. */
  async configUpdate(type: ConfigUpdateTypeName, payload: Hex): Promise<TransactionReceipt> {
    const data = bytesToHex(concatBytes(hexToBytes(u256(ConfigUpdateType[type])), hexToBytes(payload)));
    return this.client.sendAndWait(this.ownerIndex, { to: this.systemConfig, data, gas: 200_000n });
  }

  setBatcher(addr: Address): Promise<TransactionReceipt> {
    return this.configUpdate("batcher", configPayload.batcher(addr));
  }

  /** Ecotone-style fee scalars (`setGasConfigEcotone`). */
  setFeeScalars(baseFeeScalar: number, blobBaseFeeScalar: number): Promise<TransactionReceipt> {
    return this.configUpdate("feeScalars", configPayload.feeScalars(baseFeeScalar, blobBaseFeeScalar));
  }

  /** Pre-Ecotone `setGasConfig(overhead, scalar)`. */
  setGasConfig(overhead: bigint, scalar: bigint): Promise<TransactionReceipt> {
    return this.configUpdate("feeScalars", configPayload.feeScalarsLegacy(overhead, scalar));
  }

  setGasLimit(gasLimit: bigint): Promise<TransactionReceipt> {
    return this.configUpdate("gasLimit", configPayload.gasLimit(gasLimit));
  }

  setUnsafeBlockSigner(addr: Address): Promise<TransactionReceipt> {
    return this.configUpdate("unsafeBlockSigner", configPayload.unsafeBlockSigner(addr));
  }

  setEip1559Params(denominator: number, elasticity: number): Promise<TransactionReceipt> {
    return this.configUpdate("eip1559Params", configPayload.eip1559Params(denominator, elasticity));
  }

  setOperatorFee(scalar: number, constant: bigint): Promise<TransactionReceipt> {
    return this.configUpdate("operatorFee", configPayload.operatorFee(scalar, constant));
  }

  setMinBaseFee(minBaseFee: bigint): Promise<TransactionReceipt> {
    return this.configUpdate("minBaseFee", configPayload.minBaseFee(minBaseFee));
  }

  setDaFootprintGasScalar(scalar: number): Promise<TransactionReceipt> {
    return this.configUpdate("daFootprintGasScalar", configPayload.daFootprintGasScalar(scalar));
  }
}
