/**
 * A verifier a few blocks behind its gossiped unsafe head: an unsafe block that extends the head leaves the blocks
 * below it canonical, so the consolidator's read-ahead of them stays good (one header read per block, not two).
 */
import { describe, expect, it } from "vitest";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import { silentLogger } from "../../../src/core/logger.js";
import { EngineController } from "../../../src/node/engine/engine-controller.js";
import { genesisL2Ref } from "../../../src/node/engine/heads.js";
import { derivedChild, genesisOrigin } from "./derived-fixture.js";
import { FakeEngine, fakeRefFromPayload, testRollupConfig } from "./fakes.js";

const cfg = testRollupConfig();
const origin = genesisOrigin(cfg);
const controller = (engine: FakeEngine) =>
  new EngineController({ engine, cfg, logger: silentLogger, refFromPayload: fakeRefFromPayload(cfg) });

/** Blocks 1…n as a sequencer built them: their envelopes in order. */
async function sequencedBlocks(n: number) {
  const engine = new FakeEngine(cfg);
  const seq = controller(engine);
  let parent: L2BlockRef = genesisL2Ref(cfg);
  for (let i = 1; i <= n; i++) {
    expect(await seq.applyDerived(derivedChild(cfg, origin, parent))).toBe("built");
    parent = seq.heads.safe;
  }
  await seq.flushForkchoice();
  return engine.canonical.slice(1).map((h) => engine.byHash.get(h)!);
}

describe("EngineController: read-ahead of existing blocks while unsafe blocks arrive", () => {
  it("consolidates a block read ahead after an unsafe block extended the head, without reading it again", async () => {
    const blocks = await sequencedBlocks(4);
    const engine = new FakeEngine(cfg);
    const ver = controller(engine);
    const refOf = fakeRefFromPayload(cfg);
    for (const env of blocks.slice(0, 3)) expect(await ver.insertUnsafePayload(env, refOf(env))).toBe("inserted");
    // Block 1 is read alone, blocks 2…3 ahead in one batch.
    expect(await ver.applyDerived(derivedChild(cfg, origin, genesisL2Ref(cfg)))).toBe("consolidated");
    expect(engine.calls.headersByNumber).toBe(2);
    // Block 4 arrives by gossip (it extends the head: blocks 1…3 stay canonical).
    expect(await ver.insertUnsafePayload(blocks[3]!, refOf(blocks[3]!))).toBe("inserted");
    expect(await ver.applyDerived(derivedChild(cfg, origin, ver.heads.safe))).toBe("consolidated");
    expect(ver.heads.safe.hash).toBe(blocks[1]!.executionPayload.blockHash);
    expect(engine.calls.headersByNumber).toBe(2);
  });
});
