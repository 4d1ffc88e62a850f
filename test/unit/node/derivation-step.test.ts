import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import type { L1BlockRef, L2BlockRef } from "../../../src/core/types/block-ref.js";
import { DerivationStep } from "../../../src/node/derivation/derivation-step.js";
import type { DerivationPipeline, StepResult } from "../../../src/node/derivation/types.js";
import { type DerivedAttributes, EngineController } from "../../../src/node/engine/engine-controller.js";
import { derivedChild } from "./derived-fixture.js";
import { fakeRefFromPayload, h, OpsEngine, testRollupConfig } from "./fakes.js";

const ref = (n: number): L2BlockRef => ({
  hash: h(`b${n}`),
  number: n,
  parentHash: h(`b${n - 1}`),
  timestamp: 1000 + 2 * n,
  l1origin: { hash: h("l1"), number: 0 },
  sequenceNumber: n,
});

/** A pipeline with attributes for blocks 1…n, an engine that adopts each, and a yield condition the test sets. */
function rig(n: number) {
  const heads = { pendingSafe: ref(0) };
  const applied: number[] = [];
  let yieldNow = false;
  const pipeline = {
    origin: { hash: h("l1"), number: 0, parentHash: h("l0"), timestamp: 0 },
    async step(ps: L2BlockRef): Promise<StepResult> {
      if (ps.number >= n) return { kind: "eof" };
      const attrs = { parent: ps, concluding: true } as unknown as DerivedAttributes;
      return { kind: "attributes", attrs };
    },
    reset: async () => {},
    invalidated: () => undefined,
  } as unknown as DerivationPipeline;
  const engine = {
    heads,
    flushForkchoice: async () => {},
    async applyDerived(a: DerivedAttributes) {
      heads.pendingSafe = ref(a.parent.number + 1);
      applied.push(a.parent.number + 1);
      if (applied.length === 2) yieldNow = true; // e.g. a gossiped block arrived meanwhile
      return "consolidated" as const;
    },
  } as unknown as EngineController;
  const step = new DerivationStep({
    pipeline,
    controller: engine,
    maxSteps: 256,
    turn: () => undefined,
    shouldYield: () => yieldNow,
    aborted: () => false,
  });
  return { step, applied, resume: () => (yieldNow = false) };
}

describe("DerivationStep", () => {
  it("stops between derived blocks when it should yield (an insertable unsafe payload, a due block) and goes on later", async () => {
    const r = rig(5);
    expect(await r.step.run()).toBe(true);
    expect(r.applied).toEqual([1, 2]);
    r.resume();
    expect(await r.step.run()).toBe(true);
    expect(r.applied).toEqual([1, 2, 3, 4, 5]);
    expect(await r.step.run()).toBe(false); // nothing more
  });
});

describe("DerivationStep: a denied derived block", () => {
  it("asks the pipeline for its deposits-only replacement as denied (the pipeline flushes the rest of the channel)", async () => {
    const heads = { pendingSafe: ref(0) };
    const calls: Array<{ parent: number; denied: boolean | undefined }> = [];
    const replacement = { parent: ref(0), concluding: true, depositsOnly: true } as unknown as DerivedAttributes;
    const pipeline = {
      origin: { hash: h("l1"), number: 0, parentHash: h("l0"), timestamp: 0 },
      async step(ps: L2BlockRef): Promise<StepResult> {
        if (ps.number >= 1) return { kind: "eof" };
        return { kind: "attributes", attrs: { parent: ps, concluding: true } as unknown as DerivedAttributes };
      },
      reset: async () => {},
      invalidated(last: DerivedAttributes, denied?: boolean) {
        calls.push({ parent: last.parent.number, denied });
        return replacement;
      },
    } as unknown as DerivationPipeline;
    const applied: DerivedAttributes[] = [];
    const engine = {
      heads,
      flushForkchoice: async () => {},
      async applyDerived(a: DerivedAttributes) {
        applied.push(a);
        if (applied.length === 1) return "denied" as const;
        heads.pendingSafe = ref(1);
        return "built" as const;
      },
    } as unknown as EngineController;
    const step = new DerivationStep({
      pipeline,
      controller: engine,
      maxSteps: 256,
      turn: () => undefined,
      shouldYield: () => false,
      aborted: () => false,
    });
    await step.run();
    expect(calls).toEqual([{ parent: 0, denied: true }]);
    expect(applied[1]).toBe(replacement);
  });
});

