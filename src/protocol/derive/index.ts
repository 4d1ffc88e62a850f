/** Public API of the derivation codecs and stages (frames, channels, batches, validity, batch queue/stage). */
export * from "./batch.js";
export * from "./batch-singular.js";
export * from "./batch-span.js";
export * from "./batch-span-encode.js";
export * from "./chain-spec.js";
export * from "./channel.js";
export * from "./channel-assembler.js";
export * from "./channel-bank.js";
export * from "./channel-out.js";
export * from "./channel-reader.js";
export * from "./frame.js";
export { rebuildSpanTxs } from "./span-tx-rebuild.js";
export {
  parseSpanTxData,
  splitFullTx,
  TX_TYPE_ACCESS_LIST,
  TX_TYPE_BLOB,
  TX_TYPE_DEPOSIT,
  TX_TYPE_DYNAMIC_FEE,
  TX_TYPE_LEGACY,
  TX_TYPE_SET_CODE,
  type SpanTxParts,
} from "./span-batch-tx.js";
export * from "./batch-queue.js";
export * from "./batch-stage.js";
export * from "./batch-stage-base.js";
export * from "./batch-validity.js";
