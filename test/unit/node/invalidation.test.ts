/**
 * Interop invalidation in one virtual node (op-supernode §2.6, §2.9): a denied block is replaced by a deposits-only
 * block derived from the same attributes and the chain goes on from it; the denial is idempotent on replay; a denied
 * payload from outside is dropped; the sequencer never includes the offending transaction again but includes the
 * block's other transactions, and waits for the replacement also across a restart; an L1-reorg rewind takes the
 * engine back and derivation on. Real LevelDB deny lists in temp dirs, the node over the port fakes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { type Clock, systemClock } from "../../../src/core/time/clock.js";
import type { L1BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import { DenyList } from "../../../src/io/db/deny-list.js";
import { ChainNode } from "../../../src/node/chain-node.js";
import { txHash } from "../../../src/node/denied-txs.js";
import type { DerivationPipeline } from "../../../src/node/derivation/types.js";
import type { ForkchoiceState, PayloadAttributes } from "../../../src/node/ports.js";
import {
  CountingClock,
  FakeEngine,
  FakeL1,
  GENESIS_TIME,
  ManualClock,
  MemorySafeDb,
  ToyPipeline,
  fakeAttributesBuilder,
  loopTurns,
  testRollupConfig,
  waitFor,
} from "./fakes.js";
import { toyNodeConfig } from "./toy-node.js";
import { hexToBytes } from "../../../src/core/codec/hex.js";

const cfg = testRollupConfig();
const BAD_TX: Hex = "0x02badbad";
const OTHER_TX: Hex = "0x02600d";
const LATE_TX: Hex = "0x021a7e";
const roots = { stateRoot: `0x${"11".repeat(32)}` as Hash, messagePasserStorageRoot: `0x${"22".repeat(32)}` as Hash };

const nodes: ChainNode[] = [];
const lists: DenyList[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.stop();
  for (const l of lists.splice(0)) await l.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function denyList(dir?: string): Promise<{ list: DenyList; dir: string }> {
  let d = dir;
  if (d === undefined) {
    const tmp = mkdtempSync(join(tmpdir(), "invalidation-"));
    dirs.push(tmp);
    d = join(tmp, "denylist");
  }
  const list = await DenyList.open(d);
  lists.push(list);
  return { list, dir: d };
}

/** A FakeEngine that records forkchoice heads. */
class RecordingEngine extends FakeEngine {
  readonly fcuHeads: Hash[] = [];
  override async forkchoiceUpdated(state: ForkchoiceState, attrs?: PayloadAttributes) {
    this.fcuHeads.push(state.headBlockHash);
    return super.forkchoiceUpdated(state, attrs);
  }
}

/**
 * A FakeEngine with a transaction pool, as a real EL: unless `noTxPool`, a built block also takes every pool
 * transaction not already in the parent's chain (so a transaction of a block rewound away is offered again).
 */
class PoolEngine extends FakeEngine {
  pool: Hex[] = [];
  override async forkchoiceUpdated(state: ForkchoiceState, attrs?: PayloadAttributes) {
    if (attrs === undefined || attrs.fields.noTxPool) return super.forkchoiceUpdated(state, attrs);
    const included = new Set<Hex>();
    for (let h: Hash | undefined = state.headBlockHash; h !== undefined; ) {
      const env = this.byHash.get(h);
      if (env === undefined || env.executionPayload.blockNumber === 0) break;
      for (const t of env.executionPayload.transactions) included.add(t);
      h = env.executionPayload.parentHash;
    }
    const fromPool = this.pool.filter((t) => !included.has(t));
    return super.forkchoiceUpdated(state, {
      ...attrs,
      txBytes: [...attrs.txBytes, ...fromPool.map((t) => hexToBytes(t))],
    });
  }
}

interface NodeOptions {
  readonly l1: FakeL1;
  readonly engine: FakeEngine;
  readonly list: DenyList;
  readonly safeDb?: MemorySafeDb;
  /** Batch transactions of the toy pipeline per L2 block; `null` = a pipeline that derives nothing. */
  readonly batchTxs?: Map<number, Hex[]> | null;
  /** The toy pipeline derives no block above `upTo` (read at every step). */
  readonly gate?: { upTo: number };
  readonly sequencer?: boolean;
  readonly clock?: Clock;
}

