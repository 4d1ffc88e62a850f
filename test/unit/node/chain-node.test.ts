import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TemporaryError } from "../../../src/core/errors/supernode-error.js";
import { silentLogger } from "../../../src/core/logger.js";
import type { BlockId } from "../../../src/core/types/block-ref.js";
import { systemClock, type Clock } from "../../../src/core/time/clock.js";
import { ChainNode, type ChainNodeConfig } from "../../../src/node/chain-node.js";
import { fileSequencerStateStore } from "../../../src/io/sequencer-state-file.js";
import { memorySequencerStateStore } from "../../support/memory-sequencer-state.js";
import type { SequencerStateStore, UnsafeBlockSink } from "../../../src/node/ports.js";
import {
  FakeEngine,
  FakeL1,
  GENESIS_TIME,
  ManualClock,
  MemorySafeDb,
  ToyPipeline,
  fakeAttributesBuilder,
  recordingLogger,
  testRollupConfig,
  loopTurns,
  waitFor,
} from "./fakes.js";

const cfg = testRollupConfig();

function nodeConfig(over: Partial<ChainNodeConfig["sequencer"]> = {}): ChainNodeConfig {
  return {
    rollup: cfg,
    engineKind: "variant_b",
    syncMode: "consensus-layer",
    sequencer: { enabled: false, stopped: false, l1Confs: 0, maxSafeLag: 0, recoverMode: false, ...over },
    verifierL1Confs: 0,
    idlePollMs: 5,
  };
}

interface Rig {
  node: ChainNode;
  l1: FakeL1;
  engine: FakeEngine;
  safeDb: MemorySafeDb;
  pipeline: ToyPipeline;
}

const running: ChainNode[] = [];
afterEach(async () => {
  for (const n of running.splice(0)) await n.stop();
});

async function rig(opts: {
  l1?: FakeL1;
  engine?: FakeEngine;
  safeDb?: MemorySafeDb;
  config?: ChainNodeConfig;
  clock?: Clock;
  store?: SequencerStateStore;
  start?: boolean;
  sink?: UnsafeBlockSink;
}): Promise<Rig> {
  const l1 = opts.l1 ?? new FakeL1(10);
  const engine = opts.engine ?? new FakeEngine(cfg);
  const safeDb = opts.safeDb ?? new MemorySafeDb();
  const builder = fakeAttributesBuilder(cfg, l1);
  const pipeline = new ToyPipeline(cfg, l1, builder);
  const node = await ChainNode.create(opts.config ?? nodeConfig(), {
    l1,
    engine,
    safeDb,
    clock: opts.clock ?? systemClock,
    logger: silentLogger,
    createPipeline: () => pipeline,
    attributesBuilder: builder,
    refFromPayload: engine.refOf,
    sequencerStore: opts.store,
    sink: opts.sink,
  });
  if (opts.start !== false) {
    await node.start();
    running.push(node);
  }
  return { node, l1, engine, safeDb, pipeline };
}

