/**
 * `supernode/node`: one virtual rollup node, for programs that host it themselves (the benches do): its constructor
 * over the ports it needs, the ports' types, and the supernode's own implementations of them (the Engine API client
 * and the engine controller over it, the L1 client, the local and remote block signers); the view the JSON-RPC
 * server reads (`ChainRpcView`); and the interop activity that verifies cross-chain messages between nodes, over its
 * LevelDB stores.
 */
export { type ChainNodeIo, createChainNode } from "../node/create.js";
export type { ChainNode, ChainNodeConfig } from "../node/chain-node.js";
export type * from "../node/ports.js";
export type { ChainRpcView } from "../node/chain-view.js";
export type { BlockId, L1BlockRef, L2BlockRef, SyncStatus } from "../core/types/block-ref.js";
export { ZERO_SYNC_STATUS } from "../activities/sync-status.js";
export { EngineController, type EngineControllerDeps } from "../node/engine/engine-controller.js";
export { L1Client, type L1ClientDeps, type L1ClientOptions } from "../io/l1/l1-client.js";
export { type BlockSigner, LocalBlockSigner } from "../p2p/publisher.js";
export { RemoteBlockSigner, type RemoteSignerOptions } from "../io/signer/remote-signer.js";
export {
  InteropActivity,
  type InteropActivityConfig,
  type InteropActivityDeps,
  type InteropStatus,
} from "../activities/interop/activity.js";
export { LogsStore } from "../io/db/interop/logs-store.js";
export { VerifiedStore } from "../io/db/interop/verified-store.js";
export {
  EngineRpcClient,
  type EngineRpcClientDeps,
  type EngineRpcClientOptions,
} from "../io/engine/engine-rpc-client.js";
