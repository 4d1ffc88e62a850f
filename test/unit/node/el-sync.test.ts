import { afterEach, describe, expect, it } from "vitest";
import { startToyNode, toyNodeConfig } from "./toy-node.js";
import type { SupernodeError } from "../../../src/core/errors/supernode-error.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { ChainNode, ChainNodeConfig } from "../../../src/node/chain-node.js";
import { ElSync, shouldStartElSync, supportsPostFinalizationElSync } from "../../../src/node/sync/el-sync.js";
import type { EngineController } from "../../../src/node/engine/engine-controller.js";
import { allHeads, type L2Heads } from "../../../src/node/engine/heads.js";
import type { ExecutionEngine, ExecutionPayloadEnvelope, PayloadStatusKind } from "../../../src/node/ports.js";
import type { UnsafePayload } from "../../../src/node/sync/unsafe-queue.js";
import { envelopeOf } from "../../../src/protocol/engine-api-types.js";
import {
  FakeEngine,
  FakeL1,
  GENESIS_TIME,
  ManualClock,
  MemorySafeDb,
  buildL2Chain,
  fakeL1InfoTx,
  fakeRefFromPayload,
  h,
  recordingLogger,
  testRollupConfig,
  CountingClock,
  loopTurns,
  waitFor,
} from "./fakes.js";

const cfg = testRollupConfig();
const running: ChainNode[] = [];
afterEach(async () => {
  for (const n of running.splice(0)) await n.stop();
});

async function elNode(
  kind: "variant_a" | "variant_b",
  l1: FakeL1,
  engine: FakeEngine,
  over: Partial<ChainNodeConfig> = {},
) {
  const safeDb = new MemorySafeDb();
  await safeDb.safeHeadUpdated({ hash: cfg.genesis.l2.hash, number: 0 }, { hash: l1.blocks[0]!.hash, number: 0 });
  const logger = recordingLogger();
  const clock = new CountingClock();
  const node = await startToyNode({
    l1,
    engine,
    safeDb,
    logger,
    clock,
    config: toyNodeConfig(cfg, { engineKind: kind, syncMode: "execution-layer", ...over }),
  });
  running.push(node);
  return { node, safeDb, logger, clock };
}

/** The network's chain: `n` blocks built on another execution client. */
async function networkChain(l1: FakeL1, n: number): Promise<FakeEngine> {
  const source = new FakeEngine(cfg);
  await buildL2Chain(source, l1, n);
  return source;
}

const payloadAt = (src: FakeEngine, n: number): ExecutionPayloadEnvelope => src.byHash.get(src.canonical[n]!)!;

