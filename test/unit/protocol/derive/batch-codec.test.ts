import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeTransaction } from "viem";
import { bytesToHex, hexToBytes } from "../../../../src/core/codec/hex.js";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import {
  decodeBatch,
  decodeRawSpanBatch,
  decodeSingularBatch,
  deriveSpanBatch,
  encodeBatch,
  encodeRawSpanBatch,
  encodeSingularBatch,
  encodeSpanBatch,
  type SingularBatch,
  spanBatchFromSingularBatches,
  splitFullTx,
  toSingularBatches,
} from "../../../../src/protocol/derive/index.js";
import { ALL_KINDS, CHAIN_ID, hash, l1, l2, makeTx } from "./fixtures.js";
import { runs } from "../../../support/property.js";

const hex = (b: Uint8Array) => bytesToHex(b);
const hashArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b));
const singularArb: fc.Arbitrary<SingularBatch> = fc.record({
  parentHash: hashArb,
  epochNum: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  epochHash: hashArb,
  timestamp: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  transactions: fc.array(fc.uint8Array({ minLength: 0, maxLength: 80 }), { maxLength: 5 }),
});
const kindArb = fc.constantFrom(...ALL_KINDS);

function sameBatch(a: SingularBatch, b: SingularBatch): void {
  expect({ ...a, transactions: a.transactions.map(hex) }).toEqual({ ...b, transactions: b.transactions.map(hex) });
}

describe("singular batch", () => {
  it("round-trips (property)", () => {
    fc.assert(
      fc.property(singularArb, (b) => {
        sameBatch(decodeSingularBatch(encodeSingularBatch(b)), b);
        const typed = encodeBatch({ type: 0, batch: b });
        expect(typed[0]).toBe(0);
        const back = decodeBatch(typed);
        expect(back.type).toBe(0);
        sameBatch(back.batch as SingularBatch, b);
      }),
    );
  });

  it("rejects wrong hash sizes, extra fields, non-canonical integers", () => {
    const b: SingularBatch = { parentHash: hash(1), epochNum: 5, epochHash: hash(2), timestamp: 9, transactions: [] };
    const enc = encodeSingularBatch(b);
    // 5 → 0x05; a non-canonical encoding 0x8105 is rejected.
    const nonCanon = hex(enc).replace(`a0${hash(1).slice(2)}05`, `a0${hash(1).slice(2)}8105`);
    expect(nonCanon).not.toBe(hex(enc));
    const bytes = Uint8Array.from(Buffer.from(nonCanon.slice(2), "hex"));
    expect(bytes[0]).toBe(0xf8); // long-form list header: the length byte follows
    bytes[1]! += 1; // list length grew by one
    expect(() => decodeSingularBatch(bytes)).toThrow(/non-canonical/);
    expect(() => decodeBatch(new Uint8Array([7, 0xc0]))).toThrow(/unrecognized batch type/);
    // 31-byte parent hash
    const shortHash = Uint8Array.from(
      Buffer.from(
        hex(enc)
          .slice(2)
          .replace(`a0${hash(1).slice(2)}`, `9f${hash(1).slice(4)}`),
        "hex",
      ),
    );
    shortHash[1]! -= 1;
    expect(() => decodeSingularBatch(shortHash)).toThrow(/32-byte/);
    // a sixth list element
    const extra = Uint8Array.from([...enc, 0x80]);
    extra[1]! += 1;
    expect(() => decodeSingularBatch(extra)).toThrow(/expected 5/);
    expect(() => decodeBatch(new Uint8Array(0))).toThrow(DecodeError);
  });
});

