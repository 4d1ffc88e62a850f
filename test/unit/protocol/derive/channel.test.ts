import zlib from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../../src/core/codec/hex.js";
import {
  type BatchData,
  ChannelAssembler,
  ChannelBank,
  channelPayload,
  channelReaderOptions,
  compressChannel,
  encodeBatch,
  encodeChannel,
  encodeSpanBatch,
  type Frame,
  openChannel,
  readChannel,
  rlpStrings,
  type SingularBatch,
  spanBatchFromSingularBatches,
  splitIntoFrames,
} from "../../../../src/protocol/derive/index.js";
import { CHAIN_ID, hash, l1, makeConfig, makeTx } from "./fixtures.js";
import { runs } from "../../../support/property.js";

const ID_A = `0x${"0a".repeat(16)}` as const;
const ID_B = `0x${"0b".repeat(16)}` as const;
const cfg = makeConfig({ fjord_time: 2_000_000 });
const preFjord = channelReaderOptions(cfg, 1_500_000);
const fjord = channelReaderOptions(cfg, 2_000_000);

function singular(i: number): SingularBatch {
  return {
    parentHash: hash(i),
    epochNum: 10 + i,
    epochHash: hash(100 + i),
    timestamp: 1_000_000 + 2 * i,
    transactions: [makeTx("eip1559", i), makeTx("legacy", i + 1)],
  };
}
const batches: BatchData[] = [0, 1, 2].map((i) => ({ type: 0, batch: singular(i) }));

