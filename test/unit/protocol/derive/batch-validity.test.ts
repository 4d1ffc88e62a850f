import { describe, expect, it } from "vitest";
import type { L2BlockRef } from "../../../../src/core/types/block-ref.js";
import {
  checkSingularBatch,
  checkSpanBatch,
  checkSpanBatchPrefix,
  decodeRawSpanBatch,
  deriveSpanBatch,
  encodeSpanBatch,
  type SafeBlockLookup,
  type SingularBatch,
  type SpanBatch,
  spanBatchL2Requirements,
} from "../../../../src/protocol/derive/index.js";
import { CHAIN_ID, hash, l1, l2, makeConfig, makeTx } from "./fixtures.js";

const cfg = makeConfig();
const L1 = [l1(10), l1(11), l1(12)];
const safe = l2(20, l1(10), 1, l1(10).timestamp + 4);
const next = safe.timestamp + 2;

function batch(over: Partial<SingularBatch> = {}): SingularBatch {
  return { parentHash: safe.hash, epochNum: 10, epochHash: l1(10).hash, timestamp: next, transactions: [], ...over };
}

describe("checkSingularBatch", () => {
  const inc = l1(12);
  it("accepts a well-formed batch, with user txs", () => {
    expect(checkSingularBatch(cfg, L1, safe, batch({ transactions: [makeTx("eip1559", 1)] }), inc)).toBe("accept");
  });
  it("undecided without L1 blocks", () => {
    expect(checkSingularBatch(cfg, [], safe, batch(), inc)).toBe("undecided");
  });
  it("future/past pre-Holocene vs drop/past under Holocene (by inclusion time)", () => {
    const holo = makeConfig({ holocene_time: inc.timestamp });
    expect(checkSingularBatch(cfg, L1, safe, batch({ timestamp: next + 2 }), inc)).toBe("future");
    expect(checkSingularBatch(holo, L1, safe, batch({ timestamp: next + 2 }), inc)).toBe("drop");
    expect(checkSingularBatch(cfg, L1, safe, batch({ timestamp: next - 2 }), inc)).toBe("drop");
    expect(checkSingularBatch(holo, L1, safe, batch({ timestamp: next - 2 }), inc)).toBe("past");
    const holoLater = makeConfig({ holocene_time: inc.timestamp + 1 });
    expect(checkSingularBatch(holoLater, L1, safe, batch({ timestamp: next + 2 }), inc)).toBe("future");
  });
  it("drops on parent hash, sequencing window, epoch and epoch-hash mismatches", () => {
    expect(checkSingularBatch(cfg, L1, safe, batch({ parentHash: hash(5) }), inc)).toBe("drop");
    expect(checkSingularBatch(cfg, L1, safe, batch(), l1(21))).toBe("drop");
    expect(checkSingularBatch(cfg, L1, safe, batch(), l1(20))).toBe("accept");
    expect(checkSingularBatch(cfg, L1, safe, batch({ epochNum: 9 }), inc)).toBe("drop");
    expect(checkSingularBatch(cfg, L1, safe, batch({ epochNum: 12, epochHash: l1(12).hash }), inc)).toBe("drop");
    expect(checkSingularBatch(cfg, L1, safe, batch({ epochHash: hash(3) }), inc)).toBe("drop");
  });
  it("epoch + 1 needs the next L1 block and its timestamp", () => {
    const b = batch({ epochNum: 11, epochHash: l1(11).hash });
    expect(checkSingularBatch(cfg, [l1(10)], safe, b, inc)).toBe("undecided");
    // next (= L1(10).ts + 6) < L1(11).ts (= L1(10).ts + 12): L2 time before its origin
    expect(checkSingularBatch(cfg, L1, safe, b, inc)).toBe("drop");
    const late = l2(20, l1(10), 5, l1(11).timestamp);
    expect(checkSingularBatch(cfg, L1, late, { ...b, parentHash: late.hash, timestamp: late.timestamp + 2 }, inc)).toBe(
      "accept",
    );
  });
  it("applies the sequencer drift (config value, 1800 from Fjord by origin time)", () => {
    const drift = makeConfig({ max_sequencer_drift: 4 });
    const far = l2(20, l1(10), 1, l1(10).timestamp + 4);
    const b = { ...batch(), parentHash: far.hash, timestamp: far.timestamp + 2 }; // 6 s past origin > 4
    expect(checkSingularBatch(drift, L1, far, { ...b, transactions: [makeTx("legacy", 1)] }, inc)).toBe("drop");
    expect(checkSingularBatch(drift, L1, far, b, inc)).toBe("accept"); // empty, before next L1 time
    expect(checkSingularBatch(drift, [l1(10)], far, b, inc)).toBe("undecided");
    const atNext = l2(20, l1(10), 1, l1(11).timestamp - 2);
    expect(
      checkSingularBatch(drift, L1, atNext, { ...b, parentHash: atNext.hash, timestamp: atNext.timestamp + 2 }, inc),
    ).toBe("drop");
    const fjord = makeConfig({ max_sequencer_drift: 4, fjord_time: 0 });
    expect(checkSingularBatch(fjord, L1, far, { ...b, transactions: [makeTx("legacy", 1)] }, inc)).toBe("accept");
  });
  it("transaction rules: empty, deposit, set-code before Isthmus, activation blocks", () => {
    expect(checkSingularBatch(cfg, L1, safe, batch({ transactions: [new Uint8Array(0)] }), inc)).toBe("drop");
    expect(checkSingularBatch(cfg, L1, safe, batch({ transactions: [new Uint8Array([0x7e, 0xc0])] }), inc)).toBe(
      "drop",
    );
    const setCode = batch({ transactions: [makeTx("eip7702", 1)] });
    expect(checkSingularBatch(cfg, L1, safe, setCode, inc)).toBe("drop");
    expect(checkSingularBatch(makeConfig({ isthmus_time: 0 }), L1, safe, setCode, inc)).toBe("accept");
    const jovian = makeConfig({ jovian_time: next });
    expect(checkSingularBatch(jovian, L1, safe, batch({ transactions: [makeTx("legacy", 1)] }), inc)).toBe("drop");
    expect(checkSingularBatch(jovian, L1, safe, batch(), inc)).toBe("accept");
    const lagoon = makeConfig({ lagoon_time: next });
    expect(checkSingularBatch(lagoon, L1, safe, batch({ transactions: [makeTx("legacy", 1)] }), inc)).toBe("drop");
    // Karst: a user transaction in the activation block's batch drops it; the empty batch and the next block pass.
    const karst = makeConfig({ jovian_time: 0, karst_time: next });
    expect(checkSingularBatch(karst, L1, safe, batch({ transactions: [makeTx("eip1559", 1)] }), inc)).toBe("drop");
    expect(checkSingularBatch(karst, L1, safe, batch(), inc)).toBe("accept");
    const afterKarst = makeConfig({ jovian_time: 0, karst_time: next - 2 });
    expect(checkSingularBatch(afterKarst, L1, safe, batch({ transactions: [makeTx("eip1559", 1)] }), inc)).toBe(
      "accept",
    );
  });
});

