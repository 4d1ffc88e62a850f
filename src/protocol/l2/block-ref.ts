import { hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { BlockId, L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import { asArray, asObject, jsonBig, jsonBytes, jsonHex, jsonNum } from "../block/json.js";
import { encodeEcotoneScalars, encodeEip1559Params, encodeOperatorFeeParams } from "../l1/fee-scalars.js";
import { isForkActive, type RollupConfig, type SystemConfig } from "../rollup-config.js";
import { DEPOSIT_TX_TYPE, depositTxData } from "./deposit-tx.js";
import { decodeExtraData } from "./extra-data.js";
import { decodeL1InfoData, type L1BlockInfo, type L1InfoFormat, l1InfoFormatAt } from "./l1-info.js";
import { upgradeGasToStrip } from "./upgrade-txs.js";

/** The L2 block facts needed to build its reference and SystemConfig. */
export interface L2BlockFacts {
  readonly hash: Hash;
  readonly number: number;
  readonly parentHash: Hash;
  readonly timestamp: number;
  /** Only needed by {@link systemConfigFromL2Block}. */
  readonly gasLimit?: bigint;
  readonly extraData?: Hex;
  /** EIP-2718 bytes (or hex) of the first transaction (the L1-info deposit); undefined when the block has none. */
  readonly firstTx: Uint8Array | Hex | undefined;
  /**
   * The calldata of the first transaction when it is already known to be a deposit (read from JSON): then
   * `firstTx` is not decoded (a shortcut; the L1-info decoding is the same).
   */
  readonly l1InfoData?: Uint8Array;
}

/**
 * The one constructor of L2 block refs: every producer (refs read from the EL, consolidated and built blocks, the
 * genesis and all-zero refs, sync status) makes them here, so every ref has one hidden class (fields in one order,
 * `l1origin` a fresh `{hash, number}`) and the code that handles heads stays optimized for it instead of
 * deoptimizing on a "wrong map".
 */
export function l2BlockRef(
  hash: Hash,
  number: number,
  parentHash: Hash,
  timestamp: number,
  l1origin: BlockId,
  sequenceNumber: number,
): L2BlockRef {
  return {
    hash,
    number,
    parentHash,
    timestamp,
    l1origin: { hash: l1origin.hash, number: l1origin.number },
    sequenceNumber,
  };
}

function isGenesis(cfg: RollupConfig, b: L2BlockFacts): boolean {
  if (b.number !== cfg.genesis.l2.number) return false;
  if (b.hash.toLowerCase() !== cfg.genesis.l2.hash.toLowerCase())
    throw new DecodeError(`expected L2 genesis hash ${cfg.genesis.l2.hash}, got ${b.hash}`);
  return true;
}

/** Decodes the L1-info deposit of a non-genesis L2 block (format selected by the block timestamp). */
export function l1InfoOfL2Block(
  cfg: RollupConfig,
  b: Pick<L2BlockFacts, "timestamp" | "firstTx" | "l1InfoData">,
): L1BlockInfo & { format: L1InfoFormat } {
  if (b.l1InfoData !== undefined) return decodeL1InfoData(b.l1InfoData, l1InfoFormatAt(cfg, b.timestamp));
  if (b.firstTx === undefined) throw new DecodeError("L2 block has no transactions (missing L1-info deposit)");
  const raw = typeof b.firstTx === "string" ? hexToBytes(b.firstTx) : b.firstTx;
  if (raw[0] !== DEPOSIT_TX_TYPE) throw new DecodeError("first L2 transaction is not a deposit");
  return decodeL1InfoData(depositTxData(raw), l1InfoFormatAt(cfg, b.timestamp));
}

/** L2 block → L2 block reference (l1origin and sequence number from its L1-info deposit; genesis from the config). */
export function l2BlockToBlockRef(cfg: RollupConfig, b: L2BlockFacts): L2BlockRef {
  if (isGenesis(cfg, b)) return l2BlockRef(b.hash, b.number, b.parentHash, b.timestamp, cfg.genesis.l1, 0);
  const info = l1InfoOfL2Block(cfg, b);
  return l2BlockRef(
    b.hash,
    b.number,
    b.parentHash,
    b.timestamp,
    { hash: info.blockHash, number: info.number },
    info.sequenceNumber,
  );
}

/** The header's gas limit without the one-time upgrade gas of a Karst / Lagoon activation block. */
function steadyGasLimit(cfg: RollupConfig, timestamp: number, gasLimit: bigint): bigint {
  const strip = upgradeGasToStrip(cfg, timestamp);
  if (gasLimit < strip) throw new DecodeError(`activation block gas limit ${gasLimit} below upgrade gas ${strip}`);
  return gasLimit - strip;
}

/**
 * Reconstructs the SystemConfig in effect after an L2 block (op-node `PayloadToSystemConfig`): batcher and
 * fee scalars from the L1-info deposit, gas limit from the header (less a fork's upgrade gas, `upgradeGasToStrip`), EIP-1559 params (Holocene) and min base
 * fee (Jovian) from extraData, operator fee (Isthmus) and DA footprint scalar (Jovian) from the L1 info.
 */
export function systemConfigFromL2Block(cfg: RollupConfig, b: L2BlockFacts): SystemConfig {
  if (isGenesis(cfg, b)) return cfg.genesis.system_config;
  if (b.gasLimit === undefined || b.extraData === undefined)
    throw new DecodeError("systemConfigFromL2Block needs gasLimit and extraData");
  const info = l1InfoOfL2Block(cfg, b);
  const bedrock = info.format === "bedrock";
  let eip1559Params: Hex = "0x0000000000000000";
  let minBaseFee = 0n;
  if (isForkActive(cfg, "holocene", b.timestamp)) {
    const p = decodeExtraData(b.extraData);
    eip1559Params = encodeEip1559Params({ denominator: p.denominator, elasticity: p.elasticity });
    if (isForkActive(cfg, "jovian", b.timestamp)) {
      if (p.minBaseFee === undefined) throw new DecodeError("Jovian block without v1 extraData");
      minBaseFee = p.minBaseFee;
    }
  }
  const opFee = info.format === "isthmus" || info.format === "jovian";
  const operatorFeeParams: Hash = opFee
    ? encodeOperatorFeeParams({ scalar: info.operatorFeeScalar, constant: info.operatorFeeConstant })
    : `0x${"00".repeat(32)}`;
  return {
    batcherAddr: info.batcherAddr,
    overhead: bedrock ? info.l1FeeOverhead : `0x${"00".repeat(32)}`,
    scalar: bedrock
      ? info.l1FeeScalar
      : encodeEcotoneScalars({ baseFeeScalar: info.baseFeeScalar, blobBaseFeeScalar: info.blobBaseFeeScalar }),
    gasLimit: steadyGasLimit(cfg, b.timestamp, b.gasLimit),
    eip1559Params,
    operatorFeeParams,
    minBaseFee,
    daFootprintGasScalar: info.format === "jovian" ? info.daFootprintGasScalar : 0,
  };
}

/**
 * The {@link L2BlockFacts} of an `eth_getBlockBy*` JSON block (full transactions, or hashes when only
 * the reference of a genesis block is needed).
 */
export function l2BlockFactsFromRpc(json: unknown): L2BlockFacts {
  const o = asObject(json, "L2 block");
  const w = "L2 block";
  const txs = asArray(o.transactions ?? [], "transactions");
  let firstTx: Uint8Array | undefined;
  let l1InfoData: Uint8Array | undefined;
  const t0 = txs[0];
  if (t0 !== undefined && typeof t0 === "object" && t0 !== null) {
    const t = asObject(t0, "transaction");
    // A non-deposit first tx is reported as such when decoding (type byte only). Of a deposit only the calldata
    // matters: read it directly (no re-encoding to decode it again).
    if (jsonNum(t, "type", "transaction") === DEPOSIT_TX_TYPE) {
      l1InfoData =
        t.input === undefined && t.data !== undefined
          ? jsonBytes(t, "data", "transaction")
          : jsonBytes(t, "input", "transaction");
    } else {
      firstTx = Uint8Array.of(0);
    }
  }
  const facts = {
    hash: jsonHex(o, "hash", w, 32),
    number: jsonNum(o, "number", w),
    parentHash: jsonHex(o, "parentHash", w, 32),
    timestamp: jsonNum(o, "timestamp", w),
    gasLimit: jsonBig(o, "gasLimit", w),
    extraData: jsonHex(o, "extraData", w),
    firstTx,
  };
  return l1InfoData === undefined ? facts : { ...facts, l1InfoData };
}
