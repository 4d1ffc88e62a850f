/** The simulated execution client's on-disk chain (packages/devnet/src/el/chain-store.ts): restart with data, torn tail, wipe. */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Hash, Hex } from "supernode/core";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import {
  buildAndSeal,
  GENESIS_TIME,
  jovianAttrs,
  l1InfoDeposit,
  l1InfoJovian,
  startEl,
  userDeposit,
  BOB,
} from "../support/el-support.js";

function attrsFor(n: number, extra: Hex[] = []) {
  const ts = GENESIS_TIME + 2 * n;
  return jovianAttrs(ts, [l1InfoDeposit(l1InfoJovian({ number: 100 + n, time: ts - 1, seq: 0 }), n), ...extra]);
}

describe("simulated execution client: chain store", () => {
  const started: SimulatedExecutionClient[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const el of started.splice(0)) await el.stop();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const start = async (datadir: string) => {
    const el = await startEl({ variant: "a", datadir });
    started.push(el);
    return el;
  };

  it("comes back with its blocks and labels after a restart, ignores a torn last line, and starts wiped without its datadir", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-el-store-"));
    dirs.push(dir);
    const a = await start(dir);
    const hashes: Hash[] = [];
    for (let n = 1; n <= 3; n++) {
      const p = await buildAndSeal(a, attrsFor(n, n === 2 ? [userDeposit(BOB, 10n ** 18n, 10n ** 17n, "d2")] : []));
      hashes.push(p.blockHash as Hash);
    }
    await a.stop();
    appendFileSync(join(dir, "chain.jsonl"), '{"m":"engine_newPayloadV4","p":[{"bl'); // killed mid-write

    const b = await start(dir);
    expect(b.head.header.number).toBe(3);
    expect(b.head.hash).toBe(hashes[2]);
    expect(b.core.chain.byNumber(2)?.hash).toBe(hashes[1]);
    expect(b.core.chain.safe.hash).toBe(hashes[1]); // buildAndSeal's last forkchoice: safe = the parent
    // it goes on from there
    const p4 = await buildAndSeal(b, attrsFor(4));
    expect(p4.blockNumber).toBe("0x4");
    await b.stop();

    const wipedDir = mkdtempSync(join(tmpdir(), "sim-el-store-"));
    dirs.push(wipedDir);
    const c = await start(wipedDir);
    expect(c.head.header.number).toBe(0);
  });

  it("refuses a chain store of another genesis", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-el-store-"));
    dirs.push(dir);
    writeFileSync(join(dir, "chain.jsonl"), `${JSON.stringify({ genesis: `0x${"11".repeat(32)}` })}\n`);
    await expect(startEl({ variant: "a", datadir: dir })).rejects.toThrow(/belongs to genesis/);
  });
});
