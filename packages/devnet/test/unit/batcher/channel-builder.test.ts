import { describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { type Hash, hexToBytes } from "supernode/core";
import { buildChannel } from "../../../src/batcher/channel-builder.js";
import type { BatchBlock } from "../../../src/batcher/l2-reader.js";
import { batchInboxAddress, devnetRollupConfig } from "../../../src/config.js";
import { devAccount } from "../../../src/l1/dev-accounts.js";
import { channelReaderOptions, checkRollupConfig, parseFrames, readChannel } from "supernode/protocol";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;

function cfgWith(forks?: Parameters<typeof devnetRollupConfig>[0]["forks"]) {
  return devnetRollupConfig({
    l2ChainId: 901,
    l1ChainId: 900,
    l1Genesis: { hash: h(0xaaaa), number: 5 },
    l2Genesis: { hash: h(0xbbbb), timestamp: 1000 },
    batcher: devAccount(1).address,
    ...(forks === undefined ? {} : { forks }),
  });
}

async function blocks(count: number, txsPerBlock: number): Promise<BatchBlock[]> {
  const acct = privateKeyToAccount(devAccount(9).privateKey);
  const out: BatchBlock[] = [];
  let parent = h(0xbbbb);
  let nonce = 0;
  for (let i = 0; i < count; i++) {
    const txs: Uint8Array[] = [];
    for (let k = 0; k < txsPerBlock; k++) {
      const raw = await acct.signTransaction({
        chainId: 901,
        type: "eip1559",
        nonce: nonce++,
        to: "0x00000000000000000000000000000000000000b0",
        value: BigInt(i * 100 + k),
        gas: 21_000n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1n,
      });
      txs.push(hexToBytes(raw));
    }
    const origin = 5 + Math.floor(i / 3);
    const b: BatchBlock = {
      number: i + 1,
      hash: h(0x1000 + i),
      parentHash: parent,
      timestamp: 1000 + 2 * (i + 1),
      l1Origin: { number: origin, hash: h(0xa000 + origin) },
      sequenceNumber: i % 3 === 0 ? 0 : i % 3,
      transactions: txs,
    };
    parent = b.hash;
    out.push(b);
  }
  return out;
}

describe("devnet rollup config", () => {
  it("is valid and uses the per-chain inbox", () => {
    const cfg = cfgWith();
    expect(checkRollupConfig(cfg)).toEqual([]);
    expect(cfg.batch_inbox_address).toBe("0xff00000000000000000000000000000000000385");
    expect(batchInboxAddress(10n)).toBe("0xff0000000000000000000000000000000000000a");
    expect(cfg.jovian_time).toBe(0);
    expect(cfg.karst_time).toBeUndefined();
  });
});

describe("buildChannel", () => {
  it("singular batches, brotli (Fjord): frames decode back into the blocks", async () => {
    const cfg = cfgWith();
    const bs = await blocks(5, 2);
    const ch = buildChannel(cfg, bs, {
      batchType: "singular",
      compression: "auto",
      maxFrameSize: 120_000,
      l1Time: 2000,
    });
    expect(ch.compression).toBe("brotli");
    expect(ch.dataItems).toHaveLength(1);
    const frames = parseFrames(ch.dataItems[0] as Uint8Array);
    expect(frames[0]?.isLast).toBe(true);
    const res = readChannel(frames[0]?.data as Uint8Array, channelReaderOptions(cfg, 2000));
    expect(res.error).toBeUndefined();
    expect(res.batches).toHaveLength(5);
    res.batches.forEach((b, i) => {
      expect(b.kind).toBe("singular");
      if (b.kind !== "singular") return;
      expect(b.batch.parentHash).toBe(bs[i]?.parentHash);
      expect(b.batch.epochNum).toBe(bs[i]?.l1Origin.number);
      expect(b.batch.epochHash).toBe(bs[i]?.l1Origin.hash);
      expect(b.batch.timestamp).toBe(bs[i]?.timestamp);
      expect(b.batch.transactions).toEqual(bs[i]?.transactions);
    });
  });

  it("span batch split over several small frames, zlib before Fjord", async () => {
    const cfg = cfgWith({ regolith: 0, canyon: 0, delta: 0, ecotone: 0 });
    const bs = await blocks(7, 3);
    const ch = buildChannel(cfg, bs, { batchType: "span", compression: "auto", maxFrameSize: 200, l1Time: 2000 });
    expect(ch.compression).toBe("zlib");
    expect(ch.batchType).toBe("span");
    expect(ch.frames.length).toBeGreaterThan(3);
    const data = Buffer.concat(ch.dataItems.map((d) => parseFrames(d)[0]?.data as Uint8Array));
    const res = readChannel(new Uint8Array(data), channelReaderOptions(cfg, 2000));
    expect(res.error).toBeUndefined();
    const [only] = res.batches;
    expect(only?.kind).toBe("span");
    if (only?.kind !== "span") return;
    expect(only.batch.elements.map((e) => e.timestamp)).toEqual(bs.map((b) => b.timestamp));
    expect(only.batch.elements.map((e) => e.epochNum)).toEqual(bs.map((b) => b.l1Origin.number));
    expect(only.batch.elements.map((e) => e.transactions)).toEqual(bs.map((b) => b.transactions));
  });

  it("posts singular batches until Delta is active at the first block's L1 origin", async () => {
    const cfg = cfgWith({ regolith: 0, canyon: 0, delta: 1010 });
    expect(cfg.delta_time).toBe(1010);
    const opts = { batchType: "span", compression: "zlib", maxFrameSize: 1000, l1Time: 2000 } as const;
    const withOrigin = (bs: BatchBlock[], t: number) => bs.map((b) => ({ ...b, l1OriginTime: t }));
    expect(buildChannel(cfg, withOrigin(await blocks(2, 1), 1009), opts).batchType).toBe("singular");
    expect(buildChannel(cfg, withOrigin(await blocks(2, 1), 1010), opts).batchType).toBe("span");
  });

  it("falls back to singular batches before Delta", async () => {
    const cfg = cfgWith({ regolith: 0, canyon: 0 });
    const ch = buildChannel(cfg, await blocks(2, 1), {
      batchType: "span",
      compression: "auto",
      maxFrameSize: 1000,
      l1Time: 5,
    });
    expect(ch.batchType).toBe("singular");
    expect(ch.compression).toBe("zlib");
  });
});
