/**
 * A full disk under the SafeDB (a real 2 MiB tmpfs): a write that fails with ENOSPC leaves a torn record in
 * LevelDB's log; the store must be reopened before it acknowledges anything else, so that every record it
 * acknowledged — before the disk filled and after space was freed — is still there after a restart.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { SafeDB } from "../../../src/io/db/safe-db.js";
import { checkSafeDb } from "../../../src/io/db/store-maintenance.js";
import { fillUp } from "../../../chaos/small-fs.js";
import { describeWithSmallFs, mountSmallFs, type SmallFs } from "../../support/small-fs.js";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;
const id = (n: number) => ({ hash: h(n), number: n });

describeWithSmallFs("SafeDB on a full disk", () => {
  let fs: SmallFs;
  beforeAll(() => {
    fs = mountSmallFs(2048);
  });
  afterAll(() => fs?.unmount());

  it("keeps every acknowledged record across a full disk, freed space and a restart", async () => {
    const dir = join(fs.dir, "safedb");
    const filler = join(fs.dir, "filler");
    const db = await SafeDB.open(dir, { logger: silentLogger });
    const acked: number[] = [];
    let n = 1;
    const put = async (): Promise<boolean> => {
      try {
        await db.safeHeadUpdated(id(10_000 + n), id(n));
        acked.push(n);
        return true;
      } catch {
        return false;
      } finally {
        n++;
      }
    };
    for (let i = 0; i < 50; i++) expect(await put()).toBe(true);
    fillUp(filler);
    let failures = 0;
    for (let i = 0; i < 2000 && failures < 3; i++) if (!(await put())) failures++;
    expect(failures).toBeGreaterThan(0); // the disk really filled
    rmSync(filler);
    // space is back: writes succeed again (the node retries a failed one; here the next record is written)
    let after = 0;
    for (let i = 0; i < 400 && after < 300; i++) if (await put()) after++;
    expect(after).toBe(300);
    await db.close();

    const again = await SafeDB.open(dir, { logger: silentLogger });
    const have = new Set((await again.entries()).map((e) => e.l1Block.number));
    await again.close();
    const lost = acked.filter((k) => !have.has(k));
    expect(lost).toEqual([]);
    expect(await checkSafeDb(dir)).toMatchObject({ status: "ok" });
  });
});
