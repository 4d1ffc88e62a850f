/**
 * `supernode/node`: one virtual rollup node, for programs that host it themselves (the benches do): its constructor
 * over the ports it needs, the ports' types, and the Engine API client that implements the engine port.
 */
export { type ChainNodeIo, createChainNode } from "../node/create.js";
export type { ChainNode, ChainNodeConfig } from "../node/chain-node.js";
export type * from "../node/ports.js";
export type { BlockId, L1BlockRef, L2BlockRef } from "../core/types/block-ref.js";
export {
  EngineRpcClient,
  type EngineRpcClientDeps,
  type EngineRpcClientOptions,
} from "../io/engine/engine-rpc-client.js";
