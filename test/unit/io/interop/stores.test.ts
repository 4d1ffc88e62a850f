import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Hash } from "../../../../src/core/types/primitives.js";
import { decodeStoredBlock, encodeStoredBlock } from "../../../../src/io/db/interop/logs-codec.js";
import { LogsStore } from "../../../../src/io/db/interop/logs-store.js";
import { VerifiedStore } from "../../../../src/io/db/interop/verified-store.js";
import type { SealedBlock, VerifiedResult } from "../../../../src/protocol/interop/types.js";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "interop-store-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const h = (s: string, n: number): Hash => `0x${s.repeat(2).slice(0, 2)}${n.toString(16).padStart(62, "0")}` as Hash;
const blk = (n: number, branch = "a", parentBranch = branch): SealedBlock => ({
  hash: h(branch, n),
  number: n,
  parentHash: h(parentBranch, n - 1),
  timestamp: 1000 + 2 * n,
});
const lh = (n: number, i: number): Hash => h("c", n * 100 + i);

describe("logs store value codec", () => {
  const exec = {
    id: {
      origin: "0x00000000000000000000000000000000000e1e1e" as const,
      blockNumber: 2 ** 40,
      logIndex: 7,
      timestamp: 1700000000,
      chainId: 2n ** 200n + 901n,
    },
    payloadHash: h("d", 1),
  };
  const value = {
    block: blk(12),
    logs: [
      { hash: lh(12, 0) },
      { hash: lh(12, 1), executing: exec },
      { hash: lh(12, 2), malformed: "expected 160 bytes — got 3" },
    ],
  };

  it("round-trips plain logs, executing messages and malformed ones in the binary layout", () => {
    const bytes = encodeStoredBlock(value);
    expect(bytes[0]).toBe(1);
    expect(bytes.length).toBe(
      85 + 33 + (33 + 104) + (33 + 2 + new TextEncoder().encode(value.logs[2]!.malformed!).length),
    );
    expect(decodeStoredBlock(bytes)).toEqual(value);
    expect(decodeStoredBlock(encodeStoredBlock({ block: blk(1), logs: [] }))).toEqual({ block: blk(1), logs: [] });
    expect(() => decodeStoredBlock(bytes.subarray(0, bytes.length - 1))).toThrow();
    expect(() => encodeStoredBlock({ block: { ...blk(1), hash: "0x12" as Hash }, logs: [] })).toThrow();
  });

  it("still reads values written in the earlier JSON layout", () => {
    const json = JSON.stringify({ b: value.block, l: value.logs }, (_k, v) =>
      typeof v === "bigint" ? v.toString(10) : v,
    );
    expect(decodeStoredBlock(new TextEncoder().encode(json))).toEqual(value);
  });
});

