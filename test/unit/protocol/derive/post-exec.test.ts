/**
 * PostExec transactions (type 0x7D, Sequencer-Defined Metering, active with Lagoon) in batches: carried verbatim
 * through a span batch, a span with one in a block before SDM activation dropped when its channel is read, and a
 * batch holding one before activation invalid; accepted from activation on.
 */
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../../src/core/codec/hex.js";
import { rlpEncode } from "../../../../src/protocol/block/rlp.js";
import {
  channelReaderOptions,
  checkSingularBatch,
  decodeRawSpanBatch,
  deriveSpanBatch,
  encodeSpanBatch,
  SPAN_BATCH_TYPE,
  type SingularBatch,
} from "../../../../src/protocol/derive/index.js";
import { encodeChannel } from "../../../../src/protocol/derive/channel-out.js";
import { readChannel } from "../../../../src/protocol/derive/channel-reader.js";
import { CHAIN_ID, l1, l2, makeConfig, makeTx } from "./fixtures.js";

const L1 = [l1(10), l1(11), l1(12)];
const safe = l2(20, l1(10), 1, l1(10).timestamp + 4);
const next = safe.timestamp + 2;
/** `0x7D ‖ rlp([...])`: the payload is opaque to the rollup node. */
const POST_EXEC = new Uint8Array([0x7d, ...rlpEncode([new Uint8Array([1, 2, 3]), [new Uint8Array([9])]])]);

function batch(timestamp: number, transactions: Uint8Array[]): SingularBatch {
  return { parentHash: safe.hash, epochNum: 10, epochHash: l1(10).hash, timestamp, transactions };
}

function spanChannel(cfg: ReturnType<typeof makeConfig>, blocks: SingularBatch[]) {
  const body = encodeSpanBatch(blocks, {
    genesisL2Time: cfg.genesis.l2_time,
    chainId: CHAIN_ID,
    firstSequenceNumber: 1,
  });
  const data = encodeChannel([{ type: SPAN_BATCH_TYPE, batch: decodeRawSpanBatch(body) }], { compression: "zlib" });
  return { body, read: readChannel(data, channelReaderOptions(cfg, l1(12).timestamp)) };
}

describe("PostExec (0x7D) transactions in batches", () => {
  const blocks = [batch(next, [makeTx("eip1559", 1), POST_EXEC]), batch(next + 2, [POST_EXEC])];

  it("round-trip through a span batch byte for byte, among signed transactions", () => {
    const cfg = makeConfig({ lagoon_time: next });
    const { body } = spanChannel(cfg, blocks);
    const span = deriveSpanBatch(decodeRawSpanBatch(body), cfg.block_time, cfg.genesis.l2_time, CHAIN_ID);
    expect(span.elements.map((e) => e.transactions.map(bytesToHex))).toEqual(
      blocks.map((b) => b.transactions.map(bytesToHex)),
    );
  });

  it("a span batch is read once SDM is active at its blocks, and dropped when a block before activation has one", () => {
    const active = spanChannel(makeConfig({ lagoon_time: next }), blocks).read;
    expect(active.batches).toHaveLength(1);
    expect(active.dropped).toEqual([]);
    for (const cfg of [makeConfig({ lagoon_time: next + 2 }), makeConfig()]) {
      const early = spanChannel(cfg, blocks).read;
      expect(early.batches).toHaveLength(0);
      expect(early.dropped).toEqual([
        { index: 0, reason: `span batch contains PostExec tx at block ts=${next} but SDM is not active` },
      ]);
    }
    // a PostExec only in the blocks from activation on is fine
    const later = spanChannel(makeConfig({ lagoon_time: next + 2 }), [batch(next, []), blocks[1]!]).read;
    expect(later.batches).toHaveLength(1);
  });

  it("a singular batch with one is dropped before SDM and accepted from activation on", () => {
    const b = batch(next, [POST_EXEC]);
    expect(checkSingularBatch(makeConfig(), L1, safe, b, l1(12))).toBe("drop");
    expect(checkSingularBatch(makeConfig({ lagoon_time: next + 2 }), L1, safe, b, l1(12))).toBe("drop");
    expect(checkSingularBatch(makeConfig({ lagoon_time: next - 2 }), L1, safe, b, l1(12))).toBe("accept");
  });
});
