/**
 * Shared rig: a ChainNode over the port fakes (FakeL1, FakeEngine, ToyPipeline, MemorySafeDb), as the unit tests
 * of the node and of its RPC handlers start it.
 */
import type { Logger } from "../../../src/core/logger.js";
import { silentLogger } from "../../../src/core/logger.js";
import { type Clock, systemClock } from "../../../src/core/time/clock.js";
import { ChainNode, type ChainNodeConfig, type ChainNodeDeps } from "../../../src/node/chain-node.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { type FakeEngine, type FakeL1, MemorySafeDb, ToyPipeline, fakeAttributesBuilder } from "./fakes.js";

type NodeConfigOverrides = Partial<Omit<ChainNodeConfig, "rollup" | "sequencer">> & {
  readonly sequencer?: Partial<ChainNodeConfig["sequencer"]>;
};

/** A verifier (sequencer disabled) in consensus-layer sync on `variant_b`, no confirmations, 5 ms idle poll. */
export function toyNodeConfig(rollup: RollupConfig, over: NodeConfigOverrides = {}): ChainNodeConfig {
  const { sequencer, ...rest } = over;
  return {
    rollup,
    engineKind: "variant_b",
    syncMode: "consensus-layer",
    sequencer: { enabled: false, stopped: false, l1Confs: 0, maxSafeLag: 0, recoverMode: false, ...sequencer },
    verifierL1Confs: 0,
    idlePollMs: 5,
    ...rest,
  };
}

export interface ToyNodeOptions {
  readonly l1: FakeL1;
  readonly engine: FakeEngine;
  readonly config: ChainNodeConfig;
  readonly safeDb?: MemorySafeDb;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** One pipeline for the node's lifetime instead of a fresh ToyPipeline per `createPipeline` call. */
  readonly singlePipeline?: boolean;
  readonly extra?: Partial<
    Pick<ChainNodeDeps, "metrics" | "sequencerStore" | "sink" | "blobs" | "superAuthority" | "gapFiller">
  >;
}

/** Creates and starts the node (the caller stops it). */
export async function startToyNode(o: ToyNodeOptions): Promise<ChainNode> {
  const cfg = o.config.rollup;
  const builder = fakeAttributesBuilder(cfg, o.l1);
  const single = o.singlePipeline === true ? new ToyPipeline(cfg, o.l1, builder) : undefined;
  const node = await ChainNode.create(o.config, {
    l1: o.l1,
    engine: o.engine,
    safeDb: o.safeDb ?? new MemorySafeDb(),
    clock: o.clock ?? systemClock,
    logger: o.logger ?? silentLogger,
    createPipeline: () => single ?? new ToyPipeline(cfg, o.l1, builder),
    attributesBuilder: builder,
    refFromPayload: o.engine.refOf,
    ...o.extra,
  });
  await node.start();
  return node;
}
