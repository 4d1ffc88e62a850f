/**
 * `supernode/protocol`: the pure OP Stack logic (no I/O): rollup config and forks, blocks and receipts, RLP and
 * tries, deposits and L1-info transactions, frames, channels and batches, blobs, payload attributes and ids,
 * interop messages and dependency sets, P2P block gossip (topics, signing, validation). Public: the devnet package,
 * the benches and library users import these and nothing below `src/`.
 */
export * from "../protocol/block/header.js";
export * from "../protocol/block/keccak.js";
export * from "../protocol/block/l1-block-validate.js";
export * from "../protocol/block/payload-hash.js";
export * from "../protocol/block/receipt.js";
export * from "../protocol/block/rlp.js";
export * from "../protocol/block/rpc-transaction.js";
export * from "../protocol/block/trie.js";
export * from "../protocol/derive/batch.js";
export * from "../protocol/derive/batch-singular.js";
export * from "../protocol/derive/batch-span.js";
export * from "../protocol/derive/batch-span-encode.js";
export * from "../protocol/derive/chain-spec.js";
export * from "../protocol/derive/channel-out.js";
export * from "../protocol/derive/channel-reader.js";
export * from "../protocol/derive/frame.js";
/** The Engine API shapes as the node sees them (names shared with `block/payload-hash`, `l2/attributes`). */
export type * as EngineApiTypes from "../protocol/engine-api-types.js";
export * from "../protocol/interop/dependency-set.js";
export * from "../protocol/interop/messages.js";
export * from "../protocol/interop/rules.js";
export * from "../protocol/l1/batcher-tx.js";
export * from "../protocol/l1/blob.js";
export * from "../protocol/l1/blob-fee.js";
export * from "../protocol/l1/deposit-log.js";
export * from "../protocol/l1/fee-scalars.js";
export * from "../protocol/l1/signed-tx.js";
export * from "../protocol/l1/source-hash.js";
export * from "../protocol/l1/system-config.js";
export * from "../protocol/l2/attributes.js";
export * from "../protocol/l2/block-ref.js";
export * from "../protocol/l2/deposit-tx.js";
export * from "../protocol/l2/extra-data.js";
export * from "../protocol/l2/l1-info.js";
export * from "../protocol/l2/upgrade-txs.js";
export * from "../protocol/p2p/gossip.js";
export * from "../protocol/p2p/signing.js";
export * from "../protocol/p2p/validate.js";
export * from "../protocol/payload-id.js";
export * from "../protocol/rollup-config.js";
export * from "../protocol/rollup-config-json.js";