describe("ChainNode derivation", () => {
  it("derives every L2 block from L1 by building, records the SafeDB and serves the sync status", async () => {
    const { node, engine, safeDb } = await rig({});
    await waitFor(() => node.syncStatus().safe_l2.number === 10);
    const s = node.syncStatus();
    expect(s.unsafe_l2.number).toBe(10);
    expect(s.local_safe_l2).toEqual(s.safe_l2);
    expect(s.pending_safe_l2).toEqual(s.safe_l2);
    expect(s.current_l1.number).toBe(10);
    expect(s.head_l1.number).toBe(10);
    expect(s.queued_unsafe_l2.number).toBe(0);
    expect(s.safe_l2.l1origin.number).toBe(10);
    expect(s.safe_l2.timestamp).toBe(GENESIS_TIME + 20);
    expect(engine.calls.newPayload).toBe(10);
    // The EL's labels follow after the batched forkchoice update.
    await waitFor(() => engine.safe === s.safe_l2.hash);
    expect(await safeDb.safeHeadAtL1Block(7)).toEqual({
      l1Block: { hash: (await node.safeHeadAtL1Block(7)).l1Block.hash, number: 7 },
      safeHead: { hash: (await engine.l2BlockRefByNumber(7))!.hash, number: 7 },
    });
  });

  it("a failed SafeDB write (a full disk) is written again, not dropped: no L1 block's record is missing", async () => {
    class FullDisk extends MemorySafeDb {
      full = true;
      failures = 0;
      override async safeHeadUpdated(safeHead: BlockId, l1Head: BlockId) {
        if (this.full) {
          this.failures++;
          throw new TemporaryError("SAFEDB_WRITE", "No space left on device");
        }
        await super.safeHeadUpdated(safeHead, l1Head);
      }
    }
    const safeDb = new FullDisk();
    const { node } = await rig({ safeDb });
    await waitFor(() => safeDb.failures >= 3);
    const heldAt = node.syncStatus().safe_l2.number;
    expect(heldAt).toBeLessThan(10); // nothing is derived past the record that could not be written
    safeDb.full = false;
    await waitFor(() => node.syncStatus().safe_l2.number === 10 && safeDb.entries.size === 11);
    // L1 block 0 (the genesis record of the first reset) and every derived one
    expect([...safeDb.entries.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("retries the same derived attributes after a temporary engine failure, without a reset", async () => {
    class FlakyGetPayload extends FakeEngine {
      failAt = new Set([3, 7]);
      override async getPayload(id: Parameters<FakeEngine["getPayload"]>[0]) {
        const n = (this.calls.getPayload ?? 0) + 1;
        if (this.failAt.delete(n)) {
          this.calls.getPayload = n;
          throw new Error("connection reset");
        }
        return super.getPayload(id);
      }
    }
    const engine = new FlakyGetPayload(cfg);
    const { node } = await rig({ engine });
    await waitFor(() => node.syncStatus().safe_l2.number === 10, 10_000);
    expect(engine.failAt.size).toBe(0);
    // Two failed seals, each retried with the same attributes: 10 blocks, 12 build starts, one startup reset only.
    expect(engine.calls.newPayload).toBe(10);
    expect(engine.calls.getPayload).toBe(12);
    expect(node.syncStatus().safe_l2.hash).toBe(engine.canonical[10]);
  });

  it("consolidates blocks the execution client already has instead of building them", async () => {
    const l1 = new FakeL1(8);
    const first = await rig({ l1 });
    await waitFor(() => first.node.syncStatus().safe_l2.number === 8);
    await first.node.stop();
    const engine = first.engine;
    // The EL keeps the blocks as unsafe only; a fresh node with an empty SafeDB re-derives them.
    engine.safe = engine.finalized = cfg.genesis.l2.hash;
    const built = engine.calls.newPayload;
    const second = await rig({ l1, engine });
    await waitFor(() => second.node.syncStatus().safe_l2.number === 8);
    expect(engine.calls.newPayload).toBe(built);
    expect(second.node.syncStatus().safe_l2.hash).toBe(engine.canonical[8]);
  });

  it("builds the derived block when the unsafe block differs (L2 reorg of the unsafe chain)", async () => {
    const l1 = new FakeL1(6);
    const first = await rig({ l1 });
    await waitFor(() => first.node.syncStatus().safe_l2.number === 6);
    await first.node.stop();
    const engine = first.engine;
    const old4 = engine.canonical[4];
    engine.safe = engine.finalized = cfg.genesis.l2.hash;
    const second = await rig({ l1, engine });
    second.pipeline.batchTxs.set(4, ["0x02aa"]);
    await waitFor(() => second.node.syncStatus().safe_l2.number === 6);
    expect(engine.canonical[4]).not.toBe(old4);
    expect(engine.byHash.get(engine.canonical[4]!)!.executionPayload.transactions).toContain("0x02aa");
  });

  it("replaces an invalid derived block with a deposits-only block", async () => {
    const { node, engine, pipeline } = await rig({ start: false });
    pipeline.batchTxs.set(3, ["0x02bad0"]);
    engine.poison.add("0x02bad0");
    await node.start();
    running.push(node);
    await waitFor(() => node.syncStatus().safe_l2.number === 10);
    const b3 = engine.byHash.get(engine.canonical[3]!)!.executionPayload;
    expect(b3.transactions).toHaveLength(1);
    expect(b3.transactions[0]!.startsWith("0x7e")).toBe(true);
  });

  it("finalizes the highest L2 block derived from finalized L1", async () => {
    const { node, l1, engine } = await rig({});
    await waitFor(() => node.syncStatus().safe_l2.number === 10);
    l1.finalizedNumber = 6;
    await waitFor(() => node.syncStatus().finalized_l2.number === 6);
    expect(node.syncStatus().finalized_l1.number).toBe(6);
    await waitFor(() => engine.finalized === engine.canonical[6]);
  });

  it("an L1 reorg rolls the safe head back, truncates the SafeDB and re-derives on the new branch", async () => {
    const { node, l1, engine, safeDb } = await rig({});
    await waitFor(() => node.syncStatus().safe_l2.number === 10);
    const old7 = engine.canonical[7];
    l1.reorg(6, 6, "fork"); // blocks 6..11 on a new branch
    await waitFor(() => node.syncStatus().safe_l2.number === 11 && node.syncStatus().current_l1.number === 11);
    expect(engine.canonical[7]).not.toBe(old7);
    expect(node.syncStatus().safe_l2.l1origin.hash).toBe(l1.head.hash);
    const entry = await safeDb.safeHeadAtL1Block(8);
    expect(entry?.l1Block.hash).toBe(l1.blocks[8]!.hash);
  });

  it("admin_resetDerivationPipeline resets and re-derives; a restart resumes without re-deriving from genesis", async () => {
    const { node, l1, engine, safeDb, pipeline } = await rig({});
    await waitFor(() => node.syncStatus().safe_l2.number === 10);
    const resets = pipeline.resets;
    await node.resetDerivationPipeline();
    expect(pipeline.resets).toBe(resets + 1);
    await waitFor(() => node.syncStatus().safe_l2.number === 10);
    await node.stop();
    running.splice(running.indexOf(node), 1);
    const before = engine.calls.newPayload ?? 0;
    l1.extend(2);
    const again = await rig({ l1, engine, safeDb });
    await waitFor(() => again.node.syncStatus().safe_l2.number === 12);
    // Only the two new blocks were built: the restart resumed from the SafeDB and the EL.
    expect(engine.calls.newPayload).toBe(before + 2);
    expect(again.pipeline.origin.number).toBe(12);
  });
});

describe("ChainNode reset logging", () => {
  it("logs `reset: found L2 heads` after the reset was applied, with numbers, hashes, reason and method", async () => {
    const l1 = new FakeL1(6);
    const engine = new FakeEngine(cfg);
    const builder = fakeAttributesBuilder(cfg, l1);
    const pipeline = new ToyPipeline(cfg, l1, builder);
    const seen: { obj: Record<string, unknown>; elSafe: string; elFinalized: string; resets: number }[] = [];
    const logger = recordingLogger();
    const info = logger.info;
    logger.info = ((a: object | string, b?: string) => {
      if (b === "reset: found L2 heads") {
        seen.push({
          obj: a as Record<string, unknown>,
          elSafe: engine.safe,
          elFinalized: engine.finalized,
          resets: pipeline.resets,
        });
      }
      (info as (a: object | string, b?: string) => void)(a, b);
    }) as typeof logger.info;
    const node = await ChainNode.create(nodeConfig(), {
      l1,
      engine,
      safeDb: new MemorySafeDb(),
      clock: systemClock,
      logger,
      createPipeline: () => pipeline,
      attributesBuilder: builder,
      refFromPayload: engine.refOf,
    });
    await node.start();
    running.push(node);
    await waitFor(() => node.syncStatus().safe_l2.number === 6);
    await waitFor(() => engine.safe === node.syncStatus().safe_l2.hash);
    await node.resetDerivationPipeline();
    const last = seen.at(-1)!;
    expect(seen).toHaveLength(2);
    expect(seen[0]!.obj).toMatchObject({
      reason: "startup",
      how: "finalized",
      safe: { number: 0, hash: cfg.genesis.l2.hash },
    });
    // At log time the forkchoice update and the pipeline reset have happened.
    expect(last.obj).toMatchObject({
      reason: "admin",
      how: "safedb",
      unsafe: { number: 6, hash: engine.canonical[6] },
      safe: { number: 6, hash: engine.canonical[6] },
      finalized: { number: 0, hash: cfg.genesis.l2.hash },
    });
    expect(last.elSafe).toBe(engine.canonical[6]);
    expect(last.resets).toBe(2);
  });
});

describe("ChainNode sequencer", () => {
  it("sequences a block per block time on the clock and publishes it", async () => {
    const clock = new ManualClock(GENESIS_TIME * 1000);
    const { node, engine } = await rig({
      l1: new FakeL1(3),
      clock,
      config: nodeConfig({ enabled: true }),
    });
    expect(node.sequencerActive()).toBe(true);
    await waitFor(() => node.syncStatus().safe_l2.number === 3);
    clock.now = (GENESIS_TIME + 20) * 1000;
    await waitFor(() => node.syncStatus().unsafe_l2.number === 10);
    await loopTurns(clock); // a few more turns of the loop: nothing more is due
    expect(node.syncStatus().unsafe_l2.number).toBe(10);
    expect(node.syncStatus().unsafe_l2.timestamp).toBe(GENESIS_TIME + 20);
    // Origins never run ahead of the block timestamps.
    const u = node.syncStatus().unsafe_l2;
    expect(u.l1origin.number).toBe(3);
    expect(u.sequenceNumber).toBe(7);
    expect(engine.canonical).toHaveLength(11);
  });

  it("hands every sequenced block to the sink and never waits for its publishing", async () => {
    const clock = new ManualClock(GENESIS_TIME * 1000);
    const handed: number[] = [];
    // A publisher stuck for ever (a remote signer that never answers): sequencing must go on regardless.
    const sink = {
      publish: (env: { executionPayload: { blockNumber: number } }) => {
        handed.push(env.executionPayload.blockNumber);
        return new Promise<void>(() => {});
      },
    } as unknown as UnsafeBlockSink;
    const { node } = await rig({ l1: new FakeL1(3), clock, config: nodeConfig({ enabled: true }), sink });
    await waitFor(() => node.syncStatus().safe_l2.number === 3);
    clock.now = (GENESIS_TIME + 20) * 1000;
    await waitFor(() => node.syncStatus().unsafe_l2.number === 10);
    expect(handed).toEqual([4, 5, 6, 7, 8, 9, 10]);
  });

  it("admin start/stop follow the state machine and persist across restarts", async () => {
    const dir = await mkdtemp(join(tmpdir(), "seq-"));
    try {
      const path = join(dir, "sequencer.json");
      const clock = new ManualClock(GENESIS_TIME * 1000);
      const first = await rig({
        l1: new FakeL1(2),
        clock,
        config: nodeConfig({ enabled: true, stopped: true }),
        store: fileSequencerStateStore(path),
      });
      await waitFor(() => first.node.syncStatus().safe_l2.number === 2);
      expect(first.node.sequencerActive()).toBe(false);
      await expect(first.node.stopSequencer()).rejects.toThrow("sequencer not running");
      await expect(first.node.startSequencer(`0x${"11".repeat(32)}`)).rejects.toThrow("block hash does not match");
      await first.node.startSequencer(first.node.syncStatus().unsafe_l2.hash);
      expect(first.node.sequencerActive()).toBe(true);
      await expect(first.node.startSequencer()).rejects.toThrow("sequencer already running");
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ sequencerStarted: true });
      await first.node.stop();
      const second = await rig({
        l1: first.l1,
        engine: first.engine,
        clock,
        config: nodeConfig({ enabled: true, stopped: true }),
        store: fileSequencerStateStore(path),
      });
      expect(second.node.sequencerActive()).toBe(true); // persisted state overrides --sequencer.stopped
      const head = await second.node.stopSequencer();
      expect(head).toMatch(/^0x[0-9a-f]{64}$/);
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ sequencerStarted: false });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("admin_setSdmPostExecOptIn is written durably beside the start/stop state and loaded at start", async () => {
    const dir = await mkdtemp(join(tmpdir(), "seq-sdm-"));
    try {
      const path = join(dir, "sequencer.json");
      const clock = new ManualClock(GENESIS_TIME * 1000);
      const config = nodeConfig({ enabled: true, stopped: true });
      const first = await rig({ l1: new FakeL1(2), clock, config, store: fileSequencerStateStore(path) });
      await waitFor(() => first.node.syncStatus().safe_l2.number === 2);
      expect((await first.node.sdmStatus()).postExecOptIn).toBe(false);
      await first.node.startSequencer(first.node.syncStatus().unsafe_l2.hash);
      await first.node.setSdmPostExecOptIn(true);
      // Written before the call returned, merged with the sequencer state (neither erases the other).
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ sequencerStarted: true, sdmPostExecOptIn: true });
      await first.node.stop();
      const second = await rig({
        l1: first.l1,
        engine: first.engine,
        clock,
        config,
        store: fileSequencerStateStore(path),
      });
      expect((await second.node.sdmStatus()).postExecOptIn).toBe(true);
      await second.node.stopSequencer();
      await second.node.setSdmPostExecOptIn(false);
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ sequencerStarted: false, sdmPostExecOptIn: false });
      await second.node.stop();
      const third = await rig({
        l1: first.l1,
        engine: first.engine,
        clock,
        config,
        store: fileSequencerStateStore(path),
      });
      expect((await third.node.sdmStatus()).postExecOptIn).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a node without the sequencer enabled rejects sequencer admin calls", async () => {
    const { node } = await rig({ store: memorySequencerStateStore() });
    await expect(node.startSequencer()).rejects.toThrow("sequencer is not enabled");
    await expect(node.stopSequencer()).rejects.toThrow("sequencer is not enabled");
    expect(node.sequencerActive()).toBe(false);
  });

  it("max-safe-lag stalls the sequencer until the safe head catches up", async () => {
    const clock = new ManualClock((GENESIS_TIME + 40) * 1000);
    const { node } = await rig({ l1: new FakeL1(0), clock, config: nodeConfig({ enabled: true, maxSafeLag: 4 }) });
    await waitFor(() => node.syncStatus().unsafe_l2.number === 4);
    await loopTurns(clock); // a few more turns of the loop: still stalled
    expect(node.syncStatus().unsafe_l2.number).toBe(4);
  });
});