describe("channel reader", () => {
  it("reads zlib channels of singular and span batches", () => {
    const span = spanBatchFromSingularBatches([singular(5), singular(6)], {
      genesisL2Time: 1_000_000,
      chainId: CHAIN_ID,
      firstSequenceNumber: 0,
    });
    const data = encodeChannel([...batches, { type: 1, batch: span }], { compression: "zlib" });
    const res = readChannel(data, preFjord);
    expect(res.error).toBeUndefined();
    expect(res.compression).toBe("zlib");
    expect(res.batches.map((b) => b.kind)).toEqual(["singular", "singular", "singular", "span"]);
    const last = res.batches[3]!;
    expect(last.kind === "span" && last.batch.elements[1]!.transactions.map(bytesToHex)).toEqual(
      singular(6).transactions.map(bytesToHex),
    );
  });

  it("accepts brotli only from Fjord", () => {
    const data = encodeChannel(batches, { compression: "brotli" });
    expect(data[0]).toBe(1);
    expect(readChannel(data, preFjord).error?.message).toMatch(/brotli/);
    const res = readChannel(data, fjord);
    expect(res.error).toBeUndefined();
    expect(res.compression).toBe("brotli");
    expect(res.batches).toHaveLength(3);
  });

  it("drops span batches before Delta but keeps reading", () => {
    const body = encodeSpanBatch([singular(1)], {
      genesisL2Time: 1_000_000,
      chainId: CHAIN_ID,
      firstSequenceNumber: 0,
    });
    const typedSpan = new Uint8Array([1, ...body]);
    const payload = rlpStrings([typedSpan, ...batches.map(encodeBatch)]);
    const res = readChannel(compressChannel(payload, { compression: "zlib" }), {
      ...preFjord,
      spanBatchesAllowed: false,
    });
    expect(res.error).toBeUndefined();
    expect(res.dropped).toHaveLength(1);
    expect(res.batches).toHaveLength(3);
  });

  it("keeps batches before a bad one and stops there", () => {
    const payload = channelPayload(batches);
    const bad = rlpStrings([new Uint8Array([9, 1, 2])]);
    const data = compressChannel(new Uint8Array([...payload, ...bad, ...payload]), { compression: "zlib" });
    const res = readChannel(data, preFjord);
    expect(res.batches).toHaveLength(3);
    expect(res.error?.message).toMatch(/unrecognized/);
  });

  it("decodes an open channel's batches one at a time, the error only once the bad batch is reached", () => {
    const payload = channelPayload(batches);
    const bad = rlpStrings([new Uint8Array([9, 1, 2])]);
    const reader = openChannel(
      compressChannel(new Uint8Array([...payload, ...bad]), { compression: "zlib" }),
      preFjord,
    );
    expect(reader.compression).toBe("zlib");
    for (const i of [0, 1, 2]) {
      const b = reader.next();
      expect(b?.kind === "singular" && b.batch.timestamp).toBe(singular(i).timestamp);
      expect(reader.error).toBeUndefined();
    }
    expect(reader.next()).toBeUndefined();
    expect(reader.error?.message).toMatch(/unrecognized/);
    expect(reader.next()).toBeUndefined();
  });

  it("caps decompressed bytes at the per-fork maximum", () => {
    const payload = channelPayload(batches);
    const oneBatch = channelPayload(batches.slice(0, 1)).length;
    const data = compressChannel(payload, { compression: "zlib" });
    const res = readChannel(data, { ...preFjord, maxRlpBytes: oneBatch + 5 });
    expect(res.batches).toHaveLength(1);
    expect(res.error).toBeDefined();
    expect(readChannel(data, { ...preFjord, maxRlpBytes: payload.length }).error).toBeUndefined();
  });

  it("keeps the batches decoded before a truncated or corrupt stream", () => {
    const big: BatchData[] = Array.from({ length: 40 }, (_, i) => ({ type: 0, batch: singular(i) }));
    const data = encodeChannel(big, { compression: "zlib", level: 0 });
    const res = readChannel(data.subarray(0, Math.floor(data.length / 2)), preFjord);
    expect(res.batches.length).toBeGreaterThan(5);
    expect(res.batches.length).toBeLessThan(40);
    expect(res.error).toBeDefined();
    const badSum = data.slice();
    badSum[badSum.length - 1]! ^= 0xff;
    const res2 = readChannel(badSum, preFjord);
    expect(res2.batches).toHaveLength(40);
    expect(res2.error).toBeDefined();
  });

  it("rejects unknown compression and empty channels", () => {
    expect(readChannel(new Uint8Array([0x02, 1]), fjord).error).toBeDefined();
    expect(readChannel(new Uint8Array(0), fjord).error).toBeDefined();
    expect(readChannel(zlib.deflateSync(Buffer.from([0xc0])), fjord).error?.message).toMatch(/string/);
  });

  it("never throws on random or mutated channel data (property)", () => {
    const data = encodeChannel(batches, { compression: "zlib" });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat({ max: 255 }), (junk, pos, val) => {
        const m = data.slice();
        m[pos % m.length] = val;
        for (const input of [junk, m, new Uint8Array([1, ...junk]), new Uint8Array([0x78, ...junk])]) {
          const res = readChannel(input, fjord);
          expect(Array.isArray(res.batches)).toBe(true);
        }
      }),
      { numRuns: runs(200) },
    );
  });

  it("round-trips channels (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 50 }), { minLength: 1, maxLength: 6 }), fc.boolean(), (ids, brotli) => {
        const bs: BatchData[] = ids.map((i) => ({ type: 0, batch: singular(i) }));
        const res = readChannel(encodeChannel(bs, { compression: brotli ? "brotli" : "zlib", level: 1 }), fjord);
        expect(res.error).toBeUndefined();
        expect(res.batches.map((b) => (b.kind === "singular" ? b.batch.timestamp : -1))).toEqual(
          ids.map((i) => singular(i).timestamp),
        );
      }),
      { numRuns: runs(40) },
    );
  });
});

