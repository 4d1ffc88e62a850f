/**
 * Adapter from an execution payload to the protocol layer's L2 block reading (`protocol/l2/block-ref.ts`): its
 * block ref (`l1origin`, `sequenceNumber` from the L1-info deposit) and the SystemConfig it was built with
 * (op-node §2.9.7). No decoding happens here.
 */
import type { L2BlockRef } from "../../core/types/block-ref.js";
import { type L2BlockFacts, l2BlockToBlockRef, systemConfigFromL2Block } from "../../protocol/l2/block-ref.js";
import type { RollupConfig, SystemConfig } from "../../protocol/rollup-config.js";
import type { ExecutionPayloadEnvelope } from "../ports.js";

/** The {@link L2BlockFacts} of an execution payload. */
export function l2BlockFactsOfPayload(env: ExecutionPayloadEnvelope): L2BlockFacts {
  const p = env.executionPayload;
  return {
    hash: p.blockHash,
    number: p.blockNumber,
    parentHash: p.parentHash,
    timestamp: p.timestamp,
    gasLimit: p.gasLimit,
    extraData: p.extraData,
    firstTx: p.transactions[0],
  };
}

/** L2 block ref of an execution payload (genesis: the rollup config's L1 genesis, sequence number 0). */
export function l2RefFromPayload(cfg: RollupConfig, env: ExecutionPayloadEnvelope): L2BlockRef {
  return l2BlockToBlockRef(cfg, l2BlockFactsOfPayload(env));
}

/** The SystemConfig an L2 block was built with (genesis: the rollup config's). */
export function systemConfigFromPayload(cfg: RollupConfig, env: ExecutionPayloadEnvelope): SystemConfig {
  return systemConfigFromL2Block(cfg, l2BlockFactsOfPayload(env));
}
