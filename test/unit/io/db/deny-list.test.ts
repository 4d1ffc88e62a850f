/**
 * The per-chain deny list on a real LevelDB: records by height, idempotent adds, pruning by decision time, the
 * sequencer's replacement hold, reopen, and the open in the background (a store held by another handle).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Hash } from "../../../../src/core/types/primitives.js";
import { Level } from "level";
import { severityOf } from "../../../../src/core/errors/supernode-error.js";
import { DenyList } from "../../../../src/io/db/deny-list.js";
import type { DeniedBlock } from "../../../../src/protocol/interop/types.js";

const dirs: string[] = [];
const open: DenyList[] = [];
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "denylist-"));
  dirs.push(d);
  return join(d, "denylist");
}

async function openList(dir: string): Promise<DenyList> {
  const l = await DenyList.open(dir);
  open.push(l);
  return l;
}

const hx = (c: string): Hash => `0x${c.repeat(64)}` as Hash;

function rec(height: number, c: string, decisionTimestamp: number, txs: Hash[] = []): DeniedBlock {
  return {
    height,
    payloadHash: hx(c),
    decisionTimestamp,
    stateRoot: hx("5"),
    messagePasserStorageRoot: hx("6"),
    txHashes: txs,
  };
}

describe("DenyList", () => {
  it.each([
    ["a new record", [rec(5, "a", 1005)], [true]],
    ["the same (height, hash) twice: the first record wins", [rec(5, "a", 1005), rec(5, "a", 1009)], [true, false]],
    ["two hashes at one height", [rec(5, "a", 1005), rec(5, "b", 1006)], [true, true]],
    ["the same hash at two heights", [rec(5, "a", 1005), rec(6, "a", 1006)], [true, true]],
  ] as const)("add: %s", async (_name, recs, added) => {
    const l = await openList(tempDir());
    const got: boolean[] = [];
    for (const r of recs) got.push(await l.add(r));
    expect(got).toEqual(added);
    for (const r of recs) expect(l.isDenied(r.height, r.payloadHash)).toBe(true);
    expect(l.isDenied(5, hx("c"))).toBe(false);
    expect(l.isDenied(7, hx("a"))).toBe(false);
    // The upper-case spelling of a denied hash is denied too.
    expect(l.isDenied(5, hx("A"))).toBe(true);
    expect(l.all()).toHaveLength(added.filter((a) => a).length);
  });

  it("refuses height 0 (genesis) and records nothing", async () => {
    const l = await openList(tempDir());
    await expect(l.add(rec(0, "a", 1000))).rejects.toThrow("cannot invalidate genesis block (height=0)");
    expect(l.all()).toEqual([]);
  });

  it("keeps records across a reopen, in height then insertion order", async () => {
    const dir = tempDir();
    const l = await openList(dir);
    await l.add(rec(9, "c", 1009, [hx("1")]));
    await l.add(rec(5, "a", 1005));
    await l.add(rec(5, "b", 1006, [hx("2"), hx("3")]));
    await l.close();
    open.splice(0);
    const again = await openList(dir);
    expect(again.all().map((r) => [r.height, r.payloadHash])).toEqual([
      [5, hx("a")],
      [5, hx("b")],
      [9, hx("c")],
    ]);
    expect(again.atHeight(5)[1]).toEqual(rec(5, "b", 1006, [hx("2"), hx("3")]));
    expect(again.atHeight(7)).toEqual([]);
    expect(await again.add(rec(9, "c", 2000))).toBe(false);
  });

  it.each([
    ["after every decision", 2000, [], [5, 5, 9]],
    ["at the first decision", 1005, [5, 5, 9], []],
    ["between two decisions at one height", 1006, [5, 9], [5]],
    ["at the last decision", 1009, [9], [5, 5]],
  ] as const)("pruneAtOrAfter %s", async (_name, ts, removed, kept) => {
    const dir = tempDir();
    const l = await openList(dir);
    await l.add(rec(5, "a", 1005));
    await l.add(rec(5, "b", 1006));
    await l.add(rec(9, "c", 1009));
    expect((await l.pruneAtOrAfter(ts)).map((r) => r.height)).toEqual(removed);
    expect(l.all().map((r) => r.height)).toEqual(kept);
    await l.close();
    open.splice(0);
    const again = await openList(dir);
    expect(again.all().map((r) => r.height)).toEqual(kept);
    // A pruned denial is gone: the same block can be denied again.
    for (const r of [rec(5, "a", 1005), rec(5, "b", 1006), rec(9, "c", 1009)])
      expect(again.isDenied(r.height, r.payloadHash)).toBe(r.decisionTimestamp < ts);
  });

  it("answers a closed list with an error", async () => {
    const l = await openList(tempDir());
    await l.close();
    await expect(l.add(rec(1, "a", 1))).rejects.toThrow("closed");
  });

  it("keeps the sequencer's replacement hold across a reopen, beside the records", async () => {
    const dir = tempDir();
    const l = await openList(dir);
    expect(l.replacementHold()).toBeUndefined();
    await l.add(rec(7, "a", 1007, [hx("1")]));
    await l.setReplacementHold(7);
    await l.close();
    open.splice(0);
    const again = await openList(dir);
    expect(again.replacementHold()).toBe(7);
    expect(again.all()).toEqual([rec(7, "a", 1007, [hx("1")])]);
    await again.setReplacementHold(undefined);
    await again.close();
    open.splice(0);
    const third = await openList(dir);
    expect(third.replacementHold()).toBeUndefined();
    expect(third.all().map((r) => r.height)).toEqual([7]);
  });

  it("opens in the background: a store held elsewhere is a temporary error, and a later wait opens it", async () => {
    const dir = tempDir();
    const first = await openList(dir);
    await first.add(rec(3, "a", 1003));
    await first.close();
    open.splice(0);
    // Another handle holds the LevelDB lock (as another process would).
    const holder = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    await holder.open();
    const l = DenyList.openInBackground(dir);
    open.push(l);
    const err = await l.opened().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe("DENYLIST_LOCKED");
    expect(severityOf(err)).toBe("temporary");
    await holder.close();
    await l.opened();
    expect(l.isDenied(3, hx("a"))).toBe(true);
    expect(await l.add(rec(4, "b", 1004))).toBe(true);
  });
});