describe("channel bank (pre-Holocene)", () => {
  const frames = (id: typeof ID_A, data: Uint8Array, size: number): Frame[] => splitIntoFrames(id, data, size);
  const dataA = new Uint8Array(100).fill(0xa);
  const dataB = new Uint8Array(50).fill(0xb);

  it("assembles out-of-order frames and reads the head channel", () => {
    const bank = new ChannelBank(makeConfig({ canyon_time: undefined }), l1(1));
    const fa = frames(ID_A, dataA, 43);
    for (const fr of [...fa].reverse()) expect(bank.ingestFrame(fr)).toBe("added");
    expect(bytesToHex(bank.read()!)).toBe(bytesToHex(dataA));
    expect(bank.read()).toBeUndefined();
  });

  it("pre-Canyon only reads the head; Canyon reads the first ready channel", () => {
    for (const canyon of [false, true]) {
      const bank = new ChannelBank(makeConfig(canyon ? {} : { canyon_time: undefined }), l1(1));
      const fa = frames(ID_A, dataA, 43);
      bank.ingestFrame(fa[0]!); // A opened first, incomplete
      for (const fr of frames(ID_B, dataB, 100)) bank.ingestFrame(fr);
      const got = bank.read();
      if (canyon) expect(bytesToHex(got!)).toBe(bytesToHex(dataB));
      else expect(got).toBeUndefined();
    }
  });

  it("times out channels (config timeout, 50 from Granite) and ignores their frames", () => {
    const c = makeConfig({ channel_timeout: 3 });
    const bank = new ChannelBank(c, l1(1));
    const fa = frames(ID_A, dataA, 43);
    bank.ingestFrame(fa[0]!);
    bank.setOrigin(l1(5));
    expect(bank.ingestFrame(fa[1]!)).toBe("timed-out-channel");
    expect(bank.read()).toBeUndefined();
    expect(bank.channelIds()).toHaveLength(0);
    const granite = new ChannelBank(makeConfig({ channel_timeout: 3, granite_time: 0 }), l1(1));
    granite.ingestFrame(fa[0]!);
    granite.setOrigin(l1(40));
    expect(granite.ingestFrame(fa[1]!)).toBe("added");
  });

  it("rejects duplicate frames and frames beyond the end; prunes past max size", () => {
    const bank = new ChannelBank(makeConfig(), l1(1));
    const fa = frames(ID_A, dataA, 43);
    expect(bank.ingestFrame(fa[0]!)).toBe("added");
    expect(bank.ingestFrame(fa[0]!)).toBe("rejected");
    expect(bank.ingestFrame({ ...fa[1]!, isLast: true })).toBe("added");
    expect(bank.ingestFrame(fa[2]!)).toBe("rejected");
    expect(bank.totalSize()).toBe(fa[0]!.data.length + fa[1]!.data.length + 400);
  });
});

describe("channel assembler (Holocene)", () => {
  const data = new Uint8Array(100).map((_, i) => i);
  const fa = splitIntoFrames(ID_A, data, 43);

  it("emits a channel when its in-order frames complete", () => {
    const asm = new ChannelAssembler(makeConfig({ holocene_time: 0 }), l1(1));
    const events = fa.map((f) => asm.addFrame(f));
    const ready = events.at(-1)!;
    expect(ready.kind).toBe("ready");
    expect(ready.kind === "ready" && bytesToHex(ready.data)).toBe(bytesToHex(data));
  });

  it("drops out-of-order frames, foreign frames and frames without a channel", () => {
    const asm = new ChannelAssembler(makeConfig({ holocene_time: 0 }), l1(1));
    expect(asm.addFrame(fa[1]!).kind).toBe("dropped-frame");
    asm.addFrame(fa[0]!);
    expect(asm.addFrame(fa[2]!).kind).toBe("dropped-frame");
    expect(asm.addFrame({ ...fa[1]!, id: ID_B }).kind).toBe("dropped-frame");
    // a new first frame replaces the staging channel
    asm.addFrame({ ...fa[0]!, id: ID_B });
    expect(asm.staging?.id).toBe(ID_B);
  });

  it("drops a timed-out staging channel and an oversized one", () => {
    const asm = new ChannelAssembler(makeConfig({ holocene_time: 0, channel_timeout: 2 }), l1(1));
    asm.addFrame(fa[0]!);
    asm.setOrigin(l1(4));
    expect(asm.staging).toBeUndefined();
    expect(asm.addFrame(fa[1]!).kind).toBe("dropped-frame");
    const big = { id: ID_A, frameNumber: 0, data: new Uint8Array(10_000_000), isLast: false };
    expect(asm.addFrame(big).kind).toBe("dropped-channel");
  });
});