async function startNode(o: NodeOptions): Promise<ChainNode> {
  const builder = fakeAttributesBuilder(cfg, o.l1);
  let pipeline: DerivationPipeline;
  if (o.batchTxs === null) {
    pipeline = {
      origin: o.l1.blocks[0] as L1BlockRef,
      step: async () => ({ kind: "eof" }),
      reset: async () => {},
      invalidated: () => undefined,
    };
  } else {
    const toy = new ToyPipeline(cfg, o.l1, builder);
    toy.batchTxs = o.batchTxs ?? new Map();
    const gate = o.gate;
    pipeline =
      gate === undefined
        ? toy
        : {
            get origin() {
              return toy.origin;
            },
            step: async (safe) => (safe.number >= gate.upTo ? { kind: "eof" } : toy.step(safe)),
            reset: (safe) => toy.reset(safe),
            invalidated: (last) => toy.invalidated(last),
          };
  }
  const node = await ChainNode.create(
    toyNodeConfig(cfg, { sequencer: { enabled: o.sequencer === true, stopped: false } }),
    {
      l1: o.l1,
      engine: o.engine,
      safeDb: o.safeDb ?? new MemorySafeDb(),
      clock: o.clock ?? systemClock,
      logger: silentLogger,
      createPipeline: () => pipeline,
      attributesBuilder: builder,
      refFromPayload: o.engine.refOf,
      denyList: o.list,
    },
  );
  nodes.push(node);
  await node.start();
  return node;
}

