/**
 * A crash in the middle of an invalidation (issue 27, upstream op-supernode's WAL payloads): the interop activity
 * writes the invalidation ahead with the full execution payloads of the invalid block and its parent into its real
 * LevelDB store, and the process dies before anything else happens. The files it leaves (copied while every handle
 * is still open and never closed: what kill -9 leaves, as LevelDB refuses a second open of a directory in one
 * process) are opened by a new node and activity over the same execution client: the invalidation completes from
 * the record alone (neither block is read from the execution client) and derives the same replacement block as an
 * uninterrupted run.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InteropActivity } from "../../../src/activities/interop/activity.js";
import type { InteropChain } from "../../../src/activities/interop/ports.js";
import { blockAt, interopAccess } from "../../../src/app/chain-factory.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import { DenyList } from "../../../src/io/db/deny-list.js";
import { VerifiedStore } from "../../../src/io/db/interop/verified-store.js";
import { ChainNode } from "../../../src/node/chain-node.js";
import type { Log } from "../../../src/protocol/block/receipt.js";
import { makeDependencySet } from "../../../src/protocol/interop/dependency-set.js";
import { encodeExecutingMessageLog } from "../../../src/protocol/interop/messages.js";
import {
  FakeL1,
  GENESIS_TIME,
  MemorySafeDb,
  ToyPipeline,
  fakeAttributesBuilder,
  testRollupConfig,
  waitFor,
} from "../../unit/node/fakes.js";
import { toyNodeConfig } from "../../unit/node/toy-node.js";
import { ReceiptEngine } from "./receipt-engine.js";

const CHAIN = 902n;
const cfg = testRollupConfig({ l2_chain_id: CHAIN });
const BAD_TX: Hex = "0x02bad0";
const OTHER_TX: Hex = "0x02600d";
const LAST = 8; // blocks 0..LAST at 2 s: timestamps GENESIS_TIME .. GENESIS_TIME + 17
// Block 3's BAD_TX executes log 7 of the chain's own block 1, which has no logs: invalid.
const logsOf = new Map<Hex, Log[]>([
  [
    BAD_TX,
    [
      encodeExecutingMessageLog({
        id: {
          origin: `0x${"ab".repeat(20)}`,
          blockNumber: 1,
          logIndex: 7,
          timestamp: GENESIS_TIME + 2,
          chainId: CHAIN,
        },
        payloadHash: `0x${"cd".repeat(32)}`,
      }),
    ],
  ],
]);

/** The execution client, which outlives the supernode's process; it records the blocks read from it by hash. */
class RecordingEngine extends ReceiptEngine {
  readonly reads: Hash[] = [];
  override async payloadByHash(hash: Hash) {
    this.reads.push(hash);
    return super.payloadByHash(hash);
  }
  override async l2BlockRefByHash(hash: Hash) {
    this.reads.push(hash);
    return super.l2BlockRefByHash(hash);
  }
}

const closers: (() => Promise<unknown>)[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "wal-invalidate-"));
  dirs.push(d);
  return d;
};

interface Process {
  readonly node: ChainNode;
  readonly verified: VerifiedStore;
  readonly activity: InteropActivity;
  readonly run: AbortController;
  /** The write-ahead record found when the process started. */
  readonly pendingAtStart: Awaited<ReturnType<VerifiedStore["pending"]>>;
}

/**
 * One supernode process over `dir` (deny list and interop store in LevelDB) and the surviving EL, L1 and SafeDB.
 * `crashAtInvalidate`: the process dies when the activity starts applying the invalidation (after its write-ahead).
 */
