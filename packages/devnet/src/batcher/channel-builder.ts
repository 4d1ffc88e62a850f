/**
 * Turns a run of L2 blocks into batcher data items: batches (singular or one span batch) → compressed channel
 * → frames → one data item (`0x00 ‖ frame`) per frame. Pure apart from the random channel id.
 */
import { randomBytes } from "node:crypto";
import { bytesToHex } from "supernode/core";
import {
  type BatchData,
  type ChannelId,
  type Compression,
  encodeChannel,
  encodeFrames,
  type Frame,
  isBrotliAllowed,
  isForkActive,
  isSpanBatchAllowed,
  type RollupConfig,
  SINGULAR_BATCH_TYPE,
  SPAN_BATCH_TYPE,
  spanBatchFromSingularBatches,
  splitIntoFrames,
} from "supernode/protocol";
import { type BatchBlock, singularBatchOf } from "./l2-reader.js";

export type BatchType = "singular" | "span";

export interface ChannelBuildOptions {
  readonly batchType: BatchType;
  /** `auto` = brotli when Fjord is active at `l1Time`, else zlib. */
  readonly compression: Compression | "auto";
  /** Maximum encoded frame size (23 bytes of overhead + data). */
  readonly maxFrameSize: number;
  /** L1 time the channel is expected to land at (fork checks). */
  readonly l1Time: number;
}

export interface BuiltChannel {
  readonly id: ChannelId;
  readonly blocks: readonly BatchBlock[];
  readonly batchType: BatchType;
  readonly compression: Compression;
  readonly frames: readonly Frame[];
  /** One batcher data item per frame: `0x00 ‖ frame`. */
  readonly dataItems: readonly Uint8Array[];
}

/** The batches carrying `blocks` (consecutive, oldest first). */
export function batchesFor(cfg: RollupConfig, blocks: readonly BatchBlock[], type: BatchType): BatchData[] {
  const singulars = blocks.map(singularBatchOf);
  if (type === "singular") return singulars.map((batch) => ({ type: SINGULAR_BATCH_TYPE, batch }));
  const first = blocks[0];
  if (first === undefined) return [];
  const raw = spanBatchFromSingularBatches(singulars, {
    genesisL2Time: cfg.genesis.l2_time,
    chainId: cfg.l2_chain_id,
    firstSequenceNumber: first.sequenceNumber,
  });
  return [{ type: SPAN_BATCH_TYPE, batch: raw }];
}

export function buildChannel(
  cfg: RollupConfig,
  blocks: readonly BatchBlock[],
  opts: ChannelBuildOptions,
): BuiltChannel {
  if (blocks.length === 0) throw new RangeError("a channel needs at least one block");
  // A span batch needs Delta at the L1 time it lands at and at its start epoch (the first block's L1 origin):
  // derivation drops a span batch whose start epoch is before Delta (op-node checkSpanBatch).
  const firstOriginTime = blocks[0]?.l1OriginTime;
  const spanOk =
    isSpanBatchAllowed(cfg, opts.l1Time) &&
    (firstOriginTime === undefined || isForkActive(cfg, "delta", firstOriginTime));
  const batchType: BatchType = opts.batchType === "span" && spanOk ? "span" : "singular";
  const compression: Compression =
    opts.compression === "auto" ? (isBrotliAllowed(cfg, opts.l1Time) ? "brotli" : "zlib") : opts.compression;
  const data = encodeChannel(batchesFor(cfg, blocks, batchType), { compression });
  const id = bytesToHex(new Uint8Array(randomBytes(16)));
  const frames = splitIntoFrames(id, data, opts.maxFrameSize);
  return { id, blocks, batchType, compression, frames, dataItems: frames.map((f) => encodeFrames([f])) };
}
