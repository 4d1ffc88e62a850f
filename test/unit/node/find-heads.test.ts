import { describe, expect, it } from "vitest";
import type { SupernodeError } from "../../../src/core/errors/supernode-error.js";
import { durationToBlocks, findL2Heads } from "../../../src/node/sync/find-heads.js";
import {
  FakeEngine,
  FakeL1,
  MemorySafeDb,
  buildL2Chain,
  fakeAttributesBuilder,
  fakeL1InfoTx,
  h,
  testRollupConfig,
} from "./fakes.js";
import { hexToBytes } from "../../../src/core/codec/hex.js";

// A short sequencing window so the walk's "one window behind" rule is visible on small chains.
const cfg = testRollupConfig({ seq_window_size: 3 });

async function rig(l1Blocks: number, l2Blocks: number, labels: { safe?: number; finalized?: number } = {}) {
  const l1 = new FakeL1(l1Blocks);
  const engine = new FakeEngine(cfg);
  const refs = await buildL2Chain(engine, l1, l2Blocks, { labels });
  return { l1, engine, refs };
}

async function failure(p: Promise<unknown>): Promise<SupernodeError> {
  try {
    await p;
  } catch (err) {
    return err as SupernodeError;
  }
  throw new Error("expected a failure");
}

describe("findL2Heads: the walk (op-node FindL2Heads)", () => {
  it("an EL at genesis starts at genesis", async () => {
    const { l1, engine } = await rig(5, 0);
    const f = await findL2Heads(cfg, engine, l1, undefined);
    expect([f.unsafe.number, f.safe.number, f.finalized.number, f.how]).toEqual([0, 0, 0, "finalized"]);
  });

  it("safe = parent of the first epoch start at/below the EL's safe label one sequencing window behind", async () => {
    const { l1, engine, refs } = await rig(10, 10, { safe: 10 });
    const f = await findL2Heads(cfg, engine, l1, undefined);
    expect(f.unsafe).toEqual(refs[10]);
    // Origins are canonical up to 10; block 6 (origin 6, seq 0) is the first with 6 + 3 < 10: safe = block 5.
    expect(f.safe).toEqual(refs[5]);
    expect(f.finalized.number).toBe(0);
    expect(f.how).toBe("walk");
  });

  it("applies the window rule at or below the EL's safe label and never walks past finalized", async () => {
    let { l1, engine, refs } = await rig(10, 10, { safe: 4, finalized: 2 });
    let f = await findL2Heads(cfg, engine, l1, undefined);
    expect([f.safe, f.finalized, f.how]).toEqual([refs[3], refs[2], "walk"]); // block 4: 4 + 3 < 10
    ({ l1, engine, refs } = await rig(10, 10, { safe: 6, finalized: 3 }));
    l1.blocks = l1.blocks.slice(0, 8); // highest canonical origin 7: only block 3 qualifies, and it is finalized
    f = await findL2Heads(cfg, engine, l1, undefined);
    expect([f.unsafe, f.safe, f.finalized, f.how]).toEqual([refs[10], refs[3], refs[3], "finalized"]);
  });

  it("keeps unsafe blocks whose L1 origin is not yet visible on L1 (ahead of the L1 head)", async () => {
    const { l1, engine, refs } = await rig(10, 10, { safe: 10 });
    l1.blocks = l1.blocks.slice(0, 8); // the L1 view lags: origins 8..10 are "ahead"
    const f = await findL2Heads(cfg, engine, l1, undefined);
    expect(f.unsafe).toEqual(refs[10]);
    // Highest canonical origin is 7: the first epoch start with origin + 3 < 7 is block 3 → safe = block 2.
    expect(f.safe).toEqual(refs[2]);
  });

  it("an L1 reorg moves unsafe back to the last block with a canonical origin", async () => {
    const { l1, engine, refs } = await rig(12, 12, { safe: 12 });
    l1.reorg(9, 4, "fork"); // L1 blocks 9..12 replaced
    const f = await findL2Heads(cfg, engine, l1, undefined);
    expect(f.unsafe).toEqual(refs[8]);
    expect(f.safe).toEqual(refs[3]); // block 4 (origin 4 + 3 < 8) → parent 3
    expect(f.safe.l1origin.hash).toBe(l1.blocks[3]!.hash);
  });

  it("takes a SafeDB entry as safe when its L1 block is canonical and the walk reaches its L2 block", async () => {
    const { l1, engine, refs } = await rig(12, 12, { safe: 12 });
    const db = new MemorySafeDb();
    for (const k of [7, 9, 11]) await db.safeHeadUpdated(refs[k]!, l1.blocks[k]!);
    let f = await findL2Heads(cfg, engine, l1, db);
    expect([f.safe.number, f.how, f.safeDbL1?.number]).toEqual([11, "safedb", 11]);
    // After an L1 reorg of 10..12 the entry at 11 is stale; the one at 9 still holds.
    l1.reorg(10, 3, "fork");
    f = await findL2Heads(cfg, engine, l1, db);
    expect(f.unsafe).toEqual(refs[9]);
    expect([f.safe.number, f.how, f.safeDbL1?.number]).toEqual([9, "safedb", 9]);
  });

  it("ignores a SafeDB entry whose L2 block is not the EL's block at that height", async () => {
    const { l1, engine, refs } = await rig(10, 10, { safe: 10 });
    const db = new MemorySafeDb();
    await db.safeHeadUpdated({ hash: h("some-other-block"), number: 9 }, l1.blocks[9]!);
    const f = await findL2Heads(cfg, engine, l1, db);
    expect(f.safe).toEqual(refs[5]);
    expect(f.how).toBe("walk");
  });
});