describe("interop invalidation in a virtual node", () => {
  it("rewinds to the parent, derives a deposits-only replacement and goes on; a replay only finds the record", async () => {
    const l1 = new FakeL1(12);
    const engine = new RecordingEngine(cfg);
    const safeDb = new MemorySafeDb();
    const { list } = await denyList();
    const node = await startNode({ l1, engine, list, safeDb, batchTxs: new Map([[5, [OTHER_TX, BAD_TX]]]) });
    await waitFor(() => node.syncStatus().local_safe_l2.number === 12);
    const bad = (await engine.payloadByNumber(5))!.executionPayload;
    expect(bad.transactions).toContain(BAD_TX);

    // The activity names the offending transaction by its position: only it is denied for good.
    const out = await node.invalidateBlock({
      height: 5,
      payloadHash: bad.blockHash,
      decisionTimestamp: 1010,
      ...roots,
      txIndices: [bad.transactions.indexOf(BAD_TX)],
    });
    expect(out).toEqual({ denied: true, rewound: true });
    // Forkchoice went to the parent; the SafeDB was reset to it.
    expect(engine.fcuHeads).toContain(bad.parentHash);
    expect(safeDb.resets.at(-1)?.newSafe.number).toBe(4);
    expect(list.atHeight(5)).toEqual([
      { height: 5, payloadHash: bad.blockHash, decisionTimestamp: 1010, ...roots, txHashes: [txHash(BAD_TX)] },
    ]);

    // Derivation re-derives block 5 from the same batch: the block it would build is denied, so the deposits-only
    // block of the same attributes replaces it, and the later blocks build on the replacement.
    await waitFor(() => engine.canonical[5] !== undefined && engine.canonical[5] !== bad.blockHash);
    await waitFor(() => node.syncStatus().local_safe_l2.number === 12);
    const replacement = (await engine.payloadByNumber(5))!.executionPayload;
    expect(replacement.blockHash).not.toBe(bad.blockHash);
    expect(replacement.parentHash).toBe(bad.parentHash);
    expect(replacement.timestamp).toBe(bad.timestamp);
    expect(replacement.transactions).toEqual(bad.transactions.filter((t) => t.startsWith("0x7e")));
    expect((await engine.payloadByNumber(6))!.executionPayload.parentHash).toBe(replacement.blockHash);
    expect(node.syncStatus().local_safe_l2.hash).toBe(engine.canonical[12]);

    // A replay of the same invalidation (the WAL after a crash): the block is already replaced, nothing rewinds,
    // and the chain goes on.
    const fcus = engine.fcuHeads.length;
    expect(
      await node.invalidateBlock({ height: 5, payloadHash: bad.blockHash, decisionTimestamp: 1010, ...roots }),
    ).toEqual({ denied: false, rewound: false });
    expect(engine.fcuHeads.slice(fcus)).not.toContain(bad.parentHash);
    l1.extend(2);
    await waitFor(() => node.syncStatus().local_safe_l2.number === 14);
    expect((await engine.payloadByNumber(5))!.executionPayload.blockHash).toBe(replacement.blockHash);

    // A verifier that reaches the same decision derives the same replacement.
    const { list: list2 } = await denyList();
    await list2.add({ height: 5, payloadHash: bad.blockHash, decisionTimestamp: 1010, ...roots, txHashes: [] });
    const engine2 = new FakeEngine(cfg);
    const verifier = await startNode({
      l1,
      engine: engine2,
      list: list2,
      batchTxs: new Map([[5, [OTHER_TX, BAD_TX]]]),
    });
    await waitFor(() => verifier.syncStatus().local_safe_l2.number === 14);
    expect(engine2.canonical).toEqual(engine.canonical);
  });

  it("drops a denied payload arriving as unsafe (gossip, admin_postUnsafePayload)", async () => {
    const l1 = new FakeL1(6);
    const source = new FakeEngine(cfg);
    const { list: sourceList } = await denyList();
    const producer = await startNode({ l1, engine: source, list: sourceList, batchTxs: new Map([[7, [BAD_TX]]]) });
    l1.extend(2);
    await waitFor(() => producer.syncStatus().local_safe_l2.number === 8);
    await producer.stop();
    const bad = (await source.payloadByNumber(7))!;
    const child = (await source.payloadByNumber(8))!;

    const engine = new FakeEngine(cfg);
    const { list } = await denyList();
    await list.add({
      height: 7,
      payloadHash: bad.executionPayload.blockHash,
      decisionTimestamp: 9,
      ...roots,
      txHashes: [],
    });
    const l1v = new FakeL1(6);
    const clock = new CountingClock();
    const node = await startNode({ l1: l1v, engine, list, clock });
    await waitFor(() => node.syncStatus().local_safe_l2.number === 6);
    expect(node.addUnsafePayload(bad)).toBe(false);
    expect(node.unsafeQueue.lowest()).toBeUndefined();
    // A payload that is not denied is still queued (its denied parent never reaches the EL, so it waits there).
    expect(node.addUnsafePayload(child)).toBe(true);
    await loopTurns(clock, 3);
    expect(engine.byHash.has(bad.executionPayload.blockHash)).toBe(false);
    expect(node.syncStatus().unsafe_l2.number).toBe(6);
  });

  it("the sequencer leaves out only the offending transaction and waits for the replacement, also across a restart", async () => {
    const l1 = new FakeL1(20);
    const engine = new PoolEngine(cfg);
    engine.pool = [BAD_TX, OTHER_TX];
    const { list, dir } = await denyList();
    const clock = new ManualClock(GENESIS_TIME * 1000);
    const gate = { upTo: 0 }; // derivation produces nothing until the test lets it
    const seq = await startNode({ l1, engine, list, gate, sequencer: true, clock });
    clock.now = (GENESIS_TIME + 6) * 1000;
    await waitFor(() => seq.syncStatus().unsafe_l2.number === 3);
    const bad = (await engine.payloadByNumber(1))!.executionPayload;
    expect(bad.transactions).toEqual(expect.arrayContaining([BAD_TX, OTHER_TX]));

    expect(
      await seq.invalidateBlock({
        height: 1,
        payloadHash: bad.blockHash,
        decisionTimestamp: 1001,
        ...roots,
        txIndices: [bad.transactions.indexOf(BAD_TX)],
      }),
    ).toEqual({ denied: true, rewound: true });
    expect(list.atHeight(1).map((r) => r.txHashes)).toEqual([[txHash(BAD_TX)]]);
    expect(list.replacementHold()).toBe(1);
    // Rewound to genesis; the sequencer waits for derivation to replace block 1.
    await loopTurns(clock, 5);
    expect(seq.syncStatus().unsafe_l2.number).toBe(0);
    await seq.stop();
    nodes.splice(0);
    await list.close();
    lists.splice(0);

    // A restart inside that window: the wait was persisted with the deny list, so no block 1 of its own is built
    // (derivation would only reorg it out).
    const { list: reopened } = await denyList(dir);
    expect(reopened.replacementHold()).toBe(1);
    const again = await startNode({ l1, engine, list: reopened, gate, sequencer: true, clock });
    await loopTurns(clock, 5);
    expect(again.syncStatus().unsafe_l2.number).toBe(0);

    // Derivation produces block 1; the wait ends. The EL offers the denied block's transactions again (its pool
    // took them back on the rewind): the sequencer leaves out the offending one only, and takes a new one too.
    engine.pool.push(LATE_TX);
    gate.upTo = 1;
    await waitFor(() => again.syncStatus().unsafe_l2.number === 3);
    await waitFor(() => reopened.replacementHold() === undefined);
    expect(engine.canonical[1]).not.toBe(bad.blockHash);
    const txs = [2, 3].flatMap((n) => engine.byHash.get(engine.canonical[n]!)!.executionPayload.transactions);
    expect(txs).not.toContain(BAD_TX);
    expect(txs).toContain(OTHER_TX);
    expect(txs).toContain(LATE_TX);
  });

  it("an L1-reorg rewind takes the engine back to the verified block, and derivation goes on from there", async () => {
    const l1 = new FakeL1(12);
    const engine = new RecordingEngine(cfg);
    const safeDb = new MemorySafeDb();
    const { list } = await denyList();
    const node = await startNode({ l1, engine, list, safeDb });
    await waitFor(() => node.syncStatus().local_safe_l2.number === 12);
    const b7 = (await engine.l2BlockRefByNumber(7))!;
    const fcus = engine.fcuHeads.length;
    expect(await node.rewindEngineTo({ hash: b7.hash, number: 7 })).toBe(true);
    expect(engine.fcuHeads.slice(fcus)[0]).toBe(b7.hash);
    expect(safeDb.resets.at(-1)?.newSafe.number).toBe(7);
    await waitFor(() => node.syncStatus().local_safe_l2.number === 12);
    // Nothing above the target: no rewind.
    await node.stop();
    nodes.splice(0);
    const again = await startNode({ l1, engine, list });
    await waitFor(() => again.syncStatus().local_safe_l2.number === 12);
    expect(await again.rewindEngineTo({ hash: engine.canonical[12]!, number: 12 })).toBe(false);
  });
});