describe("LogsStore", () => {
  it("seals consecutive blocks, finds logs, survives a reopen", async () => {
    const dir = tmp();
    let s = await LogsStore.open(dir);
    expect(s.latest()).toBeUndefined();
    await s.seal(blk(10), [{ hash: lh(10, 0) }, { hash: lh(10, 1) }]); // the anchor: any number
    await s.seal(blk(11), []);
    await s.seal(blk(12), [{ hash: lh(12, 0) }]);
    expect(await s.findLog(10, 1)).toEqual({ logHash: lh(10, 1), blockTimestamp: 1020 });
    expect(await s.findLog(10, 2)).toBeUndefined();
    expect(await s.findLog(9, 0)).toBeUndefined();
    expect(await s.findLog(13, 0)).toBeUndefined();
    await s.close();
    s = await LogsStore.open(dir);
    expect(s.first()?.number).toBe(10);
    expect(s.latest()).toEqual(blk(12));
    expect(await s.findLog(12, 0)).toEqual({ logHash: lh(12, 0), blockTimestamp: 1024 });
    await s.close();
  });

  it("seals several blocks in one write, all or nothing", async () => {
    const dir = tmp();
    let s = await LogsStore.open(dir);
    await s.sealMany([
      { block: blk(5), logs: [{ hash: lh(5, 0) }] },
      { block: blk(6), logs: [] },
      { block: blk(7), logs: [{ hash: lh(7, 0) }] },
    ]);
    // A batch whose third block does not link: nothing of it is written.
    await expect(
      s.sealMany([
        { block: blk(7), logs: [] }, // already sealed: skipped
        { block: blk(8), logs: [] },
        { block: blk(9, "b"), logs: [] },
      ]),
    ).rejects.toMatchObject({ code: "INTEROP_LOGS_PARENT" });
    expect(s.latest()).toEqual(blk(7));
    await s.close();
    s = await LogsStore.open(dir);
    expect(s.first()?.number).toBe(5);
    expect(s.latest()).toEqual(blk(7));
    expect(await s.findLog(7, 0)).toEqual({ logHash: lh(7, 0), blockTimestamp: 1014 });
    expect(await s.blockAt(8)).toBeUndefined();
    await s.close();
  });

  it("is idempotent and refuses conflicts", async () => {
    const s = await LogsStore.open(tmp());
    await s.seal(blk(1), []);
    await s.seal(blk(2), []);
    await s.seal(blk(2), []); // the same block again: no-op
    await s.seal(blk(1), []);
    await expect(s.seal(blk(2, "b", "a"), [])).rejects.toMatchObject({ code: "INTEROP_LOGS_STALE" });
    await expect(s.seal(blk(4), [])).rejects.toMatchObject({ code: "INTEROP_LOGS_GAP" });
    await expect(s.seal(blk(3, "b"), [])).rejects.toMatchObject({ code: "INTEROP_LOGS_PARENT" });
    await expect(s.seal({ ...blk(3), timestamp: 1 }, [])).rejects.toMatchObject({ code: "INTEROP_LOGS_TIME" });
    expect(s.latest()).toEqual(blk(2));
    await s.close();
  });

  it("is repaired by a rewind after an L2 reorg, and can be cleared", async () => {
    const dir = tmp();
    let s = await LogsStore.open(dir);
    for (let n = 5; n <= 9; n++) await s.seal(blk(n), [{ hash: lh(n, 0) }]);
    await s.rewindTo(6);
    expect(s.latest()).toEqual(blk(6));
    expect(await s.findLog(7, 0)).toBeUndefined();
    await s.seal(blk(7, "b", "a"), [{ hash: lh(77, 0) }]);
    await s.close();
    s = await LogsStore.open(dir);
    expect(s.latest()).toEqual(blk(7, "b", "a"));
    expect(await s.findLog(7, 0)).toEqual({ logHash: lh(77, 0), blockTimestamp: 1014 });
    await s.rewindTo(100); // beyond the head: nothing to do
    expect(s.latest()?.number).toBe(7);
    await s.rewindTo(2); // before the first block: empty
    expect(s.latest()).toBeUndefined();
    expect(s.first()).toBeUndefined();
    await s.seal(blk(40), []);
    await s.clear();
    expect(s.latest()).toBeUndefined();
    await s.close();
  });

  it("keeps executing messages with their chain IDs", async () => {
    const s = await LogsStore.open(tmp());
    const executing = {
      id: { origin: `0x${"11".repeat(20)}` as const, blockNumber: 3, logIndex: 0, timestamp: 9, chainId: 902n },
      payloadHash: h("d", 1),
    };
    await s.seal(blk(1), [{ hash: lh(1, 0), executing }]);
    expect(await s.findLog(1, 0)).toEqual({ logHash: lh(1, 0), blockTimestamp: 1002 });
    await s.close();
  });
});

const res = (ts: number, l1 = ts, branch = "a"): VerifiedResult => ({
  timestamp: ts,
  l1Inclusion: { hash: h("e", l1), number: l1 },
  l2Heads: { "902": { hash: h(branch, ts), number: ts }, "901": { hash: h(branch, ts), number: ts } },
});

