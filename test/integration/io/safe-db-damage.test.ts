/**
 * A damaged SafeDB (real LevelDB in a temp dir: garbled table, truncated table, missing or garbled MANIFEST) is a
 * critical error naming the path — never a temporary one retried forever — and `supernode db check|reset` finds it
 * and moves it aside so the next start begins with an empty store.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Level } from "level";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/program.js";
import { CriticalError, severityOf } from "../../../src/core/errors/supernode-error.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { encodeSafeDbKey, encodeSafeDbValue, SafeDB } from "../../../src/io/db/safe-db.js";
import { safeDbPathOf } from "../../../src/io/db/store-maintenance.js";
import { ChainNode } from "../../../src/node/chain-node.js";
import { FakeEngine, FakeL1, fakeAttributesBuilder, testRollupConfig, ToyPipeline } from "../../unit/node/fakes.js";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;
const id = (n: number) => ({ hash: h(n), number: n });
const root = mkdtempSync(join(tmpdir(), "safedb-damage-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;

/** A chain's SafeDB under a fresh data dir, with entries compacted into a table file (.ldb). */
async function filledStore(): Promise<{ dataDir: string; dir: string }> {
  const dataDir = join(root, `data-${seq++}`);
  const dir = safeDbPathOf(dataDir, 901n);
  const raw = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
  await raw.batch(
    Array.from({ length: 3000 }, (_, j) => ({
      type: "put" as const,
      key: encodeSafeDbKey(j + 1),
      value: encodeSafeDbValue(h(j + 1), id(10_000 + j)),
    })),
  );
  await raw.close();
  const db = await SafeDB.open(dir, { logger: silentLogger }); // reopening moves the write-ahead log into a table
  await db.close();
  return { dataDir, dir };
}

const files = (dir: string, re: RegExp) => readdirSync(dir).filter((f) => re.test(f));

async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: {},
    handleSignals: false,
  });
  return { code, out, err };
}

