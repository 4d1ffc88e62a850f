/**
 * Benchmark `codec`: full channel decode (decompress + RLP + batch decode + span-batch tx reconstruction) versus
 * raw decompression of the same ~1 MB compressed channel, for zlib and brotli channels of singular batches and a
 * zlib channel holding span batches; plus the kona span-batch vector when the conformance data is present.
 *
 * Throughputs are in MB (10^6 bytes) of compressed channel input per second of process CPU time (median).
 * `decode_vs_inflate` = full-decode throughput / raw-decompression throughput (worst case over the channels).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { type Hex, serializeTransaction } from "viem";
import { bytesToHex, hexToBytes } from "supernode/core";
import {
  type BatchData,
  type ChannelReaderOptions,
  compressChannel,
  channelPayload,
  decodeRawSpanBatch,
  deriveSpanBatch,
  encodeRawSpanBatch,
  readChannel,
  type SingularBatch,
  spanBatchFromSingularBatches,
} from "supernode/protocol";
import { type Bench, type Figure, note } from "./harness.js";

const CHAIN_ID = 10n;
const GENESIS_TIME = 1_700_000_000;
const TARGET_COMPRESSED = 1_000_000;

/** Deterministic PRNG (xorshift32). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

function randHex(r: () => number, bytes: number): Hex {
  let s = "";
  for (let i = 0; i < bytes; i++) s += (r() & 0xff).toString(16).padStart(2, "0");
  return `0x${s}`;
}

/** Realistic-looking transactions: mostly EIP-1559 contract calls (selector + ABI words), some legacy/2930. */
function makeTx(r: () => number, nonce: number): Uint8Array {
  const to = randHex(r, 20);
  const words = 1 + (r() % 6);
  let data = randHex(r, 4);
  for (let w = 0; w < words; w++) {
    // ABI words: mostly zero-padded small values or addresses
    const kind = r() % 3;
    data =
      `${data}${kind === 0 ? "00".repeat(12) + randHex(r, 20).slice(2) : kind === 1 ? "00".repeat(28) + randHex(r, 4).slice(2) : randHex(r, 32).slice(2)}` as Hex;
  }
  const sig = { r: randHex(r, 32), s: randHex(r, 32), yParity: r() & 1 };
  const kind = r() % 10;
  let hex: Hex;
  if (kind < 7) {
    hex = serializeTransaction(
      {
        type: "eip1559",
        chainId: Number(CHAIN_ID),
        nonce,
        maxFeePerGas: BigInt(1_000_000 + (r() % 1_000_000)),
        maxPriorityFeePerGas: 1000n,
        gas: BigInt(21_000 + (r() % 300_000)),
        to,
        value: r() % 4 === 0 ? BigInt(r()) * 1_000_000_000n : 0n,
        data,
      },
      sig,
    );
  } else if (kind < 9) {
    hex = serializeTransaction(
      { type: "legacy", chainId: Number(CHAIN_ID), nonce, gasPrice: BigInt(r() % 1_000_000), gas: 100_000n, to, data },
      { ...sig, v: CHAIN_ID * 2n + 35n + BigInt(sig.yParity) },
    );
  } else {
    hex = serializeTransaction(
      {
        type: "eip2930",
        chainId: Number(CHAIN_ID),
        nonce,
        gasPrice: BigInt(r() % 1_000_000),
        gas: 90_000n,
        to,
        data,
        accessList: [{ address: to, storageKeys: [randHex(r, 32)] }],
      },
      sig,
    );
  }
  return hexToBytes(hex);
}

function makeBlocks(count: number, txsPerBlock: number, seed: number): SingularBatch[] {
  const r = rng(seed);
  const out: SingularBatch[] = [];
  let nonce = 0;
  for (let i = 0; i < count; i++) {
    const txs: Uint8Array[] = [];
    for (let t = 0; t < txsPerBlock; t++) txs.push(makeTx(r, nonce++));
    out.push({
      parentHash: randHex(r, 32),
      epochNum: 19_000_000 + Math.floor(i / 6),
      epochHash: randHex(r, 32),
      timestamp: GENESIS_TIME + 2 * (i + 1),
      transactions: txs,
    });
  }
  return out;
}

/** Grows the number of blocks until the compressed channel reaches ~1 MB. */
export function buildChannel(
  kind: "singular" | "span",
  compression: "zlib" | "brotli",
): { data: Uint8Array; payload: Uint8Array; blocks: number; txs: number } {
  const txsPerBlock = 12;
  let blocks = 200;
  for (;;) {
    const bs = makeBlocks(blocks, txsPerBlock, 42);
    let batches: BatchData[];
    if (kind === "singular") batches = bs.map((b) => ({ type: 0, batch: b }));
    else {
      // spans of 100 blocks, like a batcher with a max channel duration
      batches = [];
      for (let i = 0; i < bs.length; i += 100) {
        const raw = spanBatchFromSingularBatches(bs.slice(i, i + 100), {
          genesisL2Time: GENESIS_TIME,
          chainId: CHAIN_ID,
          firstSequenceNumber: 0,
        });
        batches.push({ type: 1, batch: raw });
      }
    }
    const payload = channelPayload(batches);
    const data = compressChannel(payload, { compression, level: 9 });
    if (data.length >= TARGET_COMPRESSED) return { data, payload, blocks, txs: blocks * txsPerBlock };
    blocks = Math.ceil((blocks * TARGET_COMPRESSED * 1.02) / data.length);
  }
}

