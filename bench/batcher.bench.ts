/**
 * Benchmark `batcher`: the devnet batcher's channel building (batches → compression → frames → data items) for
 * 200 L2 blocks of 10 signed EIP-1559 transfers each, per batch type and compression; and blob encoding of the
 * resulting frames. Figures: blocks per second, compressed bytes per transaction, blobs encoded per second. Each
 * case runs twice untimed first (JIT warm-up).
 */
import { privateKeyToAccount } from "viem/accounts";
import { type Hash, hexToBytes } from "supernode/core";
import { type BatchType, buildChannel } from "supernode-devnet/batcher/channel-builder";
import type { BatchBlock } from "supernode-devnet/batcher/l2-reader";
import { devnetRollupConfig } from "supernode-devnet/config";
import { devAccount } from "supernode-devnet/l1/dev-accounts";
import { encodeBlob, MAX_BLOB_DATA_SIZE } from "supernode/protocol";
import { type Bench, note } from "./harness.js";

const BLOCKS = 200;
const TXS = 10;
const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;

async function makeBlocks(): Promise<BatchBlock[]> {
  const acct = privateKeyToAccount(devAccount(9).privateKey);
  const out: BatchBlock[] = [];
  let parent = h(1);
  let nonce = 0;
  for (let i = 0; i < BLOCKS; i++) {
    const txs: Uint8Array[] = [];
    for (let k = 0; k < TXS; k++) {
      const raw = await acct.signTransaction({
        chainId: 901,
        type: "eip1559",
        nonce: nonce++,
        to: `0x${(0xb000 + k).toString(16).padStart(40, "0")}`,
        value: BigInt(1000 + i * TXS + k),
        gas: 21_000n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1_000n,
      });
      txs.push(hexToBytes(raw));
    }
    const origin = 10 + Math.floor(i / 6);
    out.push({
      number: i + 1,
      hash: h(0x1000 + i),
      parentHash: parent,
      timestamp: 1000 + 2 * (i + 1),
      l1Origin: { number: origin, hash: h(0xa000 + origin) },
      sequenceNumber: i % 6,
      transactions: txs,
    });
    parent = h(0x1000 + i);
  }
  return out;
}

const bench: Bench = {
  name: "batcher",
  async run(report) {
    const cfg = devnetRollupConfig({
      l2ChainId: 901,
      l1ChainId: 900,
      l1Genesis: { hash: h(0xaaaa), number: 10 },
      l2Genesis: { hash: h(1), timestamp: 1000 },
      batcher: devAccount(1).address,
    });
    note(`signing ${BLOCKS * TXS} transactions`);
    const blocks = await makeBlocks();
    const cases: [BatchType, "zlib" | "brotli"][] = [
      ["singular", "zlib"],
      ["singular", "brotli"],
      ["span", "zlib"],
      ["span", "brotli"],
    ];
    let lastFrames: Uint8Array[] = [];
    for (const [batchType, compression] of cases) {
      const rounds = 5;
      let bytes = 0;
      const opts = { batchType, compression, maxFrameSize: MAX_BLOB_DATA_SIZE - 1, l1Time: 2000 } as const;
      // warm-up: let the JIT compile the encoders and the compressor settle before the clock starts
      for (let w = 0; w < 2; w++) buildChannel(cfg, blocks, opts);
      const t0 = performance.now();
      for (let r = 0; r < rounds; r++) {
        const ch = buildChannel(cfg, blocks, opts);
        bytes = ch.frames.reduce((s, f) => s + f.data.length, 0);
        lastFrames = [...ch.dataItems];
      }
      const ms = (performance.now() - t0) / rounds;
      report({
        figure: `${batchType}_${compression}_blocks_per_s`,
        value: Math.round((BLOCKS / ms) * 1000),
        unit: "blocks/s",
      });
      report({
        figure: `${batchType}_${compression}_bytes_per_tx`,
        value: Number((bytes / (BLOCKS * TXS)).toFixed(1)),
        unit: "bytes",
      });
    }
    for (const item of lastFrames) encodeBlob(item); // warm-up
    const t1 = performance.now();
    let blobs = 0;
    for (let r = 0; r < 20; r++)
      for (const item of lastFrames) {
        encodeBlob(item);
        blobs++;
      }
    report({
      figure: "blob_encode_per_s",
      value: Math.round((blobs / (performance.now() - t1)) * 1000),
      unit: "blobs/s",
    });
  },
};

export default bench;
