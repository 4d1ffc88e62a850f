/**
 * Reading an L2 block through the protocol decoders: its block ref (`l1origin`, `sequenceNumber` from the L1-info
 * deposit) and the SystemConfig it was built with (op-node §2.9.7). Thin glue over `protocol/l2`.
 */
import { hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import { decodeDepositTx } from "../../protocol/l2/deposit-tx.js";
import { decodeExtraData } from "../../protocol/l2/extra-data.js";
import { decodeL1InfoData, l1InfoFormatAt } from "../../protocol/l2/l1-info.js";
import { encodeEcotoneScalars, encodeEip1559Params, encodeOperatorFeeParams } from "../../protocol/l1/fee-scalars.js";
import { isForkActive, type RollupConfig, type SystemConfig } from "../../protocol/rollup-config.js";
import type { ExecutionPayloadEnvelope } from "../ports.js";

function l1InfoOf(cfg: RollupConfig, env: ExecutionPayloadEnvelope) {
  const p = env.executionPayload;
  const first = p.transactions[0];
  if (first === undefined) throw new DecodeError("L2 block has no L1-info deposit", { number: p.blockNumber });
  const tx = decodeDepositTx(hexToBytes(first));
  return decodeL1InfoData(hexToBytes(tx.data), l1InfoFormatAt(cfg, p.timestamp));
}

/** L2 block ref of an execution payload (genesis: the rollup config's L1 genesis, sequence number 0). */
export function l2RefFromPayload(cfg: RollupConfig, env: ExecutionPayloadEnvelope): L2BlockRef {
  const p = env.executionPayload;
  const base = { hash: p.blockHash, number: p.blockNumber, parentHash: p.parentHash, timestamp: p.timestamp };
  if (p.blockNumber === cfg.genesis.l2.number) {
    return { ...base, l1origin: { ...cfg.genesis.l1 }, sequenceNumber: 0 };
  }
  const info = l1InfoOf(cfg, env);
  return { ...base, l1origin: { hash: info.blockHash, number: info.number }, sequenceNumber: info.sequenceNumber };
}

/** The SystemConfig an L2 block was built with (genesis: the rollup config's). */
export function systemConfigFromPayload(cfg: RollupConfig, env: ExecutionPayloadEnvelope): SystemConfig {
  const p = env.executionPayload;
  if (p.blockNumber === cfg.genesis.l2.number) return cfg.genesis.system_config;
  const info = l1InfoOf(cfg, env);
  const g = cfg.genesis.system_config;
  let sys: SystemConfig = {
    ...g,
    batcherAddr: info.batcherAddr,
    overhead: info.l1FeeOverhead,
    scalar: info.l1FeeScalar,
    gasLimit: p.gasLimit,
  };
  if (info.format !== "bedrock") {
    sys = {
      ...sys,
      overhead: `0x${"00".repeat(32)}`,
      scalar: encodeEcotoneScalars({ baseFeeScalar: info.baseFeeScalar, blobBaseFeeScalar: info.blobBaseFeeScalar }),
    };
  }
  if (isForkActive(cfg, "holocene", p.timestamp) && p.extraData !== "0x") {
    const x = decodeExtraData(p.extraData);
    sys = {
      ...sys,
      eip1559Params: encodeEip1559Params({ denominator: x.denominator, elasticity: x.elasticity }),
      ...(x.minBaseFee !== undefined ? { minBaseFee: x.minBaseFee } : {}),
    };
  }
  if (info.format === "isthmus" || info.format === "jovian") {
    sys = {
      ...sys,
      operatorFeeParams: encodeOperatorFeeParams({
        scalar: info.operatorFeeScalar,
        constant: info.operatorFeeConstant,
      }),
    };
  }
  if (info.format === "jovian") sys = { ...sys, daFootprintGasScalar: info.daFootprintGasScalar };
  return sys;
}
