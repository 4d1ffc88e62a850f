import { describe, expect, it } from "vitest";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hex } from "../../../src/core/types/primitives.js";
import { silentLogger } from "../../../src/core/logger.js";
import { type DerivedAttributes, EngineController } from "../../../src/node/engine/engine-controller.js";
import { genesisL2Ref } from "../../../src/node/engine/heads.js";
import type { ExecutionPayloadEnvelope, L2BlockHeader } from "../../../src/node/ports.js";
import { hexToBytes } from "../../../src/core/codec/hex.js";
import { keccakHex } from "../../../src/protocol/block/keccak.js";
import { derivedChild, genesisOrigin } from "./derived-fixture.js";
import { FakeEngine, fakeRefFromPayload, testRollupConfig } from "./fakes.js";

const cfg = testRollupConfig();
const origin = genesisOrigin(cfg);
const derived = (parent: L2BlockRef, txs: Hex[] = []): DerivedAttributes => derivedChild(cfg, origin, parent, txs);

function rig(engine = new FakeEngine(cfg)) {
  const safeReports: number[] = [];
  const ctl = new EngineController({
    engine,
    cfg,
    logger: silentLogger,
    refFromPayload: fakeRefFromPayload(cfg),
    onSafeHead: async (safe) => {
      safeReports.push(safe.number);
    },
  });
  return { ctl, engine, safeReports };
}

describe("EngineController: derived blocks adopted while newPayload is in flight", () => {
  it("reports the safe head once the EL accepted the block, and publishes heads only after the forkchoice update", async () => {
    const { ctl, engine, safeReports } = rig();
    const genesis = genesisL2Ref(cfg);
    expect(await ctl.applyDerived(derived(genesis))).toBe("built");
    const b1 = ctl.heads.safe;
    expect(b1.number).toBe(1);
    // Working heads moved; the EL has not been told yet.
    expect(ctl.publishedHeads.safe.number).toBe(0);
    expect(ctl.publishedHeads.unsafe.number).toBe(0);
    expect(await ctl.applyDerived(derived(b1))).toBe("built");
    // The first block was settled (VALID) before the second was started: its safe report went out.
    expect(safeReports).toEqual([1]);
    // The second block's build started with head = block 1: the EL acknowledged block 1 as head.
    expect(ctl.publishedHeads.unsafe.hash).toBe(b1.hash);
    await ctl.flushForkchoice();
    expect(safeReports).toEqual([1, 2]);
    expect(ctl.publishedHeads.safe).toEqual(ctl.heads.safe);
    expect(engine.safe).toBe(ctl.heads.safe.hash);
    expect(engine.canonical).toHaveLength(3);
  });

  it("an INVALID verdict after adoption restores the heads, asks for a reset, and the re-derived block is checked synchronously", async () => {
    const { ctl, engine, safeReports } = rig();
    const genesis = genesisL2Ref(cfg);
    engine.poison.add("0x02bad0");
    expect(await ctl.applyDerived(derived(genesis, ["0x02bad0"]))).toBe("built");
    expect(ctl.heads.safe.number).toBe(1);
    await expect(ctl.flushForkchoice()).rejects.toMatchObject({ code: "SPECULATIVE_INSERT_FAILED" });
    expect(ctl.heads.safe.hash).toBe(genesis.hash);
    expect(ctl.heads.unsafe.hash).toBe(genesis.hash);
    expect(safeReports).toEqual([]);
    // After the reset the same block is derived again: now the verdict is awaited and reported as "invalid".
    await ctl.forceReset(genesis, genesis, genesis);
    expect(await ctl.applyDerived(derived(genesis, ["0x02bad0"]))).toBe("invalid");
    expect(ctl.heads.safe.hash).toBe(genesis.hash);
    // A valid replacement goes through.
    expect(await ctl.applyDerived(derived(genesis))).toBe("built");
    await ctl.flushForkchoice();
    expect(safeReports).toEqual([1]);
  });
});

/** Fails the next `failures` newPayload calls with a transport error (no verdict). */
class FlakyNewPayloadEngine extends FakeEngine {
  failures = 0;
  attempts = 0;
  override async newPayload(env: ExecutionPayloadEnvelope) {
    this.attempts++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error("socket hang up");
    }
    return super.newPayload(env);
  }
}

describe("EngineController: no verdict for an adopted block", () => {
  it("asks once more (newPayload is idempotent) and keeps the derived work when the EL then answers VALID", async () => {
    const engine = new FlakyNewPayloadEngine(cfg);
    const { ctl, safeReports } = rig(engine);
    const genesis = genesisL2Ref(cfg);
    engine.failures = 1;
    expect(await ctl.applyDerived(derived(genesis))).toBe("built");
    await ctl.flushForkchoice();
    expect(ctl.heads.safe.number).toBe(1);
    expect(safeReports).toEqual([1]);
    expect(engine.attempts).toBe(2);
    expect(engine.safe).toBe(ctl.heads.safe.hash);
  });

  it("asks for a reset when the second attempt fails too", async () => {
    const engine = new FlakyNewPayloadEngine(cfg);
    const { ctl, safeReports } = rig(engine);
    const genesis = genesisL2Ref(cfg);
    engine.failures = 2;
    expect(await ctl.applyDerived(derived(genesis))).toBe("built");
    await expect(ctl.flushForkchoice()).rejects.toMatchObject({ code: "SPECULATIVE_INSERT_FAILED" });
    expect(ctl.heads.safe.hash).toBe(genesis.hash);
    expect(safeReports).toEqual([]);
  });
});