describe("execution-layer sync through the virtual node", () => {
  it.each(["variant_a", "variant_b"] as const)(
    "%s, empty EL: derivation waits, SYNCING answers are expected, the first VALID finishes EL sync and derivation resumes from the tip",
    async (kind) => {
      const l1 = new FakeL1(12);
      const source = await networkChain(l1, 8);
      const engine = new FakeEngine(cfg);
      const { node, safeDb, logger, clock } = await elNode(kind, l1, engine);
      await waitFor(() => logger.lines.some((l) => l.msg === "reset: found L2 heads"));
      await loopTurns(clock); // derivation had turns of the loop to run, and did not
      expect(node.syncStatus().safe_l2.number).toBe(0); // derivation waits for EL sync
      expect(node.elSync.status).toBe("will-start");

      // Gossip far ahead of the EL: it answers SYNCING to newPayload and forkchoiceUpdated.
      node.addUnsafePayload(payloadAt(source, 6));
      node.addUnsafePayload(payloadAt(source, 7));
      await waitFor(() => node.syncStatus().unsafe_l2.number === 7);
      expect(node.elSync.status).toBe("started");
      expect(safeDb.cleared).toBe(1); // safe heads now advance without derivation
      expect(engine.calls.newPayload).toBe(2);
      expect(engine.canonical).toHaveLength(1); // the EL has not got the chain yet
      expect(node.syncStatus().safe_l2.number).toBe(0);

      // The EL fetches the chain from its peers; the next payload is VALID.
      for (let k = 1; k <= 7; k++) engine.byHash.set(source.canonical[k]!, payloadAt(source, k));
      node.addUnsafePayload(payloadAt(source, 8));
      await waitFor(() => node.elSync.status === "finished");
      const fin = logger.lines.find((l) => l.msg === "finished EL sync");
      expect(fin?.obj).toMatchObject({ unsafe: 8, safe: 8, finalized: 8 });
      // Reset from the EL's labels, then derivation continues past the synced tip.
      await waitFor(() => node.syncStatus().safe_l2.number === 12);
      expect(engine.canonical.slice(0, 9)).toEqual(source.canonical.slice(0, 9));
      expect(node.syncStatus().finalized_l2.number).toBe(8);
      const reset = logger.lines.filter((l) => l.msg === "reset: found L2 heads").at(-1);
      expect(reset?.obj).toMatchObject({
        reason: "el-sync-finished",
        how: "finalized",
        unsafe: { number: 8, hash: source.canonical[8] },
        safe: { number: 8, hash: source.canonical[8] },
      });
    },
  );

  it("variant_b with a finalized block skips EL sync: nothing waits, the SafeDB is kept and the payload is inserted", async () => {
    const l1 = new FakeL1(10);
    const source = await networkChain(l1, 8);
    const engine = new FakeEngine(cfg);
    await buildL2Chain(engine, l1, 5, { labels: { safe: 5, finalized: 3 } });
    const { node, safeDb, logger } = await elNode("variant_b", l1, engine);
    await waitFor(() => logger.lines.some((l) => l.msg === "reset: found L2 heads"));
    node.addUnsafePayload(payloadAt(source, 6));
    await waitFor(() => node.elSync.status === "finished");
    expect(safeDb.cleared).toBe(0);
    await waitFor(() => node.syncStatus().safe_l2.number === 10);
    expect(engine.canonical[6]).toBe(source.canonical[6]);
    expect(logger.lines.some((l) => l.msg.startsWith("skipping EL sync"))).toBe(true);
  });

  it("variant_a with a finalized block still runs EL sync and never moves finalized backwards", async () => {
    const l1 = new FakeL1(10);
    const source = await networkChain(l1, 8);
    const engine = new FakeEngine(cfg);
    await buildL2Chain(engine, l1, 5, { labels: { safe: 5, finalized: 3 } });
    const { node, safeDb, logger } = await elNode("variant_a", l1, engine, { elSafeOffsetBlocks: 4 });
    await waitFor(() => logger.lines.some((l) => l.msg === "reset: found L2 heads"));
    node.addUnsafePayload(payloadAt(source, 6));
    await waitFor(() => node.elSync.status === "finished");
    expect(safeDb.cleared).toBe(1);
    // Tip 6 − offset 4 = block 2, below finalized 3: safe and finalized stay at 3.
    expect(logger.lines.find((l) => l.msg === "finished EL sync")?.obj).toMatchObject({
      unsafe: 6,
      safe: 3,
      finalized: 3,
    });
    await waitFor(() => node.syncStatus().safe_l2.number === 10);
    expect(engine.canonical[6]).toBe(source.canonical[6]);
  });

  it("with syncmode.req-resp the payloads go through the queue once EL sync is done", async () => {
    const l1 = new FakeL1(8);
    const source = await networkChain(l1, 6);
    const engine = new FakeEngine(cfg);
    for (let k = 1; k <= 2; k++) engine.byHash.set(source.canonical[k]!, payloadAt(source, k));
    const { node } = await elNode("variant_b", l1, engine, { syncModeReqResp: true });
    expect(node.elSync.directInsert(true)).toBe(true); // still syncing
    node.addUnsafePayload(payloadAt(source, 3));
    await waitFor(() => node.elSync.status === "finished");
    expect(node.elSync.directInsert(true)).toBe(false);
    expect(node.elSync.directInsert(false)).toBe(true);
  });
});