/**
 * Times `a` and `b` on the same input in interleaved rounds (robust against load changes on a shared machine):
 * a warm-up of several pairs first (JIT, allocator, page cache), then rounds until both `minRounds` and `minMs`
 * are reached. The order within a round alternates (a→b, then b→a) so that garbage or cache state one leaves
 * behind is not always charged to the other. Each run is timed in process CPU time (user + system, all threads,
 * so zlib and GC work count) rather than wall time: on a loaded shared machine wall time mostly measures when the
 * scheduler let us run. Returns the median CPU milliseconds of each and the median of the per-round ratios a/b.
 */
function timePair(
  a: () => void,
  b: () => void,
  minMs = 4000,
  minRounds = 25,
  warmup = 8,
): { aMs: number; bMs: number; ratio: number } {
  for (let i = 0; i < warmup; i++) {
    a();
    b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  const timed = (f: () => void): number => {
    const t0 = process.cpuUsage();
    f();
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1000;
  };
  const start = performance.now();
  while (as.length < minRounds || performance.now() - start < minMs) {
    let ta: number;
    let tb: number;
    if (as.length % 2 === 0) {
      ta = timed(a);
      tb = timed(b);
    } else {
      tb = timed(b);
      ta = timed(a);
    }
    as.push(ta);
    bs.push(tb);
    ratios.push(ta / tb);
  }
  return { aMs: median(as), bMs: median(bs), ratio: median(ratios) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => void, minMs: number, minRuns: number): number {
  fn();
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < minRuns || performance.now() - start < minMs) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

export const opts: ChannelReaderOptions = {
  maxRlpBytes: 100_000_000,
  brotliAllowed: true,
  spanBatchesAllowed: true,
  blockTime: 2,
  genesisL2Time: GENESIS_TIME,
  l2ChainId: CHAIN_ID,
};

const bench: Bench = {
  name: "codec",
  async run(report: (f: Figure) => void): Promise<void> {
    const cases = [
      { label: "zlib", kind: "singular", compression: "zlib", figure: "zlib_mb_per_s" },
      { label: "brotli", kind: "singular", compression: "brotli", figure: "brotli_mb_per_s" },
      { label: "span", kind: "span", compression: "zlib", figure: "span_batch_mb_per_s" },
    ] as const;
    let worst = Number.POSITIVE_INFINITY;
    for (const c of cases) {
      const ch = buildChannel(c.kind, c.compression);
      const check = readChannel(ch.data, opts);
      if (check.error !== undefined) throw check.error;
      const decodedTxs = check.batches.reduce(
        (n, b) =>
          n +
          (b.kind === "singular"
            ? b.batch.transactions.length
            : b.batch.elements.reduce((m, e) => m + e.transactions.length, 0)),
        0,
      );
      if (decodedTxs !== ch.txs) throw new Error(`decoded ${decodedTxs} txs, expected ${ch.txs}`);
      const mb = ch.data.length / 1e6;
      const input = c.compression === "brotli" ? ch.data.subarray(1) : ch.data;
      const {
        aMs: inflateMs,
        bMs: fullMs,
        ratio,
      } = timePair(
        () => {
          if (c.compression === "zlib") zlib.inflateSync(input);
          else zlib.brotliDecompressSync(input);
        },
        () => readChannel(ch.data, opts),
      );
      worst = Math.min(worst, ratio);
      note(
        `${c.label}: ${ch.blocks} blocks, ${ch.txs} txs, ${(ch.payload.length / 1e6).toFixed(2)} MB RLP → ` +
          `${mb.toFixed(2)} MB compressed; inflate ${inflateMs.toFixed(1)} ms, full decode ${fullMs.toFixed(1)} ms (median CPU time)`,
      );
      report({ figure: c.figure, value: round(mb / (fullMs / 1000)), unit: "MB/s" });
      report({ figure: `${c.label}_inflate_mb_per_s`, value: round(mb / (inflateMs / 1000)), unit: "MB/s" });
      report({ figure: `${c.label}_decode_vs_inflate`, value: round(ratio), unit: "ratio" });
    }
    report({ figure: "decode_vs_inflate", value: round(worst), unit: "ratio" });

    const root = join(dirname(fileURLToPath(import.meta.url)), "..");
    const vector = join(root, "../shared/conformance/kona/raw_span_batch.bin");
    if (existsSync(vector)) {
      const raw = new Uint8Array(readFileSync(vector));
      const ms = time(() => deriveSpanBatch(decodeRawSpanBatch(raw), 2, 0, CHAIN_ID), 500, 50);
      const ok = bytesToHex(raw) === bytesToHex(encodeRawSpanBatch(decodeRawSpanBatch(raw)));
      note(`kona raw_span_batch.bin: ${raw.length} bytes, round trip ${ok ? "identical" : "DIFFERENT"}`);
      // a decoder that does not give back the same bytes is wrong, however fast: no figure then
      if (!ok) throw new Error("raw_span_batch.bin does not round-trip (decode → encode differs); no figure printed");
      report({ figure: "span_vector_decode_us", value: round(ms * 1000), unit: "us" });
    } else {
      note(`conformance vector ${vector} absent: skipping the span-batch vector figure`);
    }
  },
};

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}

export default bench;