describe("SafeDB damage", () => {
  it("a garbled table: reads fail with a critical SAFEDB_CORRUPT naming the path", async () => {
    const { dir } = await filledStore();
    const tables = files(dir, /\.ldb$/);
    expect(tables.length).toBeGreaterThan(0);
    for (const f of tables) {
      const b = readFileSync(join(dir, f));
      b.fill(0x55, 100, Math.min(b.length - 100, 4000));
      writeFileSync(join(dir, f), b);
    }
    // the open reads every entry, so the damage fails the open (the chain: `failed` at start), not a later read
    const err = await failure(() => SafeDB.open(dir, { logger: silentLogger }));
    expect(err).toBeInstanceOf(CriticalError);
    expect(severityOf(err)).toBe("critical");
    expect((err as CriticalError).code).toBe("SAFEDB_CORRUPT");
    expect((err as Error).message).toContain(dir);
    expect((err as Error).message).toContain("supernode db reset");
  });

  it("a truncated table: critical too", async () => {
    const { dir } = await filledStore();
    for (const f of files(dir, /\.ldb$/)) truncateSync(join(dir, f), Math.floor(statSync(join(dir, f)).size / 2));
    const db = SafeDB.openInBackground(dir, { logger: silentLogger });
    const err = await failure(() => db.safeHeadAtL1Block(20_000)); // the newest entries, far from the damage
    await db.close();
    expect((err as CriticalError).code).toBe("SAFEDB_CORRUPT");
    expect((err as Error).message).toContain(dir);
  });

  it("a missing or garbled MANIFEST: opening fails with a critical SAFEDB_CORRUPT", async () => {
    const a = await filledStore();
    for (const f of files(a.dir, /^MANIFEST-/)) rmSync(join(a.dir, f));
    const missing = await failure(() => SafeDB.open(a.dir, { logger: silentLogger }));
    expect((missing as CriticalError).code).toBe("SAFEDB_CORRUPT");
    expect((missing as Error).message).toContain(a.dir);
    // opened in the background (as a chain does): the first operation fails with the same critical error
    const background = SafeDB.openInBackground(a.dir, { logger: silentLogger });
    const first = await failure(() => background.safeHeadAtL1Block(10));
    expect(first).toMatchObject({ code: "SAFEDB_CORRUPT", severity: "critical" });
    await background.close();
    const b = await filledStore();
    for (const f of files(b.dir, /^MANIFEST-/)) writeFileSync(join(b.dir, f), "garbage");
    expect(((await failure(() => SafeDB.open(b.dir, { logger: silentLogger }))) as CriticalError).code).toBe(
      "SAFEDB_CORRUPT",
    );
  });

  it("`supernode db check` finds the damage; `db reset` moves the store aside and the next open starts empty", async () => {
    const { dataDir, dir } = await filledStore();
    expect(await cli(["db", "check", "--data-dir", dataDir, "--chain", "901"])).toMatchObject({
      code: 0,
      out: `${dir}: ok, 3000 entries\n`,
    });
    for (const f of files(dir, /^MANIFEST-/)) rmSync(join(dir, f));
    const check = await cli(["db", "check", "--data-dir", dataDir, "--chain", "901"]);
    expect(check.code).toBe(1);
    expect(check.err).toContain(`${dir}: damaged: SafeDB at ${dir} is corrupted`);

    const reset = await cli(["db", "reset", "--data-dir", dataDir, "--chain", "901"]);
    expect(reset.code).toBe(0);
    const moved = /moved to (\S+);/.exec(reset.out)?.[1];
    expect(moved).toMatch(/safedb\.damaged-\d{8}T\d{6}Z$/);
    expect(existsSync(moved!)).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect((await cli(["db", "check", "--data-dir", dataDir, "--chain", "901"])).out).toContain("missing");

    const db = await SafeDB.open(dir, { logger: silentLogger });
    expect(await db.entries()).toEqual([]);
    await db.close();
    expect((await cli(["db", "reset", "--data-dir", dataDir, "--chain", "901"])).out).toContain("moved to");
    expect((await cli(["db", "reset", "--data-dir", dataDir, "--chain", "0x1"])).code).not.toBe(0);
  });

  it("acknowledged records LevelDB drops at open (a torn log): the open fails naming the range, `db check` too", async () => {
    const dataDir = join(root, `data-${seq++}`);
    const dir = safeDbPathOf(dataDir, 901n);
    const db = await SafeDB.open(dir, { logger: silentLogger });
    for (let n = 1; n <= 200; n++) await db.safeHeadUpdated(id(10_000 + n), id(n));
    await db.close();
    const again = await SafeDB.open(dir, { logger: silentLogger }); // moves the log into a table: a clean restart
    for (let n = 201; n <= 400; n++) await again.safeHeadUpdated(id(10_000 + n), id(n));
    await again.close();
    // LevelDB reads a log cut short as the end of the log ("a writer died"): the records behind the cut vanish
    for (const f of files(dir, /\.log$/)) truncateSync(join(dir, f), Math.floor(statSync(join(dir, f)).size / 2));
    const err = await failure(() => SafeDB.open(dir, { logger: silentLogger }));
    expect(err).toMatchObject({ code: "SAFEDB_CORRUPT", severity: "critical" });
    expect((err as Error).message).toMatch(
      /lost acknowledged records: it holds \d+ entries up to L1 block \d+ but had acknowledged 400 up to L1 block 400/,
    );
    const check = await cli(["db", "check", "--data-dir", dataDir, "--chain", "901"]);
    expect(check.code).toBe(1);
    expect(check.err).toContain("lost acknowledged records");
  });

  it("junk in the middle of the log (records dropped, the newest kept) is seen by the entry count", async () => {
    const dataDir = join(root, `data-${seq++}`);
    const dir = safeDbPathOf(dataDir, 901n);
    const db = await SafeDB.open(dir, { logger: silentLogger });
    for (let n = 1; n <= 800; n++) await db.safeHeadUpdated(id(10_000 + n), id(n));
    await db.close();
    for (const f of files(dir, /\.log$/)) {
      const b = readFileSync(join(dir, f));
      b.fill(0x55, 1000, 3000); // LevelDB skips the damaged 32 KiB block and keeps the later ones
      writeFileSync(join(dir, f), b);
    }
    const err = await failure(() => SafeDB.open(dir, { logger: silentLogger }));
    expect(err).toMatchObject({ code: "SAFEDB_CORRUPT", severity: "critical" });
    expect((err as Error).message).toMatch(/but had acknowledged 800 up to L1 block 800/);
  });

  it('`supernode db check` on a store in use says so (exit 2), not "damaged"', async () => {
    const { dataDir, dir } = await filledStore();
    const live = await SafeDB.open(dir, { logger: silentLogger });
    try {
      const check = await cli(["db", "check", "--data-dir", dataDir, "--chain", "901"]);
      expect(check.code).toBe(2);
      expect(check.err).toContain(`${dir}: locked: in use by a running supernode`);
      expect(check.err).not.toContain("damaged");
    } finally {
      await live.close();
    }
  });

  it("a garbled table fails the chain's node at start with SAFEDB_CORRUPT (not running until a read meets it)", async () => {
    const { dir } = await filledStore();
    for (const f of files(dir, /\.ldb$/)) {
      const b = readFileSync(join(dir, f));
      b.fill(0x55, 100, Math.min(b.length - 100, 4000)); // the oldest entries: no start-up read touches them
      writeFileSync(join(dir, f), b);
    }
    const cfg = testRollupConfig();
    const l1 = new FakeL1(10);
    const engine = new FakeEngine(cfg);
    const builder = fakeAttributesBuilder(cfg, l1);
    const safeDb = SafeDB.openInBackground(dir, { logger: silentLogger });
    const node = await ChainNode.create(
      {
        rollup: cfg,
        engineKind: "variant_b",
        syncMode: "consensus-layer",
        sequencer: { enabled: false, stopped: false, l1Confs: 0, maxSafeLag: 0, recoverMode: false },
        verifierL1Confs: 0,
        idlePollMs: 5,
      },
      {
        l1,
        engine,
        safeDb,
        clock: systemClock,
        logger: silentLogger,
        createPipeline: () => new ToyPipeline(cfg, l1, builder),
        attributesBuilder: builder,
        refFromPayload: engine.refOf,
      },
    );
    await node.start();
    const err = await failure(() => node.done());
    await safeDb.close();
    expect(err).toMatchObject({ code: "SAFEDB_CORRUPT", severity: "critical" });
  });
});