describe("span batch", () => {
  const origin = l1(100);
  function blocks(kinds: (typeof ALL_KINDS)[number][][], startTs = 1_000_010): SingularBatch[] {
    let seed = 1;
    return kinds.map((ks, i) => ({
      parentHash: i === 0 ? hash(77) : hash(0),
      epochNum: 100 + Math.floor(i / 2),
      epochHash: l1(100 + Math.floor(i / 2)).hash,
      timestamp: startTs + 2 * i,
      transactions: ks.map((k) => makeTx(k, seed++)),
    }));
  }

  it("reconstructs every transaction type byte for byte", () => {
    const input = blocks([[...ALL_KINDS], ["eip1559", "legacy"], [], ["eip7702", "create", "legacy-unprotected"]]);
    const body = encodeSpanBatch(input, { genesisL2Time: 1_000_000, chainId: CHAIN_ID, firstSequenceNumber: 0 });
    const raw = decodeRawSpanBatch(body);
    expect(hex(encodeRawSpanBatch(raw))).toBe(hex(body));
    const span = deriveSpanBatch(raw, 2, 1_000_000, CHAIN_ID);
    expect(span.elements.map((e) => e.timestamp)).toEqual(input.map((b) => b.timestamp));
    expect(span.elements.map((e) => e.epochNum)).toEqual(input.map((b) => b.epochNum));
    expect(span.elements.map((e) => e.transactions.map(hex))).toEqual(input.map((b) => b.transactions.map(hex)));
    expect(hex(span.parentCheck)).toBe(hash(77).slice(0, 42));
    expect(hex(span.l1OriginCheck)).toBe(input.at(-1)!.epochHash.slice(0, 42));
  });

  it("round-trips random blocks of random tx kinds (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(kindArb, { maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 1 }),
        (kinds, seq) => {
          const input = blocks(kinds);
          const body = encodeSpanBatch(input, {
            genesisL2Time: 1_000_000,
            chainId: CHAIN_ID,
            firstSequenceNumber: seq,
          });
          const raw = decodeRawSpanBatch(body);
          expect(hex(encodeRawSpanBatch(raw))).toBe(hex(body));
          const span = deriveSpanBatch(raw, 2, 1_000_000, CHAIN_ID);
          expect(span.elements.map((e) => e.transactions.map(hex))).toEqual(input.map((b) => b.transactions.map(hex)));
          // Origin numbers: with the first origin bit unset the decrement happens only on later bits.
          expect(span.elements.at(-1)!.epochNum).toBe(input.at(-1)!.epochNum);
        },
      ),
      { numRuns: runs(60) },
    );
  });

  it("reconstructs signatures whose r or s have leading zero bytes", () => {
    const sig = { r: "0x01", s: `0x00${"ff".repeat(31)}`, yParity: 1 } as const;
    const to = `0x${"12".repeat(20)}` as const;
    const txs = [
      serializeTransaction({ type: "eip1559", chainId: 901, nonce: 0, maxFeePerGas: 1n, gas: 21000n, to }, sig),
      serializeTransaction(
        { type: "legacy", chainId: 901, nonce: 300, gasPrice: 1n, gas: 21000n, to },
        { r: `0x${"80".repeat(32)}`, s: "0x7f", v: 901n * 2n + 35n },
      ),
      serializeTransaction(
        { type: "eip2930", chainId: 901, nonce: 1, gasPrice: 0n, gas: 0n, to },
        { ...sig, r: "0x00" },
      ),
    ].map((h) => hexToBytes(h));
    const block = { ...blocks([[]])[0]!, transactions: txs };
    const body = encodeSpanBatch([block], { genesisL2Time: 1_000_000, chainId: CHAIN_ID, firstSequenceNumber: 0 });
    const span = deriveSpanBatch(decodeRawSpanBatch(body), 2, 1_000_000, CHAIN_ID);
    expect(span.elements[0]!.transactions.map(hex)).toEqual(txs.map(hex));
  });

  it("refuses txs the format cannot carry", () => {
    const blob = new Uint8Array([3, 0xc0]);
    expect(() => splitFullTx(blob, CHAIN_ID)).toThrow(DecodeError);
    expect(() => splitFullTx(new Uint8Array([0x7e, 0xc0]), CHAIN_ID)).toThrow(DecodeError);
    expect(() => splitFullTx(makeTx("legacy", 3, 5n), CHAIN_ID)).toThrow(/chain ID/);
    expect(() => splitFullTx(makeTx("eip1559", 3, 5n), CHAIN_ID)).toThrow(/chain ID/);
  });

  it("drops (DecodeError from derive) a set-code tx without recipient and unknown tx types", () => {
    const input = blocks([["eip7702"]]);
    const raw = spanBatchFromSingularBatches(input, {
      genesisL2Time: 1_000_000,
      chainId: CHAIN_ID,
      firstSequenceNumber: 0,
    });
    const asCreation = {
      ...raw,
      txs: { ...raw.txs, contractCreationBits: new Uint8Array([1]), tos: new Uint8Array(0) },
    };
    expect(() => deriveSpanBatch(asCreation, 2, 1_000_000, CHAIN_ID)).toThrow(/required/);
    const badType = {
      ...raw,
      txs: {
        ...raw.txs,
        txTypes: Uint8Array.of(9),
        txData: Uint8Array.of(9, 0xc0),
        txDataOffsets: Uint32Array.of(0, 2),
      },
    };
    expect(() => deriveSpanBatch(badType, 2, 1_000_000, CHAIN_ID)).toThrow(DecodeError);
  });

  it("rejects empty and oversized span batches and overlong bitfields", () => {
    const prefix = [0, 0, ...new Array(40).fill(0)];
    expect(() => decodeRawSpanBatch(new Uint8Array([...prefix, 0]))).toThrow(/empty/);
    // block_count = 10,000,001 (uvarint 0x81 0xad 0xe2 0x04)
    expect(() => decodeRawSpanBatch(new Uint8Array([...prefix, 0x81, 0xad, 0xe2, 0x04]))).toThrow(/limit/);
    // 1 block, origin bits 0x02 has 2 bits > 1
    expect(() => decodeRawSpanBatch(new Uint8Array([...prefix, 1, 2, 0]))).toThrow(/bits/);
  });

  it("only throws DecodeError on random or truncated input (property)", () => {
    const body = encodeSpanBatch(blocks([[...ALL_KINDS], ["legacy"]]), {
      genesisL2Time: 1_000_000,
      chainId: CHAIN_ID,
      firstSequenceNumber: 0,
    });
    fc.assert(
      fc.property(
        fc.nat(),
        fc.uint8Array({ maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        (cut, junk, pos, val) => {
          const mutated = body.slice();
          mutated[pos % mutated.length] = val;
          for (const input of [body.subarray(0, cut % body.length), junk, mutated]) {
            for (const fn of [
              () => deriveSpanBatch(decodeRawSpanBatch(input), 2, 0, CHAIN_ID),
              () => decodeBatch(new Uint8Array([1, ...input])),
              () => decodeBatch(new Uint8Array([0, ...input])),
            ]) {
              try {
                fn();
              } catch (e) {
                expect(e).toBeInstanceOf(DecodeError);
              }
            }
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it("converts to singular batches relative to the safe head", () => {
    const input = blocks([["eip1559"], [], ["legacy"], []]);
    const span = deriveSpanBatch(
      decodeRawSpanBatch(
        encodeSpanBatch(input, { genesisL2Time: 1_000_000, chainId: CHAIN_ID, firstSequenceNumber: 0 }),
      ),
      2,
      1_000_000,
      CHAIN_ID,
    );
    const safe = l2(5, l1(100), 0, input[1]!.timestamp);
    const res = toSingularBatches(span, [l1(100), l1(101)], safe);
    expect(res.ok).toBe(true);
    if (res.ok) {
      expect(res.batches.map((b) => b.timestamp)).toEqual([input[2]!.timestamp, input[3]!.timestamp]);
      expect(res.batches.map((b) => b.epochHash)).toEqual([l1(101).hash, l1(101).hash]);
    }
    expect(toSingularBatches(span, [l1(100)], safe).ok).toBe(false);
    expect(toSingularBatches(span, [l1(100), l1(101)], l2(5, l1(102), 0, input[1]!.timestamp)).ok).toBe(false);
    void origin;
  });
});