async function start(
  dir: string,
  world: { engine: RecordingEngine; l1: FakeL1; safeDb: MemorySafeDb },
  crashAtInvalidate?: () => void,
): Promise<Process> {
  const { engine, l1, safeDb } = world;
  const list = await DenyList.open(join(dir, "denylist"));
  const builder = fakeAttributesBuilder(cfg, l1);
  const pipeline = new ToyPipeline(cfg, l1, builder);
  pipeline.batchTxs.set(3, [OTHER_TX, BAD_TX]);
  const node = await ChainNode.create(toyNodeConfig(cfg), {
    l1,
    engine,
    safeDb,
    clock: systemClock,
    logger: silentLogger,
    createPipeline: () => pipeline,
    attributesBuilder: builder,
    refFromPayload: engine.refOf,
    denyList: list,
  });
  await node.start();
  const verified = await VerifiedStore.open(join(dir, "interop"));
  const logs = new Map([["902", await verified.logsStore("902")]]);
  const access = interopAccess(node, engine);
  const chain: InteropChain = {
    chainId: CHAIN,
    blockTime: cfg.block_time,
    genesisTime: GENESIS_TIME,
    numberAt: (ts) => Math.floor((ts - GENESIS_TIME) / cfg.block_time),
    optimisticAt: (ts) => blockAt(node, safeDb, { rollup: cfg, chainId: CHAIN }, ts),
    firstSafeTimestamp: async () => (safeDb.entries.size > 0 ? GENESIS_TIME : undefined),
    ...access,
    invalidate: (head, ts, payloads) => {
      if (crashAtInvalidate === undefined) return access.invalidate(head, ts, payloads);
      crashAtInvalidate();
      return new Promise(() => {}); // the process is gone: nothing after the write-ahead happens
    },
  };
  const activity = new InteropActivity(
    { activationTimestamp: GENESIS_TIME, dependencySet: makeDependencySet([CHAIN]), idleMs: 10, errorMs: 10 },
    {
      chains: [chain],
      logs,
      verified,
      l1: { canonicalHash: async (n) => l1.blocks[n]?.hash },
      clock: systemClock,
      logger: silentLogger,
    },
  );
  const pendingAtStart = await verified.pending();
  const run = new AbortController();
  void activity.run(run.signal);
  closers.push(async () => {
    run.abort();
    await node.stop();
    await list.close();
    await verified.close();
  });
  return { node, verified, activity, run, pendingAtStart };
}

const verifiedAll = (p: Process) =>
  waitFor(() => (p.verified.last()?.timestamp ?? 0) >= GENESIS_TIME + 2 * LAST, 30_000);
const world = () => ({
  engine: new RecordingEngine(cfg, logsOf),
  l1: new FakeL1(LAST + 2),
  safeDb: new MemorySafeDb(),
});

describe("a crash after the interop activity wrote an invalidation ahead", () => {
  it("resumes from the record alone and derives the same replacement block", { timeout: 90_000 }, async () => {
    // The uninterrupted run: block 3 is invalidated and replaced.
    const ref = world();
    const uninterrupted = await start(tmp(), ref);
    await verifiedAll(uninterrupted);
    const replacement = ref.engine.canonical[3]!;

    const w = world();
    const dir = tmp();
    let crashed!: () => void;
    const atInvalidate = new Promise<void>((r) => (crashed = r));
    const first = await start(dir, w, crashed);
    await atInvalidate;
    // The files the killed process leaves: copied while every handle is open (none is ever closed).
    const after = tmp();
    cpSync(dir, after, { recursive: true });
    first.run.abort();
    await first.node.stop(); // the EL and L1 outlive the process; this node only stops touching them
    const bad = (await w.engine.payloadByNumber(3))!.executionPayload;
    expect(bad.transactions).toContain(BAD_TX);

    const reads = w.engine.reads.length;
    const second = await start(after, w);
    const pending = second.pendingAtStart;
    expect(pending?.kind).toBe("invalidate");
    if (pending?.kind !== "invalidate") return;
    expect(pending.payloads?.["902"]?.invalid.executionPayload.blockHash).toBe(bad.blockHash);
    expect(pending.payloads?.["902"]?.parent.executionPayload.blockHash).toBe(bad.parentHash);
    await verifiedAll(second);
    expect((await second.verified.pending())?.kind).not.toBe("invalidate");
    expect(w.engine.canonical[3]).not.toBe(bad.blockHash);
    expect(w.engine.canonical[3]).toBe(replacement);
    expect(w.engine.canonical.slice(0, LAST + 1)).toEqual(ref.engine.canonical.slice(0, LAST + 1));
    expect((await second.verified.get(GENESIS_TIME + 6))?.l2Heads["902"]?.hash).toBe(replacement);
    // The invalidation read neither the invalid block nor its parent from the execution client.
    const readAfter = w.engine.reads.slice(reads);
    expect(readAfter).not.toContain(bad.blockHash);
    expect(readAfter).not.toContain(bad.parentHash);
  });
});