describe("consensus-layer sync: an unsafe gap is left to the execution client (req-resp off)", () => {
  it("hands the lowest queued payload beyond unsafe+1 to the EL every 2·block_time until it reports it VALID", async () => {
    const source = await networkChain(new FakeL1(8), 8);
    const l1 = new FakeL1(5); // derivation stops at 5; 6..8 only arrive as gossip
    const engine = new FakeEngine(cfg);
    const clock = new ManualClock(GENESIS_TIME * 1000);
    const node = await startToyNode({ l1, engine, clock, logger: recordingLogger(), config: toyNodeConfig(cfg) });
    running.push(node);
    await waitFor(() => node.syncStatus().safe_l2.number === 5);
    const np = engine.calls.newPayload ?? 0;
    node.addUnsafePayload(payloadAt(source, 8));
    await waitFor(() => (engine.calls.newPayload ?? 0) === np + 1); // handed over at once: SYNCING
    await loopTurns(clock); // more turns of the loop, the clock standing still
    expect(engine.calls.newPayload).toBe(np + 1); // not again before 2·block_time
    expect(node.syncStatus().unsafe_l2.number).toBe(5);
    expect(node.syncStatus().queued_unsafe_l2.number).toBe(8);
    // The EL fetches 6 and 7; on the next check the payload is VALID and becomes the unsafe head.
    for (const k of [6, 7]) engine.byHash.set(source.canonical[k]!, payloadAt(source, k));
    clock.now += 2 * cfg.block_time * 1000;
    await waitFor(() => node.syncStatus().unsafe_l2.number === 8);
    expect(node.syncStatus().unsafe_l2.hash).toBe(source.canonical[8]);
    expect(engine.canonical[8]).toBe(source.canonical[8]);
    expect(node.syncStatus().queued_unsafe_l2.number).toBe(0);
  });
});

describe("consensus-layer sync: unsafe payload insertion failures", () => {
  it("a temporary failure keeps the payload for a retry; three in a row drop it", async () => {
    const source = await networkChain(new FakeL1(8), 8);
    const l1 = new FakeL1(5);
    const engine = new FakeEngine(cfg);
    let failures = 0;
    const flaky = new Set<string>([source.canonical[6]!, source.canonical[7]!]);
    const newPayload = engine.newPayload.bind(engine);
    engine.newPayload = async (env) => {
      const hash = envelopeOf(env).executionPayload.blockHash;
      if (flaky.has(hash) && (hash === source.canonical[7] || failures < 2)) {
        failures++;
        throw new Error("connection reset");
      }
      return newPayload(env);
    };
    const logger = recordingLogger();
    const node = await startToyNode({ l1, engine, logger, config: toyNodeConfig(cfg) });
    running.push(node);
    await waitFor(() => node.syncStatus().safe_l2.number === 5);
    node.addUnsafePayload(payloadAt(source, 6));
    await waitFor(() => node.syncStatus().unsafe_l2.number === 6); // after two failures
    expect(failures).toBe(2);
    node.addUnsafePayload(payloadAt(source, 7)); // always fails
    await waitFor(() => node.unsafeQueue.length === 0);
    expect(failures).toBe(5);
    expect(node.syncStatus().unsafe_l2.number).toBe(6);
    expect(logger.lines.some((l) => l.msg === "dropping an unsafe payload after repeated failures")).toBe(true);
    expect(node.status).toBe("running");
  });
});

// ---------------------------------------------------------------------------------------------------------------

function stubEngine(np: PayloadStatusKind[], fcu: PayloadStatusKind[], fcuError?: Error) {
  const calls: { method: string; arg: unknown }[] = [];
  const engine = {
    async newPayload(env: ExecutionPayloadEnvelope) {
      calls.push({ method: "newPayload", arg: env.executionPayload.blockNumber });
      return { status: np.shift() ?? "SYNCING" };
    },
    async forkchoiceUpdated(state: unknown) {
      calls.push({ method: "forkchoiceUpdated", arg: state });
      if (fcuError !== undefined) throw fcuError;
      return { payloadStatus: { status: fcu.shift() ?? "SYNCING" }, payloadId: null };
    },
    async l2BlockRefByLabel() {
      return undefined;
    },
    async l2BlockRefByNumber() {
      return undefined;
    },
  } as unknown as ExecutionEngine;
  return { engine, calls };
}

/** Block `n` as the unsafe queue holds it (with its ref). */
function payload(n: number): UnsafePayload {
  const envelope = payloadEnvelope(n);
  return { envelope, ref: fakeRefFromPayload(cfg)(envelope) };
}

function payloadEnvelope(n: number): ExecutionPayloadEnvelope {
  return {
    executionPayload: {
      parentHash: h(`p${n - 1}`),
      feeRecipient: `0x${"00".repeat(20)}`,
      stateRoot: h(`s${n}`),
      prevRandao: h(`r${n}`),
      blockNumber: n,
      gasLimit: 30_000_000n,
      timestamp: 1000 + 2 * n,
      extraData: "0x",
      blockHash: h(`p${n}`),
      transactions: [fakeL1InfoTx({ hash: h(`l1-${n}`), number: n }, 0)],
    },
  };
}

