import { describe, expect, it } from "vitest";
import { ResetError } from "../../../../src/core/errors/supernode-error.js";
import type { L1BlockRef, L2BlockRef } from "../../../../src/core/types/block-ref.js";
import {
  BatchQueue,
  type BatchSource,
  BatchStage,
  type BatchStageResult,
  decodeRawSpanBatch,
  deriveSpanBatch,
  EMPTY_SAFE_BLOCK_LOOKUP,
  encodeSpanBatch,
  type InputBatch,
  type SingularBatch,
} from "../../../../src/protocol/derive/index.js";
import type { RollupConfig } from "../../../../src/protocol/rollup-config.js";
import { CHAIN_ID, hash, l1, l2, makeConfig, makeTx } from "./fixtures.js";

class Script implements BatchSource {
  flushes = 0;
  constructor(
    public o: L1BlockRef,
    public items: InputBatch[] = [],
  ) {}
  origin(): L1BlockRef {
    return this.o;
  }
  next(): InputBatch | undefined {
    return this.items.shift();
  }
  flushChannel(): void {
    this.flushes++;
    this.items = [];
  }
}

/** Builds the L2 ref of the block a singular batch produces. */
function child(parent: L2BlockRef, b: SingularBatch): L2BlockRef {
  const seq = b.epochNum === parent.l1origin.number ? parent.sequenceNumber + 1 : 0;
  return {
    hash: hash(0x30000000 + parent.number + 1),
    number: parent.number + 1,
    parentHash: parent.hash,
    timestamp: b.timestamp,
    l1origin: { hash: b.epochHash, number: b.epochNum },
    sequenceNumber: seq,
  };
}

const genesisOrigin = l1(0);
const safe0 = l2(0, genesisOrigin, 0, genesisOrigin.timestamp);

function single(parent: L2BlockRef, epoch: L1BlockRef, txs: Uint8Array[] = []): SingularBatch {
  return {
    parentHash: parent.hash,
    epochNum: epoch.number,
    epochHash: epoch.hash,
    timestamp: parent.timestamp + 2,
    transactions: txs,
  };
}

/** Drives a stage like the pipeline: call until a batch or EOF; on EOF advance the source's origin. */
function drive(
  stage: { nextBatch(p: L2BlockRef, s: BatchSource, l: typeof EMPTY_SAFE_BLOCK_LOOKUP): BatchStageResult },
  src: Script,
  parent: L2BlockRef,
  maxL1: number,
): { batches: SingularBatch[]; concl: boolean[] } {
  const batches: SingularBatch[] = [];
  const concl: boolean[] = [];
  for (let guard = 0; guard < 1000; guard++) {
    const r = stage.nextBatch(parent, src, EMPTY_SAFE_BLOCK_LOOKUP);
    if (r.kind === "batch") {
      batches.push(r.batch);
      concl.push(r.concluding);
      parent = child(parent, r.batch);
    } else if (r.kind === "eof") {
      if (src.o.number >= maxL1) break;
      src.o = l1(src.o.number + 1);
    }
  }
  return { batches, concl };
}

describe("BatchQueue (pre-Holocene)", () => {
  const cfg = makeConfig();

  it("emits batches in order, buffering future ones", () => {
    const b1 = single(safe0, genesisOrigin, [makeTx("eip1559", 1)]);
    const r1 = child(safe0, b1);
    const b2 = single(r1, genesisOrigin);
    const src = new Script(l1(1), [
      { kind: "singular", batch: b2 },
      { kind: "singular", batch: b1 },
    ]);
    const q = new BatchQueue(cfg, genesisOrigin);
    const out = drive(q, src, safe0, 1);
    expect(out.batches.slice(0, 2).map((b) => b.timestamp)).toEqual([b1.timestamp, b2.timestamp]);
    expect(out.concl.slice(0, 2)).toEqual([true, true]);
  });

  it("generates empty batches once the sequencing window expires", () => {
    const c = makeConfig({ seq_window_size: 2 });
    const q = new BatchQueue(c, genesisOrigin);
    const src = new Script(genesisOrigin);
    const out = drive(q, src, safe0, 4);
    expect(out.batches.length).toBeGreaterThan(0);
    expect(out.batches.every((b) => b.transactions.length === 0)).toBe(true);
    // consecutive timestamps, epochs advance only when the L2 time reaches the next L1 time
    expect(out.batches.map((b) => b.timestamp)).toEqual(out.batches.map((_, i) => safe0.timestamp + 2 * (i + 1)));
    for (const b of out.batches) expect(b.timestamp).toBeGreaterThanOrEqual(l1(b.epochNum).timestamp);
    expect(out.batches.at(-1)!.epochNum).toBeGreaterThan(0);
  });

  it("expands span batches; only the last element concludes", () => {
    const blocks: SingularBatch[] = [];
    let parent = safe0;
    for (let i = 0; i < 3; i++) {
      const b = single(parent, genesisOrigin, [makeTx("legacy", i)]);
      blocks.push(b);
      parent = child(parent, b);
    }
    const body = encodeSpanBatch(blocks, {
      genesisL2Time: cfg.genesis.l2_time,
      chainId: CHAIN_ID,
      firstSequenceNumber: 1,
    });
    const span = deriveSpanBatch(decodeRawSpanBatch(body), 2, cfg.genesis.l2_time, CHAIN_ID);
    const q = new BatchQueue(cfg, genesisOrigin);
    const out = drive(q, new Script(l1(1), [{ kind: "span", batch: span }]), safe0, 1);
    expect(out.batches.map((b) => b.timestamp)).toEqual(blocks.map((b) => b.timestamp));
    expect(out.concl).toEqual([false, false, true]);
    // parent hashes are filled in from the actual parent as elements are popped
    expect(out.batches[0]!.parentHash).toBe(safe0.hash);
    expect(out.batches[1]!.parentHash).toBe(child(safe0, out.batches[0]!).hash);
  });

  it("throws a ResetError when the buffered epoch does not match the parent", () => {
    const q = new BatchQueue(cfg, l1(5));
    expect(() => q.nextBatch(safe0, new Script(l1(5)), EMPTY_SAFE_BLOCK_LOOKUP)).toThrow(ResetError);
  });
});

