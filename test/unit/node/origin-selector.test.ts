import { describe, expect, it } from "vitest";
import type { SupernodeError } from "../../../src/core/errors/supernode-error.js";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import { selectNextOrigin, sequencerNoTxPool } from "../../../src/node/sequencer/origin-selector.js";
import { FakeL1, GENESIS_TIME, h, testRollupConfig } from "./fakes.js";

// L1 block k has timestamp GENESIS_TIME + 2k (fakes.ts); a 10 s drift keeps the numbers small.
const cfg = testRollupConfig({ max_sequencer_drift: 10, ecotone_time: GENESIS_TIME + 100 });

function head(l1: FakeL1, origin: number, ts: number): L2BlockRef {
  return {
    hash: h(`l2-${ts}`),
    number: (ts - GENESIS_TIME) / 2,
    parentHash: h(`l2-${ts - 2}`),
    timestamp: ts,
    l1origin: { hash: l1.blocks[origin]!.hash, number: origin },
    sequenceNumber: 0,
  };
}

describe("selectNextOrigin (op-node FindL1Origin)", () => {
  it("adopts the next L1 block once the new block's timestamp reaches it, never a future one — recover mode too", async () => {
    const l1 = new FakeL1(5); // L1 block 3 at +6
    for (const recover of [false, true]) {
      const o = { l1Confs: 0, recover };
      // Next block ts = +4 < L1 block 3's +6: keep origin 2.
      expect((await selectNextOrigin(cfg, l1, head(l1, 2, GENESIS_TIME + 2), o)).number).toBe(2);
      // ts = +6: adopt 3.
      expect((await selectNextOrigin(cfg, l1, head(l1, 2, GENESIS_TIME + 4), o)).number).toBe(3);
    }
  });

  it("at the L1 tip keeps the current origin until the drift runs out, then asks for the next (temporary)", async () => {
    const l1 = new FakeL1(2); // tip: L1 block 2 at +4
    const o = { l1Confs: 0, recover: true };
    expect((await selectNextOrigin(cfg, l1, head(l1, 2, GENESIS_TIME + 12), o)).number).toBe(2); // drift 10
    const err = (await selectNextOrigin(cfg, l1, head(l1, 2, GENESIS_TIME + 14), o).catch((e) => e)) as SupernodeError;
    expect([err.code, err.severity]).toEqual(["NEXT_ORIGIN_REQUIRED", "temporary"]);
  });

  it("respects the sequencer's L1 confirmation depth and rejects an orphaned next origin", async () => {
    const l1 = new FakeL1(4);
    const parent = head(l1, 2, GENESIS_TIME + 8);
    expect((await selectNextOrigin(cfg, l1, parent, { l1Confs: 1, recover: false })).number).toBe(3);
    expect((await selectNextOrigin(cfg, l1, parent, { l1Confs: 2, recover: false })).number).toBe(2);
    l1.blocks[3] = { ...l1.blocks[3]!, parentHash: h("elsewhere") };
    const err = (await selectNextOrigin(cfg, l1, parent, { l1Confs: 0, recover: false }).catch(
      (e) => e,
    )) as SupernodeError;
    expect([err.code, err.severity]).toEqual(["L1_ORIGIN_ORPHANED", "reset"]);
  });
});

describe("sequencerNoTxPool", () => {
  it("recover mode, past the drift and fork activation blocks build without the pool", () => {
    const origin = { hash: h("o"), number: 1, parentHash: h("p"), timestamp: GENESIS_TIME + 2 };
    expect(sequencerNoTxPool(cfg, GENESIS_TIME + 4, origin, false)).toBe(false);
    expect(sequencerNoTxPool(cfg, GENESIS_TIME + 4, origin, true)).toBe(true);
    expect(sequencerNoTxPool(cfg, GENESIS_TIME + 14, origin, false)).toBe(true); // 12 > drift 10
    const late = { ...origin, timestamp: GENESIS_TIME + 98 };
    expect(sequencerNoTxPool(cfg, GENESIS_TIME + 100, late, false)).toBe(true); // Ecotone activation block
    expect(sequencerNoTxPool(cfg, GENESIS_TIME + 102, late, false)).toBe(false);
  });
});
