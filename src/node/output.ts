/** Output root (version 0) of an L2 block, read through the engine port (op-node §1.3); hashing in protocol/output-root. */
import type { Address, Hash } from "../core/types/primitives.js";
import type { L2BlockRef } from "../core/types/block-ref.js";
import { OUTPUT_VERSION_V0, outputRootV0 } from "../protocol/output-root.js";
import { isForkActive, type RollupConfig } from "../protocol/rollup-config.js";
import type { OutputAtBlock } from "./chain-view.js";
import { NodeRpcError } from "./errors.js";
import type { ExecutionEngine, ExecutionPayloadEnvelope } from "./ports.js";

export const L2_TO_L1_MESSAGE_PASSER: Address = "0x4200000000000000000000000000000000000016";

export async function computeOutputAtBlock(
  cfg: RollupConfig,
  engine: ExecutionEngine,
  refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef,
  n: number,
): Promise<OutputAtBlock> {
  const env = await engine.payloadByNumber(n);
  if (env === undefined) {
    throw new NodeRpcError("NOT_FOUND", `failed to get L2 block ref with sync status: block ${n} not found`);
  }
  const p = env.executionPayload;
  const storageRoot = await messagePasserRoot(cfg, engine, p);
  return {
    version: OUTPUT_VERSION_V0,
    // The one output-root implementation, vector-tested in test/conformance/output-root.test.ts.
    outputRoot: outputRootV0({ stateRoot: p.stateRoot, messagePasserStorageRoot: storageRoot, blockHash: p.blockHash }),
    blockRef: refFromPayload(env),
    withdrawalStorageRoot: storageRoot,
    stateRoot: p.stateRoot,
  };
}

/**
 * The output (v0 fields) of the block with hash `hash`, read by hash (so it stays the same block's output whatever
 * the canonical chain does meanwhile); undefined when the execution client does not have that block.
 */
export async function outputV0ByHash(
  cfg: RollupConfig,
  engine: Pick<ExecutionEngine, "payloadByHash" | "getProof">,
  hash: Hash,
): Promise<{ stateRoot: Hash; messagePasserStorageRoot: Hash; blockHash: Hash } | undefined> {
  const env = await engine.payloadByHash(hash);
  if (env === undefined) return undefined;
  const p = env.executionPayload;
  return {
    stateRoot: p.stateRoot,
    messagePasserStorageRoot: await messagePasserRoot(cfg, engine, p),
    blockHash: p.blockHash,
  };
}

/** The L2ToL1MessagePasser's storage root: the header's withdrawalsRoot from Isthmus, else a proof at the block. */
async function messagePasserRoot(
  cfg: RollupConfig,
  engine: Pick<ExecutionEngine, "getProof">,
  p: ExecutionPayloadEnvelope["executionPayload"],
): Promise<Hash> {
  if (isForkActive(cfg, "isthmus", p.timestamp) && p.withdrawalsRoot !== undefined) return p.withdrawalsRoot;
  return (await engine.getProof(L2_TO_L1_MESSAGE_PASSER, [], p.blockHash)).storageHash;
}