describe("BatchStage (Holocene)", () => {
  const cfg: RollupConfig = makeConfig({ holocene_time: 0 });

  it("emits valid batches and flushes the channel on an invalid one", () => {
    const b1 = single(safe0, genesisOrigin, [makeTx("legacy", 1)]);
    const bad = { ...b1, parentHash: hash(99) };
    const src = new Script(l1(1), [
      { kind: "singular", batch: bad },
      { kind: "singular", batch: b1 },
    ]);
    const stage = new BatchStage(cfg, genesisOrigin);
    const out = drive(stage, src, safe0, 1);
    expect(src.flushes).toBe(1);
    // the valid b1 was flushed with the rest of the channel: nothing with transactions is emitted
    expect(out.batches.every((b) => b.transactions.length === 0)).toBe(true);
  });

  it("skips past batches without flushing", () => {
    const b1 = single(safe0, genesisOrigin, [makeTx("eip1559", 1)]);
    const r1 = child(safe0, b1);
    const b2 = single(r1, genesisOrigin, [makeTx("eip1559", 2)]);
    const src = new Script(l1(1), [
      { kind: "singular", batch: b1 },
      { kind: "singular", batch: b1 },
      { kind: "singular", batch: b2 },
    ]);
    const stage = new BatchStage(cfg, genesisOrigin);
    const out = drive(stage, src, safe0, 1);
    expect(src.flushes).toBe(0);
    expect(out.batches.slice(0, 2).map((b) => b.timestamp)).toEqual([b1.timestamp, b2.timestamp]);
  });

  it("takes over the batch queue state at Holocene activation", () => {
    const q = new BatchQueue(cfg, genesisOrigin);
    const src = new Script(l1(1));
    q.nextBatch(safe0, src, EMPTY_SAFE_BLOCK_LOOKUP);
    const stage = BatchStage.fromBatchQueue(q, cfg);
    expect(stage.origin).toEqual(q.origin);
    expect(stage.bufferedL1Blocks).toEqual(q.bufferedL1Blocks);
  });
});

describe("BatchStage with span batches overlapping the safe chain", () => {
  const cfg: RollupConfig = makeConfig({ holocene_time: 0 });

  it("asks for the missing L2 parent, keeps the span, then accepts it", () => {
    const b1 = single(safe0, genesisOrigin, [makeTx("eip1559", 1)]);
    const r1 = child(safe0, b1);
    const b2 = single(r1, genesisOrigin, [makeTx("eip1559", 2)]);
    const r2 = child(r1, b2);
    const b3 = single(r2, genesisOrigin, [makeTx("legacy", 3)]);
    const body = encodeSpanBatch([b2, b3], {
      genesisL2Time: cfg.genesis.l2_time,
      chainId: CHAIN_ID,
      firstSequenceNumber: 1,
    });
    const span = deriveSpanBatch(decodeRawSpanBatch(body), 2, cfg.genesis.l2_time, CHAIN_ID);
    const src = new Script(l1(1), [{ kind: "span", batch: span }]);
    const stage = new BatchStage(cfg, genesisOrigin);
    const first = stage.nextBatch(r2, src, EMPTY_SAFE_BLOCK_LOOKUP);
    expect(first).toEqual({ kind: "not-enough-data", missingL2: [r1.number] });
    const lookup = {
      l2BlockRefByNumber: (n: number) => (n === r1.number ? r1 : undefined),
      safeBlockByNumber: () => undefined,
    };
    const second = stage.nextBatch(r2, src, lookup);
    expect(second.kind).toBe("batch");
    if (second.kind === "batch") {
      expect(second.batch.timestamp).toBe(b3.timestamp);
      expect(second.batch.parentHash).toBe(r2.hash);
      expect(second.batch.transactions.map((t) => Buffer.from(t).toString("hex"))).toEqual(
        b3.transactions.map((t) => Buffer.from(t).toString("hex")),
      );
    }
    expect(src.flushes).toBe(0);
  });

  it("flushes the channel when the span's parent check fails", () => {
    const b1 = single(safe0, genesisOrigin);
    const bad = { ...b1, parentHash: hash(1234) };
    const body = encodeSpanBatch([bad], {
      genesisL2Time: cfg.genesis.l2_time,
      chainId: CHAIN_ID,
      firstSequenceNumber: 1,
    });
    const span = deriveSpanBatch(decodeRawSpanBatch(body), 2, cfg.genesis.l2_time, CHAIN_ID);
    const src = new Script(l1(1), [
      { kind: "span", batch: span },
      { kind: "singular", batch: b1 },
    ]);
    const stage = new BatchStage(cfg, genesisOrigin);
    expect(stage.nextBatch(safe0, src, EMPTY_SAFE_BLOCK_LOOKUP).kind).toBe("not-enough-data");
    expect(src.flushes).toBe(1);
    expect(src.items).toHaveLength(0);
  });
});