/**
 * Blocks 1…4 built by a real EngineController from a pipeline whose L1 origin moves on after block `moveAfter`
 * (one step of "progress" on the new origin); `concluding` decides whether the blocks move the safe head.
 */
async function buildAcrossOrigins(concluding: boolean, moveAfter: number) {
  const cfg = testRollupConfig();
  const engine = new OpsEngine(cfg);
  const ctl = new EngineController({ engine, cfg, logger: silentLogger, refFromPayload: fakeRefFromPayload(cfg) });
  const l1 = (n: number): L1BlockRef => ({
    hash: n === 0 ? cfg.genesis.l1.hash : h(`l1-${n}`),
    number: n,
    parentHash: h(`l1-${n - 1}`),
    timestamp: 12 * n,
  });
  const pipeline = {
    origin: l1(0),
    moved: false,
    async step(ps: L2BlockRef): Promise<StepResult> {
      if (ps.number === moveAfter && !this.moved) {
        this.moved = true;
        this.origin = l1(1);
        return { kind: "progress" };
      }
      if (ps.number >= 4) return { kind: "eof" };
      return { kind: "attributes", attrs: { ...derivedChild(cfg, l1(0), ps), concluding } };
    },
    reset: async () => {},
    invalidated: () => undefined,
  };
  const step = new DerivationStep({
    pipeline: pipeline as unknown as DerivationPipeline,
    controller: ctl,
    maxSteps: 256,
    turn: () => undefined,
    shouldYield: () => false,
    aborted: () => false,
  });
  expect(await step.run()).toBe(true);
  expect(ctl.heads.pendingSafe.number).toBe(4);
  return { engine, ctl, states: engine.states };
}

describe("DerivationStep at a new L1 origin", () => {
  it("the heads owed at a new origin ride with the next build start (two operations per built block)", async () => {
    for (const concluding of [false, true]) {
      const { engine, ctl, states } = await buildAcrossOrigins(concluding, 2);
      expect(engine.ops).toEqual([
        "startBuild",
        "getPayload",
        "startBuild(newPayload)",
        "getPayload",
        // new L1 origin: nothing on its own; block 3's build start carries the heads and block 2's newPayload
        "startBuild(newPayload)",
        "getPayload",
        "startBuild(newPayload)",
        "getPayload",
      ]);
      // The build start at the new origin told the EL the heads a flush would have: block 2 as head, the safe head.
      const block2 = engine.canonical[2]!;
      expect(states[2]).toEqual({
        headBlockHash: block2,
        safeBlockHash: concluding ? block2 : ctl.heads.finalized.hash,
        finalizedBlockHash: ctl.heads.finalized.hash,
      });
      await ctl.flushForkchoice();
      expect(engine.ops.at(-1)).toBe("insertAsHead");
      expect(engine.canonical).toHaveLength(5);
    }
  });

  it("heads owed when the pipeline runs dry at the new origin are flushed before the step returns", async () => {
    const { engine, ctl } = await buildAcrossOrigins(true, 4);
    expect(engine.ops.at(-1)).toBe("insertAsHead");
    expect(engine.safe).toBe(ctl.heads.safe.hash);
    expect(ctl.forkchoicePending).toBe(false);
  });

  it("heads owed at a new origin are flushed before attributes that do not build on the unsafe head", async () => {
    const log: string[] = [];
    const heads = { pendingSafe: ref(0), unsafe: ref(5) };
    const pipeline = {
      origin: { hash: h("l1"), number: 0, parentHash: h("l0"), timestamp: 0 },
      async step(ps: L2BlockRef): Promise<StepResult> {
        if (this.origin.number === 0) {
          this.origin = { ...this.origin, number: 1 };
          return { kind: "progress" };
        }
        if (ps.number >= 1) return { kind: "eof" };
        return { kind: "attributes", attrs: { parent: ps, concluding: true } as unknown as DerivedAttributes };
      },
    };
    const engine = {
      heads,
      forkchoicePending: true,
      flushForkchoice: async () => {
        log.push("flush");
      },
      async applyDerived(a: DerivedAttributes) {
        log.push(`apply ${a.parent.number + 1}`);
        heads.pendingSafe = ref(a.parent.number + 1);
        return "consolidated" as const;
      },
    };
    const step = new DerivationStep({
      pipeline: pipeline as unknown as DerivationPipeline,
      controller: engine as unknown as EngineController,
      maxSteps: 256,
      turn: () => undefined,
      shouldYield: () => false,
      aborted: () => false,
    });
    expect(await step.run()).toBe(true);
    expect(log).toEqual(["flush", "apply 1"]);
  });
});
