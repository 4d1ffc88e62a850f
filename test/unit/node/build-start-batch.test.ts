/**
 * A derived block is sealed at once, so its build start asks the port to bring the sealed payload back with it
 * (the Engine API client then predicts the payload id and batches getPayload: test/integration/io/
 * engine-combined-calls.test.ts). The node uses that payload as it would one sealed on its own; a sequenced block
 * (filled from the pool over time) never asks for it.
 */
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { EngineController } from "../../../src/node/engine/engine-controller.js";
import type { BuildStart, BuildStarted } from "../../../src/node/ports.js";
import { derivedChild, genesisOrigin } from "./derived-fixture.js";
import { FakeEngine, fakeRefFromPayload, testRollupConfig } from "./fakes.js";

const cfg = testRollupConfig();
const origin = genesisOrigin(cfg);

/** Brings the sealed payload back with a build start sealed at once (or not, `bringSealed` false). */
class SealingEngine extends FakeEngine {
  sealAtOnce: boolean[] = [];
  bringSealed = true;

  override async startBuild(req: BuildStart): Promise<BuildStarted> {
    this.sealAtOnce.push(req.sealAtOnce);
    const out = await super.startBuild(req);
    const fc = out.forkchoice;
    if (!req.sealAtOnce || !this.bringSealed || fc === undefined || fc instanceof Error || fc.payloadId === null) {
      return out;
    }
    return { ...out, sealed: await this.sealPayload(fc.payloadId, req.attrs.fields.timestamp) };
  }
}

function rig() {
  const engine = new SealingEngine(cfg);
  const ctl = new EngineController({ engine, cfg, logger: silentLogger, refFromPayload: fakeRefFromPayload(cfg) });
  return { engine, ctl };
}

describe("EngineController: a derived block's sealed payload comes with its build start", () => {
  it("derived blocks ask for it and use it: no getPayload of their own", async () => {
    const { engine, ctl } = rig();
    for (let i = 0; i < 3; i++) {
      expect(await ctl.applyDerived(derivedChild(cfg, origin, ctl.heads.pendingSafe))).toBe("built");
    }
    await ctl.flushForkchoice();
    expect(engine.sealAtOnce).toEqual([true, true, true]);
    expect(engine.calls.getPayload).toBe(3); // each once, inside its build start
    expect(engine.canonical).toHaveLength(4);
    expect(engine.canonical[3]).toBe(ctl.heads.safe.hash);
  });

  it("without it the node seals on its own with the id the build start returned", async () => {
    const { engine, ctl } = rig();
    engine.bringSealed = false;
    expect(await ctl.applyDerived(derivedChild(cfg, origin, ctl.heads.pendingSafe))).toBe("built");
    await ctl.flushForkchoice();
    expect(engine.calls.getPayload).toBe(1);
    expect(engine.canonical).toHaveLength(2);
  });

  it("a sequenced block (pool allowed) never asks for it", async () => {
    const { engine, ctl } = rig();
    const parent = ctl.heads.unsafe;
    const d = derivedChild(cfg, origin, parent);
    const attrs = { ...d.attributes, fields: { ...d.attributes.fields, noTxPool: false } };
    expect(await ctl.buildAndInsert(attrs, parent, d)).toBeDefined();
    expect(engine.sealAtOnce).toEqual([false]);
  });
});