function elSync(engine: ExecutionEngine, kind: "variant_a" | "variant_b" = "variant_b") {
  const controller: {
    heads: L2Heads;
    flushes: number;
    adopted: number;
    flushForkchoice(): Promise<void>;
    adoptAcknowledged(h: L2Heads): void;
  } = {
    heads: allHeads({
      ...cfg.genesis.l2,
      parentHash: h("0"),
      timestamp: 1000,
      l1origin: cfg.genesis.l1,
      sequenceNumber: 0,
    }),
    flushes: 0,
    adopted: 0,
    async flushForkchoice() {
      controller.flushes++;
    },
    adoptAcknowledged(heads: L2Heads) {
      controller.heads = { ...heads };
      controller.adopted++;
    },
  };
  const s = new ElSync("execution-layer", {
    cfg,
    kind,
    engine,
    controller: controller as unknown as EngineController,
    clock: systemClock,
    logger: recordingLogger(),
  });
  return { s, controller };
}

describe("ElSync state machine", () => {
  it("forkchoiceUpdated VALID after a SYNCING newPayload finishes on the next insertion (op-node order)", async () => {
    const { engine, calls } = stubEngine(["SYNCING", "ACCEPTED"], ["VALID", "VALID"]);
    const { s, controller } = elSync(engine);
    expect(await s.insert(payload(10))).toEqual({ result: "inserted", finished: false });
    expect(s.status).toBe("finished-not-finalized");
    expect(s.syncing).toBe(true);
    expect(controller.heads.safe.number).toBe(0);
    expect(await s.insert(payload(11))).toEqual({ result: "inserted", finished: true });
    expect(s.status).toBe("finished");
    expect(controller.heads.safe.number).toBe(11);
    expect(controller.heads.finalized.number).toBe(11);
    // The finishing heads are adopted as acknowledged (the EL has just accepted them), without another update.
    expect(controller.adopted).toBe(1);
    expect(calls.at(-1)?.arg).toEqual({
      headBlockHash: h("p11"),
      safeBlockHash: h("p11"),
      finalizedBlockHash: h("p11"),
    });
    expect(await s.insert(payload(11))).toEqual({ result: "ignored", finished: false });
  });

  it("INVALID payloads are reported, an invalid forkchoice state asks for a reset, other failures are temporary", async () => {
    const invalid = stubEngine(["INVALID"], []);
    expect((await elSync(invalid.engine).s.insert(payload(3))).result).toBe("invalid");
    const rejected = stubEngine(["SYNCING"], [], Object.assign(new Error("bad fc"), { rpcCode: -38002 }));
    const err = (await elSync(rejected.engine)
      .s.insert(payload(3))
      .catch((e) => e)) as SupernodeError;
    expect([err.code, err.severity]).toEqual(["INVALID_FORKCHOICE", "reset"]);
    const fcuInvalid = stubEngine(["SYNCING"], ["INVALID"]);
    const err2 = (await elSync(fcuInvalid.engine)
      .s.insert(payload(3))
      .catch((e) => e)) as SupernodeError;
    expect(err2.severity).toBe("temporary");
  });

  it("the engine kinds differ only in post-finalization EL sync", () => {
    const fin = {
      ...cfg.genesis.l2,
      hash: h("f"),
      number: 5,
      parentHash: h("e"),
      timestamp: 1010,
      l1origin: cfg.genesis.l1,
      sequenceNumber: 0,
    };
    const genesis = { ...fin, hash: cfg.genesis.l2.hash, number: 0 };
    expect(supportsPostFinalizationElSync("variant_a")).toBe(true);
    expect(supportsPostFinalizationElSync("variant_b")).toBe(false);
    for (const kind of ["variant_a", "variant_b"] as const) {
      expect(shouldStartElSync(kind, undefined, cfg)).toBe(true);
      expect(shouldStartElSync(kind, genesis, cfg)).toBe(true);
    }
    expect(shouldStartElSync("variant_a", fin, cfg)).toBe(true);
    expect(shouldStartElSync("variant_b", fin, cfg)).toBe(false);
  });
});
