import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InteropActivity } from "../../../src/activities/interop/activity.js";
import type { InteropMetrics } from "../../../src/activities/interop/ports.js";
import { silentLogger } from "../../../src/core/logger.js";
import type { BlockId } from "../../../src/core/types/block-ref.js";
import { ZERO_HASH } from "../../../src/core/types/primitives.js";
import { systemClock } from "../../../src/core/time/clock.js";
import { LogsStore } from "../../../src/io/db/interop/logs-store.js";
import { VerifiedStore } from "../../../src/io/db/interop/verified-store.js";
import { makeDependencySet } from "../../../src/protocol/interop/dependency-set.js";
import { WorldChain, WorldL1 } from "./interop-world.js";

const dirs: string[] = [];
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const GENESIS = 1000;

function countingMetrics() {
  const c = { verified: 0, invalidations: 0, rewinds: 0, decisions: {} as Record<string, number>, state: "" };
  const m: InteropMetrics = {
    verified: () => {
      c.verified++;
    },
    decision: (k) => {
      c.decisions[k] = (c.decisions[k] ?? 0) + 1;
    },
    invalidation: () => {
      c.invalidations++;
    },
    denied: () => {},
    rewind: () => {
      c.rewinds++;
    },
    verificationSeconds: () => {},
    state: (s) => {
      c.state = s;
    },
    backfillProgress: () => {},
  };
  return { c, m };
}

async function setup(opts: { blockTimes?: [number, number]; activation?: number; dir?: string } = {}) {
  const l1 = new WorldL1();
  const [bt1, bt2] = opts.blockTimes ?? [1, 1];
  const a = new WorldChain(901n, bt1, GENESIS, l1);
  const b = new WorldChain(902n, bt2, GENESIS, l1);
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "interop-act-"));
  if (opts.dir === undefined) dirs.push(dir);
  const world = { l1, a, b, dir };
  const open = async () => {
    const verified = await VerifiedStore.open(join(dir, "verified"));
    const logs = new Map([
      ["901", await LogsStore.open(join(dir, "logs-901"))],
      ["902", await LogsStore.open(join(dir, "logs-902"))],
    ]);
    opened.push(verified, ...logs.values());
    const { c, m } = countingMetrics();
    const activity = new InteropActivity(
      { activationTimestamp: opts.activation ?? GENESIS, dependencySet: makeDependencySet([901n, 902n]) },
      { chains: [a, b], logs, verified, l1, clock: systemClock, logger: silentLogger, metrics: m },
    );
    const drain = async (max = 10_000) => {
      let n = 0;
      while (n < max && (await activity.round())) n++;
      return n;
    };
    const close = async () => {
      await verified.close();
      for (const s of logs.values()) await s.close();
    };
    return { activity, verified, logs, counts: c, drain, close };
  };
  return { world, open };
}

