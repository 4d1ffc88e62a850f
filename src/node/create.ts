/**
 * Assembles a `ChainNode` with the real derivation pipeline and attributes builder over the given ports (the
 * composition root passes the shared L1 client, the beacon client, the chain's Engine API client and SafeDB).
 */
import type { L2BlockRef } from "../core/types/block-ref.js";
import type { L1ChainConfig } from "../protocol/l1/blob-fee.js";
import { ChainNode, type ChainNodeConfig, type ChainNodeDeps } from "./chain-node.js";
import { FetchingAttributesBuilder } from "./derivation/attributes-builder.js";
import { l2RefFromPayload } from "./derivation/l2-block.js";
import { L1DerivationPipeline } from "./derivation/pipeline.js";
import type { ExecutionPayloadEnvelope } from "./ports.js";

export type ChainNodeIo = Omit<ChainNodeDeps, "createPipeline" | "attributesBuilder" | "refFromPayload"> & {
  /** L1 fork schedule for the blob base fee (default: built-in for mainnet/sepolia, else a Prague devnet L1). */
  readonly l1ChainConfig?: L1ChainConfig | undefined;
};

export async function createChainNode(cfg: ChainNodeConfig, io: ChainNodeIo): Promise<ChainNode> {
  const refFromPayload = (env: ExecutionPayloadEnvelope): L2BlockRef => l2RefFromPayload(cfg.rollup, env);
  const builder = new FetchingAttributesBuilder(cfg.rollup, io.l1, io.engine, io.l1ChainConfig, {
    dependencySetSize: cfg.dependencySetSize,
    nutBundles: cfg.nutBundles,
  });
  return ChainNode.create(cfg, {
    ...io,
    refFromPayload,
    attributesBuilder: builder,
    createPipeline: () =>
      new L1DerivationPipeline({
        cfg: cfg.rollup,
        l1: io.l1,
        blobs: io.blobs,
        engine: io.engine,
        builder,
        refFromPayload,
        logger: io.logger.child({ component: "derivation" }),
        l1Confs: cfg.verifierL1Confs,
      }),
  });
}
