/**
 * GasPriceOracle (`0x4200…000F`) and L1Block (`0x4200…0015`) answered natively behind the EVM's precompile hook
 * (docs/adr/0111): the real contracts' ABI, their values from the block's L1-info deposit (the L1 attributes the
 * real L1Block stores) and the fee formulas of the fee model in force, from the fee code the receipts use
 * (fees.ts). The L1-info deposit itself still lands as before (a call the executor does not run through the EVM).
 */
import { decodeFunctionData, encodeFunctionResult, parseAbi } from "viem";
import { hexToBytes, bytesToHex, type Hex } from "supernode/core";
import { decodeL1InfoData, GAS_PRICE_ORACLE_PREDEPLOY, L1_BLOCK_PREDEPLOY } from "supernode/protocol";
import { calldataGas, flzCompressLen, fjordLinearRegression, operatorFee, parseL1FeeParams } from "../fees.js";
import type { ViewNative } from "./evm-session.js";

export const GAS_PRICE_ORACLE_ABI = parseAbi([
  "function gasPrice() view returns (uint256)",
  "function baseFee() view returns (uint256)",
  "function overhead() view returns (uint256)",
  "function scalar() view returns (uint256)",
  "function l1BaseFee() view returns (uint256)",
  "function blobBaseFee() view returns (uint256)",
  "function baseFeeScalar() view returns (uint32)",
  "function blobBaseFeeScalar() view returns (uint32)",
  "function decimals() pure returns (uint256)",
  "function DECIMALS() view returns (uint256)",
  "function isEcotone() view returns (bool)",
  "function isFjord() view returns (bool)",
  "function isIsthmus() view returns (bool)",
  "function isJovian() view returns (bool)",
  "function getL1Fee(bytes _data) view returns (uint256)",
  "function getL1GasUsed(bytes _data) view returns (uint256)",
  "function getL1FeeUpperBound(uint256 _unsignedTxSize) view returns (uint256)",
  "function getOperatorFee(uint256 _gasUsed) view returns (uint256)",
  "function version() view returns (string)",
]);

export const L1_BLOCK_ABI = parseAbi([
  "function number() view returns (uint64)",
  "function timestamp() view returns (uint64)",
  "function basefee() view returns (uint256)",
  "function hash() view returns (bytes32)",
  "function sequenceNumber() view returns (uint64)",
  "function batcherHash() view returns (bytes32)",
  "function l1FeeOverhead() view returns (uint256)",
  "function l1FeeScalar() view returns (uint256)",
  "function blobBaseFee() view returns (uint256)",
  "function baseFeeScalar() view returns (uint32)",
  "function blobBaseFeeScalar() view returns (uint32)",
  "function operatorFeeScalar() view returns (uint32)",
  "function operatorFeeConstant() view returns (uint64)",
  "function daFootprintGasScalar() view returns (uint16)",
  "function version() view returns (string)",
]);

/** What the predeploys read: the block's L1-info calldata, its base fee and the L2 forks active in it. */
export interface L1PredeployEnv {
  readonly l1Info: () => Hex | undefined;
  readonly baseFee: bigint;
  readonly ecotone: boolean;
  readonly fjord: boolean;
  readonly isthmus: boolean;
  readonly jovian: boolean;
}

/** Gas a native view call costs: a warm proxy + implementation read, roughly what the real contracts take. */
const VIEW_GAS = 5_000n;
const DECIMALS = 6n;
/** 68 bytes of signature the GasPriceOracle adds to an unsigned transaction's size. */
const SIGNATURE_PADDING = 68;
const ERROR_SELECTOR = "0x08c379a0";

function revert(reason: string): { output: Uint8Array; gas: bigint; revert: true } {
  const msg = new TextEncoder().encode(reason);
  const len = BigInt(msg.length).toString(16).padStart(64, "0");
  const body = bytesToHex(msg)
    .slice(2)
    .padEnd(Math.ceil(msg.length / 32) * 64, "0");
  const data = `${ERROR_SELECTOR}${"20".padStart(64, "0")}${len}${body}` as Hex;
  return { output: hexToBytes(data), gas: VIEW_GAS, revert: true };
}

type Abi = typeof GAS_PRICE_ORACLE_ABI | typeof L1_BLOCK_ABI;

function answer(abi: Abi, input: Uint8Array, fn: (name: string, args: readonly unknown[]) => unknown) {
  let call: { functionName: string; args?: readonly unknown[] };
  try {
    call = decodeFunctionData({ abi, data: bytesToHex(input) }) as typeof call;
  } catch {
    return { output: new Uint8Array(0), gas: VIEW_GAS, revert: true as const };
  }
  try {
    const result = fn(call.functionName, call.args ?? []);
    const out = encodeFunctionResult({ abi, functionName: call.functionName, result } as never);
    return { output: hexToBytes(out), gas: VIEW_GAS };
  } catch (e) {
    return revert((e as Error).message);
  }
}