describe("findL2Heads: errors", () => {
  it("a different L2 genesis is `wrong chain` (critical)", async () => {
    const { l1, engine } = await rig(5, 3);
    const other = testRollupConfig({
      seq_window_size: 3,
      genesis: { ...cfg.genesis, l2: { hash: h("x"), number: 0 } },
    });
    const err = await failure(findL2Heads(other, engine, l1, undefined));
    expect([err.code, err.severity]).toEqual(["WRONG_CHAIN", "critical"]);
    expect(err.message).toContain("wrong chain L2");
  });

  it("a different L1 genesis is `wrong chain` (critical)", async () => {
    const { l1, engine } = await rig(5, 3);
    const other = testRollupConfig({
      seq_window_size: 3,
      genesis: { ...cfg.genesis, l1: { hash: h("x"), number: 0 } },
    });
    const err = await failure(findL2Heads(other, engine, l1, undefined));
    expect([err.code, err.severity]).toEqual(["WRONG_CHAIN", "critical"]);
    expect(err.message).toContain("wrong chain L1");
  });

  it("a different block at the finalized height is `cannot reorg finalized block` (critical)", async () => {
    const { l1, engine, refs } = await rig(8, 8, { safe: 8 });
    // The EL's finalized label points at a sibling of canonical block 6.
    const builder = fakeAttributesBuilder(cfg, l1);
    const p = await builder.prepare(refs[5]!, l1.blocks[6]!);
    const fc = { headBlockHash: refs[5]!.hash, safeBlockHash: refs[5]!.hash, finalizedBlockHash: refs[0]!.hash };
    const res = await engine.forkchoiceUpdated(fc, {
      ...p.attributes,
      txBytes: [...p.attributes.txBytes, Uint8Array.of(0x02, 0xff)],
    });
    const sibling = await engine.getPayload(res.payloadId!);
    await engine.newPayload(sibling);
    await engine.forkchoiceUpdated({ ...fc, headBlockHash: refs[8]!.hash }); // back to the canonical chain
    engine.safe = refs[8]!.hash;
    engine.finalized = sibling.executionPayload.blockHash;
    const err = await failure(findL2Heads(cfg, engine, l1, undefined));
    expect([err.code, err.severity]).toEqual(["REORG_FINALIZED", "critical"]);
    expect(err.message).toContain("cannot reorg finalized block");
  });

  it("a reorg deeper than five sequencing windows is `reorg is too deep` (critical)", async () => {
    const { l1, engine } = await rig(30, 30, { safe: 30 });
    l1.reorg(10, 21, "fork"); // origins 10..30 are gone; 9 + 5·3 < 30
    const err = await failure(findL2Heads(cfg, engine, l1, undefined));
    expect([err.code, err.severity]).toEqual(["REORG_TOO_DEEP", "critical"]);
    expect(err.message).toContain("reorg is too deep");
  });

  it("an L1 origin that skips an L1 block between parent and child is inconsistent (critical)", async () => {
    const l1 = new FakeL1(10);
    const engine = new FakeEngine(cfg);
    await buildL2Chain(engine, l1, 6, { originOf: (k) => (k >= 4 ? k + 1 : k), labels: { safe: 6 } });
    const err = await failure(findL2Heads(cfg, engine, l1, undefined));
    expect([err.code, err.severity]).toEqual(["L2_CHAIN_INCONSISTENT", "critical"]);
    expect(err.message).toContain("is not before");
  });

  it("a sequence number that does not follow its parent's is inconsistent (critical)", async () => {
    const l1 = new FakeL1(10);
    const engine = new FakeEngine(cfg);
    const refs = await buildL2Chain(engine, l1, 3, { labels: { safe: 3 } });
    // Block 4 repeats origin 3 but claims sequence number 5.
    const parent = refs[3]!;
    const origin = l1.blocks[3]!;
    const fc = { headBlockHash: parent.hash, safeBlockHash: parent.hash, finalizedBlockHash: refs[0]!.hash };
    const attrs = (await fakeAttributesBuilder(cfg, l1).prepare(parent, origin)).attributes;
    const res = await engine.forkchoiceUpdated(fc, { ...attrs, txBytes: [hexToBytes(fakeL1InfoTx(origin, 5))] });
    const env = await engine.getPayload(res.payloadId!);
    await engine.newPayload(env);
    await engine.forkchoiceUpdated({ ...fc, headBlockHash: env.executionPayload.blockHash });
    const err = await failure(findL2Heads(cfg, engine, l1, undefined));
    expect([err.code, err.severity]).toEqual(["L2_CHAIN_INCONSISTENT", "critical"]);
    expect(err.message).toContain("sequence number inconsistency");
  });

  it("a walk longer than maxWalk stops with a critical error", async () => {
    const { l1, engine } = await rig(10, 10, { safe: 10 });
    const err = await failure(findL2Heads(cfg, engine, l1, undefined, { maxWalk: 3 }));
    expect([err.code, err.severity]).toEqual(["FIND_HEADS_WALK_LIMIT", "critical"]);
  });

  it("a missing parent block is temporary (retried)", async () => {
    const { l1, engine, refs } = await rig(10, 10, { safe: 10 });
    engine.byHash.delete(refs[6]!.hash);
    const err = await failure(findL2Heads(cfg, engine, l1, undefined));
    expect([err.code, err.severity]).toEqual(["FIND_HEADS_NO_PARENT", "temporary"]);
  });
});