describe("ChainNode metrics", () => {
  it("publishes heads, derivation progress, engine latency and resets with a chain_id label", async () => {
    const { Registry } = await import("prom-client");
    const { createChainMetrics } = await import("../../../src/app/chain-metrics.js");
    const register = new Registry();
    const metrics = createChainMetrics(register, 901n);
    expect(createChainMetrics(register, 902n)).toBeDefined(); // a second chain shares the series
    const l1 = new FakeL1(4);
    const engine = new FakeEngine(cfg);
    const builder = fakeAttributesBuilder(cfg, l1);
    const node = await ChainNode.create(nodeConfig(), {
      l1,
      engine,
      safeDb: new MemorySafeDb(),
      clock: systemClock,
      logger: silentLogger,
      metrics,
      createPipeline: () => new ToyPipeline(cfg, l1, builder),
      attributesBuilder: builder,
      refFromPayload: engine.refOf,
    });
    await node.start();
    running.push(node);
    await waitFor(() => node.syncStatus().safe_l2.number === 4);
    let text = "";
    for (let i = 0; i < 1000 && !text.includes('supernode_node_head_number{chain_id="901",head="safe"} 4'); i++) {
      text = await register.metrics(); // published at the end of the loop turn that derived block 4
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(text).toContain('supernode_node_head_number{chain_id="901",head="safe"} 4');
    expect(text).toContain('supernode_node_derivation_l1_origin{chain_id="901"} 4');
    expect(text).toContain('supernode_node_derived_blocks_total{chain_id="901",path="build"} 4');
    expect(text).toContain('supernode_node_resets_total{chain_id="901",reason="startup"} 1');
    expect(text).toMatch(/supernode_node_engine_call_seconds_count\{chain_id="901",method="startBuild"\} 4/);
  });
});