describe("VerifiedStore", () => {
  it("commits a round's seals of every chain (sublevels) and its result in one batch", async () => {
    const dir = tmp();
    let v = await VerifiedStore.open(dir);
    let a = await v.logsStore("901");
    let b = await v.logsStore("902");
    const stagedA = await a.stage([{ block: blk(100), logs: [{ hash: lh(100, 0) }] }]);
    const stagedB = await b.stage([{ block: blk(100, "b"), logs: [] }]);
    expect(a.latest()).toBeUndefined(); // nothing written before the commit
    await v.commit(res(100), [stagedA!, stagedB!]);
    expect(a.latest()).toEqual(blk(100));
    // A refused commit (a gap) writes none of its seals.
    const staged = await a.stage([{ block: blk(101), logs: [] }]);
    await expect(v.commit(res(102), [staged!])).rejects.toThrow("expected 101, got 102");
    expect(a.latest()).toEqual(blk(100));
    expect(await a.stage([{ block: blk(100), logs: [] }])).toBeUndefined(); // sealed already
    await v.close();
    v = await VerifiedStore.open(dir);
    a = await v.logsStore("901");
    b = await v.logsStore("902");
    expect(v.last()?.timestamp).toBe(100);
    expect(a.latest()).toEqual(blk(100));
    expect(b.latest()).toEqual(blk(100, "b"));
    expect(await a.findLog(100, 0)).toEqual({ logHash: lh(100, 0), blockTimestamp: 1200 });
    expect(await b.blockAt(101)).toBeUndefined();
    await v.close();
  });

  it("commits contiguously, idempotently, and reopens", async () => {
    const dir = tmp();
    let s = await VerifiedStore.open(dir);
    await s.commit(res(100));
    await s.commit(res(101));
    await s.commit({ ...res(100), l2Heads: { "901": res(100).l2Heads["901"]!, "902": res(100).l2Heads["902"]! } });
    await expect(s.commit(res(100, 7))).rejects.toThrow("timestamp already committed: 100");
    await expect(s.commit(res(103))).rejects.toThrow("expected 102, got 103");
    await s.close();
    s = await VerifiedStore.open(dir);
    expect(s.last()?.timestamp).toBe(101);
    expect(s.firstTimestamp()).toBe(100);
    expect(await s.get(100)).toEqual(res(100));
    expect(await s.get(99)).toBeUndefined();
    await s.close();
  });

  it("writes the transition ahead and clears it with the commit", async () => {
    const dir = tmp();
    const s = await VerifiedStore.open(dir);
    const t = { kind: "advance" as const, result: { ...res(5), invalidHeads: {} } };
    await s.setPending(t);
    await s.close();
    const s2 = await VerifiedStore.open(dir);
    expect(await s2.pending()).toEqual(t);
    await s2.commit(res(5));
    expect(await s2.pending()).toBeUndefined();
    await s2.setPending({ kind: "rewind", rewindAtOrAfter: 5 });
    await s2.rewind(5);
    expect(await s2.pending()).toBeUndefined();
    expect(s2.last()).toBeUndefined();
    await s2.close();
  });

  it("rewinds and finds the newest result at an L1 block", async () => {
    const s = await VerifiedStore.open(tmp());
    for (let ts = 10; ts < 30; ts++) await s.commit(res(ts, 100 + Math.floor(ts / 3)));
    expect((await s.atL1(105))?.timestamp).toBe(17);
    expect((await s.atL1(1000))?.timestamp).toBe(29);
    expect(await s.atL1(102)).toBeUndefined();
    expect((await s.atL1(103))?.timestamp).toBe(11);
    await s.rewind(20);
    expect(s.last()?.timestamp).toBe(19);
    await s.commit(res(20, 500, "b"));
    expect(s.last()).toEqual(res(20, 500, "b"));
    await s.rewind(0);
    expect(s.last()).toBeUndefined();
    expect(s.firstTimestamp()).toBeUndefined();
    await s.close();
  });
});