function span(blocks: SingularBatch[]): SpanBatch {
  const body = encodeSpanBatch(blocks, {
    genesisL2Time: cfg.genesis.l2_time,
    chainId: CHAIN_ID,
    firstSequenceNumber: 1,
  });
  return deriveSpanBatch(decodeRawSpanBatch(body), cfg.block_time, cfg.genesis.l2_time, CHAIN_ID);
}

describe("span batch checks", () => {
  const inc = l1(12);
  const blocks = [
    batch({ transactions: [makeTx("eip1559", 1)] }),
    batch({ timestamp: next + 2 }),
    batch({ timestamp: next + 4 }),
  ];

  it("accepts a span continuing the safe head", () => {
    expect(checkSpanBatchPrefix(cfg, L1, safe, span(blocks), inc).validity).toBe("accept");
    expect(checkSpanBatch(cfg, L1, safe, span(blocks), inc).validity).toBe("accept");
  });

  it("drops on a bad parent check, a pre-Delta origin, and an unknown-hash last origin", () => {
    expect(checkSpanBatch(cfg, L1, safe, span(blocks.map((b) => ({ ...b, parentHash: hash(9) }))), inc).validity).toBe(
      "drop",
    );
    expect(checkSpanBatch(makeConfig({ delta_time: 10 ** 12 }), L1, safe, span(blocks), inc).validity).toBe("drop");
    expect(checkSpanBatch(cfg, L1, safe, span(blocks.map((b) => ({ ...b, epochHash: hash(4) }))), inc).validity).toBe(
      "drop",
    );
    expect(checkSpanBatch(cfg, [l1(9)], safe, span(blocks), inc).validity).toBe("undecided");
  });

  it("future pre-Holocene, dropped under Holocene", () => {
    const later = span(blocks.map((b) => ({ ...b, timestamp: b.timestamp + 2 })));
    expect(checkSpanBatch(cfg, L1, safe, later, inc).validity).toBe("future");
    expect(checkSpanBatch(makeConfig({ holocene_time: 0 }), L1, safe, later, inc).validity).toBe("drop");
  });

  it("overlapping spans need the safe chain; match → accept, mismatch → drop", () => {
    const parent: L2BlockRef = l2(19, l1(10), 0, safe.timestamp - 2);
    const overlap = [
      { ...batch({ timestamp: safe.timestamp, transactions: [makeTx("legacy", 7)] }), parentHash: parent.hash },
      ...blocks.slice(0, 2),
    ];
    const s = span(overlap);
    expect(spanBatchL2Requirements(cfg, safe, s)).toEqual([19, 20]);
    const none = checkSpanBatch(cfg, L1, safe, s, inc);
    expect(none.validity).toBe("undecided");
    expect(none.missing).toEqual([19]);
    const deposit = new Uint8Array([0x7e, 0xc0]);
    const lookup = (txs: Uint8Array[]): SafeBlockLookup => ({
      l2BlockRefByNumber: (n) => (n === 19 ? parent : undefined),
      safeBlockByNumber: (n) => (n === 20 ? { ref: safe, transactions: [deposit, ...txs] } : undefined),
    });
    expect(checkSpanBatch(cfg, L1, safe, s, inc, lookup([makeTx("legacy", 7)])).validity).toBe("accept");
    expect(checkSpanBatch(cfg, L1, safe, s, inc, lookup([makeTx("legacy", 8)])).validity).toBe("drop");
    expect(checkSpanBatch(cfg, L1, safe, s, inc, lookup([])).validity).toBe("drop");
  });

  it("drops elements with deposits or pre-Isthmus set-code txs", () => {
    const bad = span([blocks[0]!, batch({ timestamp: next + 2, transactions: [makeTx("eip7702", 3)] })]);
    expect(checkSpanBatch(cfg, L1, safe, bad, inc).validity).toBe("drop");
    expect(checkSpanBatch(makeConfig({ isthmus_time: 0 }), L1, safe, bad, inc).validity).toBe("accept");
  });
});
