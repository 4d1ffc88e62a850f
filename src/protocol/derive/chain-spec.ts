/**
 * Per-fork derivation constants (op-node `rollup/chain_spec.go`). Each function takes the timestamp whose clock
 * op-node uses for that rule (see `op-node.md` §2.0): the traversal-origin L1 time for channel limits and timeouts,
 * the batch's L1 origin time for the sequencer drift.
 */
import { isForkActive, type RollupConfig } from "../rollup-config.js";

/** Version byte prefixed to every batcher data item (calldata / blob payload). */
export const DERIVATION_VERSION_0 = 0x00;
/** Maximum `frame_data_length`. */
export const MAX_FRAME_LEN = 1_000_000;
/** Fixed overhead of a frame on the wire: id 16 + number 2 + length 4 + is_last 1. */
export const FRAME_OVERHEAD = 23;
/** Accounting overhead per frame in the channel bank / assembler. */
export const FRAME_ACCOUNTING_OVERHEAD = 200;
/** Channel compression version byte for brotli (Fjord). */
export const CHANNEL_VERSION_BROTLI = 0x01;
/** Maximum number of blocks / transactions / transactions per block in a span batch. */
export const MAX_SPAN_BATCH_ELEMENT_COUNT = 10_000_000;

export const MAX_RLP_BYTES_PER_CHANNEL_BEDROCK = 10_000_000;
export const MAX_RLP_BYTES_PER_CHANNEL_FJORD = 100_000_000;
export const MAX_CHANNEL_BANK_SIZE_BEDROCK = 100_000_000;
export const MAX_CHANNEL_BANK_SIZE_FJORD = 1_000_000_000;
export const CHANNEL_TIMEOUT_GRANITE = 50;
export const MAX_SEQUENCER_DRIFT_FJORD = 1800;

/** Maximum decompressed RLP bytes read from one channel (and max size of a Holocene staging channel). */
export function maxRlpBytesPerChannel(cfg: RollupConfig, l1Time: number): number {
  return isForkActive(cfg, "fjord", l1Time) ? MAX_RLP_BYTES_PER_CHANNEL_FJORD : MAX_RLP_BYTES_PER_CHANNEL_BEDROCK;
}

/** Maximum total (accounted) size of the pre-Holocene channel bank. */
export function maxChannelBankSize(cfg: RollupConfig, l1Time: number): number {
  return isForkActive(cfg, "fjord", l1Time) ? MAX_CHANNEL_BANK_SIZE_FJORD : MAX_CHANNEL_BANK_SIZE_BEDROCK;
}

/** Channel timeout in L1 blocks: the config value, 50 from Granite. */
export function channelTimeout(cfg: RollupConfig, l1Time: number): number {
  return isForkActive(cfg, "granite", l1Time) ? CHANNEL_TIMEOUT_GRANITE : cfg.channel_timeout;
}

/** Maximum sequencer drift in seconds, keyed by the batch's L1 origin time: the config value, 1800 from Fjord. */
export function maxSequencerDrift(cfg: RollupConfig, l1OriginTime: number): number {
  return isForkActive(cfg, "fjord", l1OriginTime) ? MAX_SEQUENCER_DRIFT_FJORD : cfg.max_sequencer_drift;
}

/** Whether brotli-compressed channels are accepted (Fjord, traversal-origin L1 time). */
export function isBrotliAllowed(cfg: RollupConfig, l1Time: number): boolean {
  return isForkActive(cfg, "fjord", l1Time);
}

/** Whether span batches are accepted by the channel reader (Delta, traversal-origin L1 time). */
export function isSpanBatchAllowed(cfg: RollupConfig, l1Time: number): boolean {
  return isForkActive(cfg, "delta", l1Time);
}

/** Canyon: the channel bank may read the first ready channel anywhere in its queue (traversal-origin L1 time). */
export function isCanyonChannelBank(cfg: RollupConfig, l1Time: number): boolean {
  return isForkActive(cfg, "canyon", l1Time);
}

/** Holocene strict-ordering rules (frame queue, channel assembler, batch stage), by the given L1 time. */
export function isHoloceneDerivation(cfg: RollupConfig, l1Time: number): boolean {
  return isForkActive(cfg, "holocene", l1Time);
}