describe("interop activity", () => {
  it("verifies valid messages in both directions and commits every timestamp", async () => {
    const { world, open } = await setup();
    const { a, b } = world;
    // Blocks 1..3 initiate on both chains; 4 executes each other's block-2 log; 5 executes same-timestamp logs.
    for (let n = 1; n <= 3; n++) {
      a.push([WorldChain.initiating(`a${n}`)]);
      b.push([WorldChain.initiating(`b${n}`)]);
    }
    a.push([b.executing(2, 0)]);
    b.push([a.executing(2, 0), a.executing(1, 0)]);
    a.push([WorldChain.initiating("a5")]);
    b.push([a.executing(5, 0)]);
    a.localSafe = b.localSafe = 5;
    const s = await open();
    expect(await s.drain()).toBe(6); // timestamps 1000..1005
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 5);
    expect(s.verified.last()?.l2Heads).toEqual({
      "901": { hash: a.blocks[5]!.hash, number: 5 },
      "902": { hash: b.blocks[5]!.hash, number: 5 },
    });
    expect(s.logs.get("901")?.latest()?.hash).toBe(a.blocks[5]!.hash);
    expect(s.counts.invalidations).toBe(0);
    expect(a.invalidated).toEqual([]);
    // Nothing more until a chain advances; then only when both have.
    expect(await s.activity.round()).toBe(false);
    a.advance(1);
    expect(await s.drain()).toBe(0);
    expect(s.activity.status().last_decision).toBe("wait:chains-not-ready");
    b.advance(1);
    expect(await s.drain()).toBe(1);
  });

  it.each([
    ["a wrong payload hash", (a: WorldChain) => a.executing(2, 0, {}, `0x${"00".repeat(32)}`)],
    ["an unknown origin chain", (a: WorldChain) => a.executing(2, 0, { chainId: 903n })],
    ["a log index that does not exist", (a: WorldChain) => a.executing(2, 0, { logIndex: 5 })],
    ["a timestamp that does not match", (a: WorldChain) => a.executing(2, 0, { timestamp: GENESIS + 1 })],
    [
      "a message from the activation block (too early)",
      (a: WorldChain) => {
        a.blocks[0]!.logs.push(WorldChain.initiating("genesis"));
        return a.executing(0, 0);
      },
    ],
  ])("invalidates a block with %s and goes on", async (_n, bad) => {
    const { world, open } = await setup();
    const { a, b } = world;
    a.push([WorldChain.initiating("a1")]);
    b.push([]);
    a.push([WorldChain.initiating("a2")]);
    b.push([]);
    a.push([]);
    b.push([bad(a)]);
    a.localSafe = b.localSafe = 3;
    const s = await open();
    const badHash = b.blocks[3]!.hash;
    expect(await s.drain()).toBe(3); // 1000..1002, then the invalidation at 1003
    expect(s.activity.status().last_decision).toBe("invalidate");
    expect(b.invalidated.map((x) => [x.head.number, x.head.hash, x.ts])).toEqual([[3, badHash, GENESIS + 3]]);
    expect(b.invalidated[0]?.head.txIndices).toEqual([0]);
    // The write-ahead record carried the block's payload and its parent's (the chain read neither from its EL).
    const recorded = b.invalidated[0]?.payloads;
    expect(recorded?.invalid.executionPayload.blockHash).toBe(badHash);
    expect(recorded?.parent.executionPayload.blockHash).toBe(b.blocks[2]!.hash);
    expect(await s.verified.pending()).toBeUndefined();
    expect(s.counts.invalidations).toBe(1);
    // The replacement is derived (the world rebuilt block 3 without logs): verification goes on.
    expect(b.blocks[3]!.hash).not.toBe(badHash);
    expect(await s.drain()).toBe(1);
    expect(s.verified.last()?.l2Heads["902"]?.hash).toBe(b.blocks[3]!.hash);
  });

  it("a fault reading a logs store fails the round; it never invalidates a valid message (upstream #22846)", async () => {
    const { world, open } = await setup();
    const { a, b } = world;
    for (let n = 1; n <= 2; n++) {
      a.push([WorldChain.initiating(`a${n}`)]);
      b.push([WorldChain.initiating(`b${n}`)]);
    }
    a.push([b.executing(1, 0)]); // block 3 executes chain 902's sealed block-1 log
    b.push([]);
    a.localSafe = b.localSafe = 3;
    const s = await open();
    const store = s.logs.get("902")!;
    const findLog = store.findLog.bind(store);
    store.findLog = async () => {
      throw new Error("IO error: LevelDB read failed");
    };
    let failures = 0;
    for (let i = 0; i < 6; i++) await s.activity.round().catch(() => failures++);
    expect(failures).toBeGreaterThan(0);
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 2);
    expect(s.counts.invalidations).toBe(0);
    expect(a.invalidated).toEqual([]);
    // The store reads again: the same message verifies.
    store.findLog = findLog;
    await s.drain();
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 3);
    expect(a.invalidated).toEqual([]);
  });

  it("invalidates both chains of a same-timestamp cycle", async () => {
    const { world, open } = await setup();
    const { a, b } = world;
    a.push([]);
    b.push([]);
    // Block 2 on both: log 0 executes the other's log 1 (emitted after it): a cycle.
    const a2 = a.push([WorldChain.initiating("x"), WorldChain.initiating("a-late")]);
    const b2 = b.push([WorldChain.initiating("y"), WorldChain.initiating("b-late")]);
    a2.logs[0] = b.executing(2, 1);
    b2.logs[0] = a.executing(2, 1);
    a.localSafe = b.localSafe = 2;
    const s = await open();
    expect(await s.drain()).toBe(2);
    expect(s.activity.status().last_decision).toBe("invalidate");
    expect(a.invalidated).toHaveLength(1);
    expect(b.invalidated).toHaveLength(1);
    // One log per transaction: the cycle's executing message is transaction 0 of each block.
    expect(a.invalidated[0]?.head.txIndices).toEqual([0]);
    expect(b.invalidated[0]?.head.txIndices).toEqual([0]);
  });

  it("names every offending transaction of an invalid block, and only those", async () => {
    const { world, open } = await setup();
    const { a, b } = world;
    a.push([WorldChain.initiating("a1")]);
    b.push([]);
    a.push([WorldChain.initiating("a2")]);
    b.push([]);
    a.push([]);
    // Block 3 of 902: tx 0 executes a valid message and emits a log, tx 1 an invalid one, tx 2 only a plain
    // log, tx 3 an invalid one again (after the first failure, every message is still checked).
    const b3 = b.push([
      a.executing(2, 0),
      WorldChain.initiating("b-plain-0"),
      a.executing(2, 0, {}, `0x${"00".repeat(32)}`),
      WorldChain.initiating("b-plain-2"),
      a.executing(1, 0, { logIndex: 4 }),
    ]);
    b3.receiptSizes = [2, 1, 1, 1];
    a.localSafe = b.localSafe = 3;
    const s = await open();
    expect(await s.drain()).toBe(3);
    expect(b.invalidated.map((x) => x.head.txIndices)).toEqual([[1, 3]]);
    expect(a.invalidated).toEqual([]);
  });

  it("with a 2 s chain, verifies each block once and commits every second", async () => {
    const { world, open } = await setup({ blockTimes: [2, 1] });
    const { a, b } = world;
    a.advance(3, (n) => [WorldChain.initiating(`a${n}`)]); // timestamps 1002, 1004, 1006
    b.advance(6, (n) => (n === 5 ? [a.executing(2, 0)] : [])); // at 1005 reads a's block 2 (1004)
    const s = await open();
    expect(await s.drain()).toBe(7); // 1000..1006
    expect(s.logs.get("901")?.latest()?.number).toBe(3);
    expect(s.logs.get("902")?.latest()?.number).toBe(6);
    expect((await s.verified.get(GENESIS + 5))?.l2Heads["901"]?.number).toBe(2);
  });

  it("takes the genesis' L1 inclusion (L1 'block 0', zero hash) as canonical: no rewind after verifying it", async () => {
    const { world, open } = await setup();
    const { a, b } = world;
    // what blockAt answers for a genesis block (op-supernode's L1AtSafeHead): L1 number 0 with the zero hash
    for (const c of [a, b]) (c.blocks[0] as { l1: BlockId }).l1 = { hash: ZERO_HASH, number: 0 };
    const s = await open();
    expect(await s.drain()).toBe(1);
    expect(s.verified.last()?.l1Inclusion).toEqual({ hash: ZERO_HASH, number: 0 });
    a.advance(1);
    b.advance(1);
    expect(await s.drain()).toBe(1);
    expect(s.counts.rewinds).toBe(0);
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 1);
  });

  it("waits while a frontier L1 block is stale, rewinds when a verified inclusion is reorged out", async () => {
    const { world, open } = await setup();
    const { a, b, l1 } = world;
    a.advance(8);
    b.advance(8);
    const s = await open();
    expect(await s.drain()).toBe(9);
    // Both chains' next blocks come from an L1 block that is no longer canonical: wait, do not rewind.
    a.push([], 9);
    b.push([], 9);
    a.localSafe = b.localSafe = 9;
    l1.forkFrom = 9;
    l1.branch = "fork";
    expect(await s.activity.round()).toBe(false);
    expect(s.activity.status().last_decision).toBe("wait:frontier-l1-stale");
    expect(s.counts.rewinds).toBe(0);
    // Now L1 reorgs from block 5: timestamps 1005.. lose their inclusion.
    l1.forkFrom = 5;
    expect(await s.activity.round()).toBe(false);
    expect(s.counts.rewinds).toBe(1);
    expect(s.verified.last()?.timestamp).toBe(GENESIS + 4);
    expect(s.logs.get("901")?.latest()?.number).toBe(4);
    expect(a.pruned).toEqual([GENESIS + 5]);
    // Each chain's engine goes back to its block in the last kept result (timestamp 1004: block 4).
    expect(a.engineRewinds).toEqual([4]);
    expect(b.engineRewinds).toEqual([4]);
    // ... with the payload of that block from the write-ahead record.
    expect(a.engineRewindPayloads).toEqual([a.blocks[4]!.hash]);
    expect(b.engineRewindPayloads).toEqual([b.blocks[4]!.hash]);
    // The chains re-derive from the new L1 branch: verification resumes on the new blocks.
    a.reorgFrom(5);
    b.reorgFrom(5);
    a.localSafe = b.localSafe = 9;
    expect(await s.drain()).toBe(5);
    expect(s.verified.last()?.l2Heads["902"]?.hash).toBe(b.blocks[9]!.hash);
  });

  it("replays a transition written before a crash, and resumes from the verified store", async () => {
    const { world, open } = await setup();
    world.a.advance(4, (n) => [WorldChain.initiating(`a${n}`)]);
    world.b.advance(4, (n) => (n === 3 ? [world.a.executing(2, 0)] : []));
    const s1 = await open();
    expect(await s1.drain(3)).toBe(3);
    // A crash after the write-ahead of 1003, before its commit.
    const pendingResult = {
      timestamp: GENESIS + 3,
      l1Inclusion: world.a.blocks[3]!.l1,
      l2Heads: {
        "901": { hash: world.a.blocks[3]!.hash, number: 3 },
        "902": { hash: world.b.blocks[3]!.hash, number: 3 },
      },
      invalidHeads: {},
    };
    await s1.verified.setPending({ kind: "advance", result: pendingResult });
    await s1.logs.get("901")!.seal({ ...world.a.blocks[3]!, logs: undefined } as never, []); // half applied
    await s1.close();
    opened.length = 0;
    const s2 = await open();
    expect(await s2.activity.round()).toBe(true); // the replay
    expect(await s2.verified.pending()).toBeUndefined();
    expect(s2.verified.last()?.timestamp).toBe(GENESIS + 3);
    expect(await s2.drain()).toBe(1);
    expect(s2.verified.last()?.timestamp).toBe(GENESIS + 4);
  });

  it("keeps an invalidation's payloads in the write-ahead record across a reopen (gas fields as bigint)", async () => {
    const { world, open } = await setup();
    world.b.advance(3);
    const invalid = (await world.b.payloadByHash(world.b.blocks[3]!.hash))!;
    const parent = (await world.b.payloadByHash(world.b.blocks[2]!.hash))!;
    const withFees = {
      ...parent,
      executionPayload: { ...parent.executionPayload, baseFeePerGas: 7n, gasUsed: 21_000n },
    };
    const t = {
      kind: "invalidate" as const,
      result: { timestamp: GENESIS + 3, l2Heads: {}, invalidHeads: {} },
      payloads: { "902": { invalid, parent: withFees } },
    };
    const s1 = await open();
    await s1.verified.setPending(t);
    await s1.close();
    opened.length = 0;
    const s2 = await open();
    expect(await s2.verified.pending()).toEqual(t);
  });
});
