import { describe, expect, it } from "vitest";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import { DerivationStep } from "../../../src/node/derivation-step.js";
import type { DerivationPipeline, StepResult } from "../../../src/node/derivation/types.js";
import type { DerivedAttributes, EngineController } from "../../../src/node/engine/engine-controller.js";
import { h } from "./fakes.js";

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
    engine,
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