function info(env: L1PredeployEnv) {
  const data = env.l1Info();
  const d = data === undefined ? undefined : decodeL1InfoData(hexToBytes(data));
  const fees = data === undefined ? undefined : parseL1FeeParams(data);
  if (d === undefined || fees === undefined) throw new Error("L1Block: no L1 attributes in this block");
  return { d, fees };
}

/** The GasPriceOracle's L1 fee of `data` (an unsigned transaction) under the fee model of the block. */
export function oracleL1Fee(env: L1PredeployEnv, data: Uint8Array): bigint {
  const { fees: p } = info(env);
  const weighted = 16n * p.l1BaseFee * p.baseFeeScalar + p.blobBaseFee * p.blobBaseFeeScalar;
  if (env.fjord) return (fjordLinearRegression(flzCompressLen(data) + SIGNATURE_PADDING) * weighted) / 10n ** 12n;
  const gas = calldataGas(data) + BigInt(SIGNATURE_PADDING * 16);
  if (env.ecotone) return (gas * weighted) / (16n * 10n ** DECIMALS);
  return ((gas + p.overhead) * p.l1BaseFee * p.scalar) / 10n ** DECIMALS;
}

function oracleL1GasUsed(env: L1PredeployEnv, data: Uint8Array): bigint {
  const { fees: p } = info(env);
  if (env.fjord) return (fjordLinearRegression(flzCompressLen(data) + SIGNATURE_PADDING) * 16n) / 10n ** DECIMALS;
  const gas = calldataGas(data) + BigInt(SIGNATURE_PADDING * 16);
  return env.ecotone ? gas : gas + p.overhead;
}

function gasPriceOracle(env: L1PredeployEnv): ViewNative {
  return {
    address: GAS_PRICE_ORACLE_PREDEPLOY,
    call: (input) =>
      answer(GAS_PRICE_ORACLE_ABI, input, (name, args) => {
        switch (name) {
          case "gasPrice":
          case "baseFee":
            return env.baseFee;
          case "decimals":
          case "DECIMALS":
            return DECIMALS;
          case "isEcotone":
            return env.ecotone;
          case "isFjord":
            return env.fjord;
          case "isIsthmus":
            return env.isthmus;
          case "isJovian":
            return env.jovian;
          case "version":
            return "1.4.0";
          case "getL1Fee":
            return oracleL1Fee(env, hexToBytes(args[0] as Hex));
          case "getL1GasUsed":
            return oracleL1GasUsed(env, hexToBytes(args[0] as Hex));
          case "getL1FeeUpperBound": {
            if (!env.fjord) throw new Error("GasPriceOracle: getL1FeeUpperBound only supports Fjord");
            const size = (args[0] as bigint) + BigInt(SIGNATURE_PADDING);
            const { fees: p } = info(env);
            const weighted = 16n * p.l1BaseFee * p.baseFeeScalar + p.blobBaseFee * p.blobBaseFeeScalar;
            return (fjordLinearRegression(Number(size + size / 255n + 16n)) * weighted) / 10n ** 12n;
          }
          case "getOperatorFee":
            return env.isthmus ? operatorFee(args[0] as bigint, info(env).fees, env.jovian) : 0n;
          case "overhead":
            if (env.ecotone) throw new Error("GasPriceOracle: overhead() is deprecated");
            return info(env).fees.overhead;
          case "scalar":
            if (env.ecotone) throw new Error("GasPriceOracle: scalar() is deprecated");
            return info(env).fees.scalar;
          default:
            return l1BlockValue(env, name);
        }
      }),
  };
}

function l1BlockValue(env: L1PredeployEnv, name: string): unknown {
  const { d, fees } = info(env);
  switch (name) {
    case "number":
      return BigInt(d.number);
    case "timestamp":
      return BigInt(d.time);
    case "basefee":
    case "l1BaseFee":
      return d.baseFee;
    case "hash":
      return d.blockHash;
    case "sequenceNumber":
      return BigInt(d.sequenceNumber);
    case "batcherHash":
      return `0x${d.batcherAddr.slice(2).padStart(64, "0")}`;
    case "l1FeeOverhead":
      return fees.overhead;
    case "l1FeeScalar":
      return fees.scalar;
    case "blobBaseFee":
      return d.blobBaseFee;
    case "baseFeeScalar":
      return d.baseFeeScalar;
    case "blobBaseFeeScalar":
      return d.blobBaseFeeScalar;
    case "operatorFeeScalar":
      return d.operatorFeeScalar;
    case "operatorFeeConstant":
      return d.operatorFeeConstant;
    case "daFootprintGasScalar":
      return d.daFootprintGasScalar;
    case "version":
      return "1.6.0";
    default:
      throw new Error(`unknown function ${name}`);
  }
}

function l1Block(env: L1PredeployEnv): ViewNative {
  return {
    address: L1_BLOCK_PREDEPLOY,
    call: (input) => answer(L1_BLOCK_ABI, input, (name) => l1BlockValue(env, name)),
  };
}

/** The natively answered L1 predeploys of one block. */
export function l1Predeploys(env: L1PredeployEnv): ViewNative[] {
  return [gasPriceOracle(env), l1Block(env)];
}
