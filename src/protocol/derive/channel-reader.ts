/**
 * Channel reader (op-node `ChannelInReader` + `BatchReader`): decompresses a channel (zlib, or brotli with the
 * `0x01` version byte from Fjord) and reads its sequence of RLP byte strings, each a typed batch, capped at the
 * per-fork maximum of decompressed RLP bytes.
 *
 * Semantics kept from op-node's streaming reader: batches read before an error stay valid; a decompression error,
 * a truncated/oversized RLP item, or a batch decode error ends the channel; a span batch that cannot be derived
 * (bad tx data) or arrives before Delta is dropped and reading continues.
 */
import zlib from "node:zlib";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { RollupConfig } from "../rollup-config.js";
import { decodeBatch, SINGULAR_BATCH_TYPE } from "./batch.js";
import type { SingularBatch } from "./batch-singular.js";
import { deriveSpanBatch, postExecBeforeSdm, type RawSpanBatch, type SpanBatch } from "./batch-span.js";
import { CHANNEL_VERSION_BROTLI, isBrotliAllowed, isSpanBatchAllowed, maxRlpBytesPerChannel } from "./chain-spec.js";
import { readItem } from "./rlp.js";

export type Compression = "zlib" | "brotli";

/** Fork-dependent parameters of the reader (see `channelReaderOptions`). */
export interface ChannelReaderOptions {
  readonly maxRlpBytes: number;
  readonly brotliAllowed: boolean;
  readonly spanBatchesAllowed: boolean;
  readonly blockTime: number;
  readonly genesisL2Time: number;
  readonly l2ChainId: bigint;
  /** When Sequencer-Defined Metering activates (Lagoon): PostExec txs in a span batch's earlier blocks drop it. */
  readonly sdmTime?: number | undefined;
}

/** Reader options for a channel read while the traversal origin has L1 time `originL1Time`. */
export function channelReaderOptions(cfg: RollupConfig, originL1Time: number): ChannelReaderOptions {
  return {
    maxRlpBytes: maxRlpBytesPerChannel(cfg, originL1Time),
    brotliAllowed: isBrotliAllowed(cfg, originL1Time),
    spanBatchesAllowed: isSpanBatchAllowed(cfg, originL1Time),
    blockTime: cfg.block_time,
    genesisL2Time: cfg.genesis.l2_time,
    l2ChainId: cfg.l2_chain_id,
    sdmTime: cfg.lagoon_time,
  };
}

/** A batch read from a channel, ready for the batch queue / stage. */
export type ChannelBatch =
  | { readonly kind: "singular"; readonly batch: SingularBatch }
  | { readonly kind: "span"; readonly batch: SpanBatch; readonly raw: RawSpanBatch };

export interface ChannelReadResult {
  readonly compression: Compression | undefined;
  /** Batches in channel order. */
  readonly batches: ChannelBatch[];
  /** Span batches that were skipped (pre-Delta, or transactions that cannot be rebuilt). */
  readonly dropped: { readonly index: number; readonly reason: string }[];
  /** Why reading stopped early, if it did (the batches before it remain valid). */
  readonly error: DecodeError | undefined;
}

/** Detects the compression of channel data from its first byte. */
export function detectCompression(first: number | undefined): Compression | undefined {
  if (first === undefined) return undefined;
  const cm = first & 0x0f;
  if (cm === 8 || cm === 15) return "zlib";
  if (first === CHANNEL_VERSION_BROTLI) return "brotli";
  return undefined;
}

/**
 * Output chunk size: large enough that a typical channel inflates into one chunk (no per-16 KiB round trips and no
 * final concatenation copy); the unused tail of an oversized chunk is never touched, so it costs address space only.
 */
function chunkSizeFor(inputLength: number, maxOut: number): number {
  return Math.max(
    zlib.constants.Z_MIN_CHUNK,
    Math.min(maxOut, Math.max(zlib.constants.Z_DEFAULT_CHUNK, inputLength * 4)),
  );
}

function decompressSync(input: Uint8Array, algo: Compression, maxOut: number, partial: boolean): Buffer {
  const chunkSize = chunkSizeFor(input.length, maxOut);
  if (algo === "zlib") {
    return zlib.inflateSync(input, {
      maxOutputLength: maxOut,
      chunkSize,
      ...(partial ? { finishFlush: zlib.constants.Z_SYNC_FLUSH } : {}),
    });
  }
  return zlib.brotliDecompressSync(input, {
    maxOutputLength: maxOut,
    chunkSize,
    ...(partial ? { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH } : {}),
  });
}

/**
 * Decompresses up to `maxOut` bytes. When the stream is corrupt, truncated or larger than `maxOut`, returns the
 * longest output obtainable from a prefix of the input (what a streaming reader would have produced before the
 * error) together with the error.
 */
export function decompressPrefix(
  input: Uint8Array,
  algo: Compression,
  maxOut: number,
): { bytes: Uint8Array; error: DecodeError | undefined } {
  try {
    const out = decompressSync(input, algo, maxOut, false);
    return { bytes: new Uint8Array(out.buffer, out.byteOffset, out.byteLength), error: undefined };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const tooLarge = (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    let best: Uint8Array = new Uint8Array(0);
    let lo = 0;
    let hi = input.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      try {
        const out = decompressSync(input.subarray(0, mid), algo, maxOut, true);
        best = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
        lo = mid;
      } catch {
        hi = mid - 1;
      }
    }
    const err = tooLarge
      ? new DecodeError("channel exceeds the maximum RLP bytes", { maxOut })
      : new DecodeError(`${algo} decompression failed: ${message}`);
    return { bytes: best, error: err };
  }
}