/** Records the blocks of each header read. */
class BatchingEngine extends FakeEngine {
  batches: number[][] = [];
  override async headersByNumber(ns: readonly number[]): Promise<(L2BlockHeader | undefined)[]> {
    this.batches.push([...ns]);
    return super.headersByNumber(ns);
  }
}

describe("EngineController: consolidation look-ahead", () => {
  it("reads the blocks ahead in batches, never beyond the unsafe head, and consolidates each", async () => {
    // Build 100 blocks as unsafe (a sequencer's EL), then consolidate them from a fresh controller.
    const engine = new BatchingEngine(cfg);
    const seq = rig(engine).ctl;
    let parent = genesisL2Ref(cfg);
    const attrs: DerivedAttributes[] = [];
    for (let i = 0; i < 100; i++) {
      const d = derived(parent);
      attrs.push(d);
      const built = await seq.buildAndInsert(d.attributes, parent, d);
      parent = built!.ref;
    }
    await seq.flushForkchoice();
    const { ctl } = rig(engine);
    await ctl.forceReset(parent, genesisL2Ref(cfg), genesisL2Ref(cfg));
    engine.batches = [];
    for (const d of attrs) expect(await ctl.applyDerived(d)).toBe("consolidated");
    expect(ctl.heads.safe.hash).toBe(parent.hash);
    const requested = engine.batches.flat();
    expect(Math.max(...requested)).toBeLessThanOrEqual(100);
    expect(new Set(requested).size).toBe(requested.length);
    expect(engine.batches.length).toBeLessThanOrEqual(5);
  });
});

/** Headers whose transaction hashes may lie (an EL whose hash field cannot be trusted). */
class HeaderEngine extends FakeEngine {
  headerBatches: number[][] = [];
  /** Lists every transaction under a wrong hash. */
  lie = false;
  override async headersByNumber(ns: readonly number[]): Promise<(L2BlockHeader | undefined)[]> {
    this.headerBatches.push([...ns]);
    return (await super.headersByNumber(ns)).map((hdr) =>
      hdr === undefined || !this.lie
        ? hdr
        : { ...hdr, transactionHashes: hdr.transactionHashes.map((t) => keccakHex(hexToBytes(`${t}00`))) },
    );
  }
}

describe("EngineController: consolidation by header and transaction hashes", () => {
  const userTx: Hex =
    "0x02f86b0180843b9aca00850ba43b7400825208945555555555555555555555555555555555555555880de0b6b3a764000080c0";

  async function unsafeChain(engine: HeaderEngine, n: number) {
    const seq = rig(engine).ctl;
    let parent = genesisL2Ref(cfg);
    const attrs: DerivedAttributes[] = [];
    for (let i = 0; i < n; i++) {
      const d = derived(parent, [userTx]);
      attrs.push(d);
      parent = (await seq.buildAndInsert(d.attributes, parent, d))!.ref;
    }
    await seq.flushForkchoice();
    const { ctl } = rig(engine);
    await ctl.forceReset(parent, genesisL2Ref(cfg), genesisL2Ref(cfg));
    engine.calls = {};
    return { ctl, attrs, head: parent };
  }

  it("consolidates from headers alone: no whole block read, refs as the payloads give them", async () => {
    const engine = new HeaderEngine(cfg);
    const { ctl, attrs, head } = await unsafeChain(engine, 40);
    for (const d of attrs) expect(await ctl.applyDerived(d)).toBe("consolidated");
    expect(ctl.heads.safe).toEqual(head);
    expect(engine.calls.payloadByNumber).toBe(undefined);
    expect(engine.headerBatches.flat().length).toBe(40);
    expect(engine.calls.getPayload).toBe(undefined);
  });

  it("a hash mismatch is decided on the whole block: equal bytes still consolidate, other bytes build", async () => {
    const engine = new HeaderEngine(cfg);
    engine.lie = true;
    const { ctl, attrs, head } = await unsafeChain(engine, 5);
    for (const d of attrs.slice(0, 4)) expect(await ctl.applyDerived(d)).toBe("consolidated");
    expect(engine.calls.payloadByNumber).toBe(4);
    const last = attrs[4]!;
    const other = { ...last, attributes: { ...last.attributes, txBytes: [last.attributes.txBytes[0]!] } };
    expect(await ctl.applyDerived(other)).toBe("built");
    expect(ctl.heads.safe.number).toBe(5);
    expect(ctl.heads.safe.hash).not.toBe(head.hash);
  });
});