describe("findL2Heads: recovery short-cuts", () => {
  it("an EL rewound below its safe label restarts from its head", async () => {
    const { l1, engine, refs } = await rig(10, 10);
    await engine.forkchoiceUpdated({
      headBlockHash: refs[5]!.hash,
      safeBlockHash: refs[8]!.hash,
      finalizedBlockHash: refs[0]!.hash,
    });
    const f = await findL2Heads(cfg, engine, l1, undefined);
    expect([f.unsafe, f.safe, f.finalized, f.how]).toEqual([refs[5], refs[5], refs[5], "recover-el-rewound"]);
  });

  it("an EL synced far past genesis without safe/finalized adopts its tip (minus the EL-safe offset)", async () => {
    const { l1, engine, refs } = await rig(50, 50); // origin 50 > 0 + 14·3
    const f = await findL2Heads(cfg, engine, l1, undefined, { elSafeOffsetBlocks: 5 });
    expect([f.unsafe, f.safe, f.finalized, f.how]).toEqual([refs[50], refs[45], refs[45], "recover-no-finality"]);
  });
});

describe("durationToBlocks (syncmode.offset-el-safe)", () => {
  it("is ceil(whole seconds / block time), 0 for no offset", () => {
    expect(durationToBlocks(0, 2)).toBe(0);
    expect(durationToBlocks(999, 2)).toBe(0);
    expect(durationToBlocks(3_000, 2)).toBe(2);
    expect(durationToBlocks(4_500, 2)).toBe(2);
    expect(durationToBlocks(60_000, 12)).toBe(5);
  });
});
