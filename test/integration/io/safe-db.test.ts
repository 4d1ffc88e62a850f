import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Level } from "level";
import { afterAll, describe, expect, it } from "vitest";
import { bytesToHex } from "../../../src/core/codec/hex.js";
import { silentLogger } from "../../../src/core/logger.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { SafeDB } from "../../../src/io/db/safe-db.js";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;
const id = (n: number) => ({ hash: h(n), number: n });
const root = mkdtempSync(join(tmpdir(), "safedb-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;
const freshDir = () => join(root, `db-${seq++}`);

describe("SafeDB on LevelDB", () => {
  it("records safe heads by L1 block and answers at-or-before queries", async () => {
    const db = await SafeDB.open(freshDir(), { logger: silentLogger });
    expect(await db.safeHeadAtL1Block(100)).toBeUndefined();
    expect(await db.firstEntry()).toBeUndefined();
    await db.safeHeadUpdated(id(1000), id(10));
    await db.safeHeadUpdated(id(1001), id(10)); // same L1 block: overwritten
    await db.safeHeadUpdated(id(1005), id(12));
    expect(await db.safeHeadAtL1Block(9)).toBeUndefined();
    expect(await db.safeHeadAtL1Block(10)).toEqual({ l1Block: id(10), safeHead: id(1001) });
    expect(await db.safeHeadAtL1Block(11)).toEqual({ l1Block: id(10), safeHead: id(1001) });
    expect(await db.safeHeadAtL1Block(12)).toEqual({ l1Block: id(12), safeHead: id(1005) });
    expect(await db.safeHeadAtL1Block(1_000_000)).toEqual({ l1Block: id(12), safeHead: id(1005) });
    expect(await db.firstEntry()).toEqual({ l1Block: id(10), safeHead: id(1001) }); // the oldest safe head known
    await db.truncate(10);
    expect(await db.safeHeadAtL1Block(1_000_000)).toEqual({ l1Block: id(10), safeHead: id(1001) });
    await db.close();
  });

  it("opened in the background: operations wait for the open; a failed open fails them and is tried again", async () => {
    const dir = freshDir();
    const db = SafeDB.openInBackground(dir, { logger: silentLogger });
    // issued at once, before the store is open
    await Promise.all([db.safeHeadUpdated(id(7), id(3)), db.safeHeadUpdated(id(9), id(4))]);
    expect(await db.safeHeadAtL1Block(4)).toEqual({ l1Block: id(4), safeHead: id(9) });
    // a second handle on the same store cannot take its lock: its operations fail with a temporary SAFEDB_LOCKED …
    const second = SafeDB.openInBackground(dir, { logger: silentLogger });
    await expect(second.safeHeadAtL1Block(4)).rejects.toMatchObject({ code: "SAFEDB_LOCKED", severity: "temporary" });
    await expect(second.safeHeadUpdated(id(11), id(5))).rejects.toMatchObject({ code: "SAFEDB_LOCKED" });
    // … and once the lock is free, the next operation opens it
    await db.close();
    expect(await second.safeHeadAtL1Block(4)).toEqual({ l1Block: id(4), safeHead: id(9) });
    await second.close();
  });

  it("stores the op-node key/value layout byte for byte", async () => {
    const dir = freshDir();
    const db = await SafeDB.open(dir, { logger: silentLogger });
    await db.safeHeadUpdated(id(0x0102), id(0x0a0b));
    await db.close();
    const raw = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const all = await raw.iterator().all();
    await raw.close();
    expect(all.length).toBe(1);
    const [k, v] = all[0] as [Uint8Array, Uint8Array];
    expect(bytesToHex(k)).toBe("0x000000000000000a0b");
    expect(bytesToHex(v)).toBe(`${h(0x0a0b)}${h(0x0102).slice(2)}0000000000000102`);
  });

  it("reset truncation follows op-node (delete from the first entry at/after the new safe head, re-record it)", async () => {
    const db = await SafeDB.open(freshDir(), { logger: silentLogger });
    for (let l1 = 10; l1 <= 15; l1++) await db.safeHeadUpdated(id(l1 * 10), id(l1));
    // new safe head 125 with L1 origin 11: first entry with L2 ≥ 125 is L1 13 (130)
    await db.safeHeadReset({ ...id(125), parentHash: h(124), timestamp: 0, l1origin: id(11), sequenceNumber: 0 });
    const entries = await db.entries();
    expect(entries.map((e) => e.l1Block.number)).toEqual([10, 11, 12, 13]);
    expect(entries[3]).toEqual({ l1Block: id(13), safeHead: id(125) });
    // reset below the very first entry: everything goes and nothing is re-inserted
    await db.safeHeadReset({ ...id(50), parentHash: h(49), timestamp: 0, l1origin: id(5), sequenceNumber: 0 });
    expect(await db.entries()).toEqual([]);
    // reset to L2 genesis records L1 block 0
    await db.safeHeadUpdated(id(70), id(7));
    await db.safeHeadReset(
      { ...id(0), parentHash: h(0), timestamp: 0, l1origin: id(3), sequenceNumber: 0 },
      { isL2Genesis: true, l1Block0: id(0) },
    );
    expect(await db.entries()).toEqual([{ l1Block: id(0), safeHead: id(0) }]);
    await db.clear();
    expect(await db.entries()).toEqual([]);
    await db.close();
    await expect(db.safeHeadAtL1Block(1)).rejects.toMatchObject({ code: "SAFEDB_CLOSED" });
  });

  it("is intact after the writer is SIGKILLed mid-write", async () => {
    const dir = freshDir();
    const writer = resolve(import.meta.dirname, "fixtures/safedb-writer.ts");
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", writer, dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let lastOk = 0;
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    await new Promise<void>((resolveWait, reject) => {
      const timer = setTimeout(() => reject(new Error(`writer too slow: ${stderr}`)), 20_000);
      child.stdout?.on("data", (c: Buffer) => {
        for (const m of c.toString().matchAll(/ok (\d+)/g)) lastOk = Math.max(lastOk, Number(m[1]));
        if (lastOk >= 200) {
          clearTimeout(timer);
          resolveWait();
        }
      });
      child.once("exit", () => reject(new Error(`writer exited early: ${stderr}`)));
    });
    child.kill("SIGKILL");
    await exited;
    const db = await SafeDB.open(dir, { logger: silentLogger });
    const entries = await db.entries();
    expect(entries.length).toBeGreaterThanOrEqual(lastOk);
    entries.forEach((e, i) => {
      expect(e.l1Block).toEqual(id(i + 1));
      expect(e.safeHead).toEqual(id(2 * (i + 1)));
    });
    const last = entries.length;
    expect(await db.safeHeadAtL1Block(last + 100)).toEqual({ l1Block: id(last), safeHead: id(2 * last) });
    // and it keeps working after the crash
    await db.safeHeadUpdated(id(2 * last + 2), id(last + 1));
    expect((await db.safeHeadAtL1Block(last + 1))?.safeHead).toEqual(id(2 * last + 2));
    await db.close();
  });
});