/**
 * A channel's batches, decoded one at a time as they are taken (op-node's `ChannelInReader.NextBatch`): only the
 * decompression happens up front. A batch decoded ahead of its block would wait in a buffer for as long as the
 * blocks before it take; on the build path (an engine round trip per block) that outlives scavenges, and V8 then
 * pretenures the decoding's allocation sites for every path (docs/performance.md).
 */
export interface ChannelBatches {
  readonly compression: Compression | undefined;
  /** The next batch in channel order; undefined once the channel is read to its end or stopped by an error. */
  next(): ChannelBatch | undefined;
  /** Span batches skipped so far (pre-Delta, or transactions that cannot be rebuilt). */
  readonly dropped: readonly { readonly index: number; readonly reason: string }[];
  /** Why reading stopped early, once it did (the batches before it remain valid). */
  readonly error: DecodeError | undefined;
}

class ChannelBatchReader implements ChannelBatches {
  readonly dropped: { index: number; reason: string }[] = [];
  error: DecodeError | undefined;
  private bytes: Uint8Array = new Uint8Array(0);
  private decompErr: DecodeError | undefined;
  private limit = 0;
  private off = 0;
  private index = 0;

  constructor(
    data: Uint8Array,
    private readonly opts: ChannelReaderOptions,
    readonly compression: Compression | undefined,
  ) {
    if (data.length === 0) this.error = new DecodeError("empty channel");
    else if (compression === undefined) {
      this.error = new DecodeError("unknown channel compression", { first: data[0] });
    } else if (compression === "brotli" && !opts.brotliAllowed) {
      this.error = new DecodeError("cannot accept brotli compressed batch before Fjord");
    } else {
      const input = compression === "brotli" ? data.subarray(1) : data;
      // One byte beyond the cap tells "too large" apart from "exactly at the cap".
      const { bytes, error } = decompressPrefix(input, compression, opts.maxRlpBytes + 1);
      this.bytes = bytes;
      this.decompErr = error;
      this.limit = Math.min(bytes.length, opts.maxRlpBytes);
    }
  }

  next(): ChannelBatch | undefined {
    const { bytes, opts } = this;
    while (this.error === undefined && this.off < bytes.length) {
      let typed: Uint8Array;
      try {
        if (this.off >= this.limit) throw new DecodeError("channel exceeds the maximum RLP bytes");
        const item = readItem(bytes, this.off, this.limit);
        if (item.isList) throw new DecodeError("batch must be an RLP string");
        typed = bytes.subarray(item.start, item.end);
        this.off = item.next;
      } catch (e) {
        // A truncated item at the end of a partial stream is the decompression error's consequence.
        if (this.decompErr !== undefined && bytes.length <= opts.maxRlpBytes) return this.stop(this.decompErr);
        return this.stop(e instanceof DecodeError ? e : new DecodeError(String(e)));
      }
      let bd: ReturnType<typeof decodeBatch>;
      try {
        bd = decodeBatch(typed);
      } catch (e) {
        return this.stop(e instanceof DecodeError ? e : new DecodeError(String(e)));
      }
      const index = this.index++;
      if (bd.type === SINGULAR_BATCH_TYPE) return { kind: "singular", batch: bd.batch };
      if (!opts.spanBatchesAllowed) {
        this.dropped.push({ index, reason: "span batch before Delta" });
        continue;
      }
      try {
        const span = deriveSpanBatch(bd.batch, opts.blockTime, opts.genesisL2Time, opts.l2ChainId);
        const early = postExecBeforeSdm(span, opts.sdmTime);
        if (early === undefined) return { kind: "span", batch: span, raw: bd.batch };
        this.dropped.push({
          index,
          reason: `span batch contains PostExec tx at block ts=${early} but SDM is not active`,
        });
      } catch (e) {
        this.dropped.push({ index, reason: e instanceof Error ? e.message : String(e) });
      }
    }
    if (this.error === undefined && this.decompErr !== undefined) this.stop(this.decompErr);
    return undefined;
  }

  private stop(error: DecodeError): undefined {
    this.error = error;
    this.bytes = new Uint8Array(0);
    return undefined;
  }
}

/** Opens a channel for reading its batches one at a time. Never throws for bad channel data. */
export function openChannel(data: Uint8Array, opts: ChannelReaderOptions): ChannelBatches {
  return new ChannelBatchReader(data, opts, detectCompression(data[0]));
}

/**
 * Reads every batch of a channel. Never throws for bad channel data: problems are reported in `error` / `dropped`.
 */
export function readChannel(data: Uint8Array, opts: ChannelReaderOptions): ChannelReadResult {
  const reader = openChannel(data, opts);
  const batches: ChannelBatch[] = [];
  for (let b = reader.next(); b !== undefined; b = reader.next()) batches.push(b);
  return { compression: reader.compression, batches, dropped: [...reader.dropped], error: reader.error };
}
