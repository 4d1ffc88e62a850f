import { createMPT } from "@ethereumjs/mpt";
import fc from "fast-check";
import { bytesToHex, fromRlp, toRlp } from "viem";
import { describe, expect, it } from "vitest";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import { type RlpItem, rlpDecode, rlpEncode, rlpEncodeBytes, uintToBytes } from "../../../../src/protocol/block/rlp.js";
import {
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  orderedTrieRoot,
  trieRootBytes,
} from "../../../../src/protocol/block/trie.js";
import { keccakHex } from "../../../../src/protocol/block/keccak.js";
import { runs } from "../../../support/property.js";

type Nested = Uint8Array | Nested[];
const itemArb: fc.Arbitrary<Nested> = fc.letrec<{ item: Nested }>((tie) => ({
  item: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.uint8Array({ maxLength: 80 }),
    fc.array(tie("item"), { maxLength: 5 }),
  ),
})).item;

function toViem(x: Nested): unknown {
  return x instanceof Uint8Array ? bytesToHex(x) : x.map(toViem);
}

describe("rlp", () => {
  it("matches viem's encoder and round-trips", () => {
    fc.assert(
      fc.property(itemArb, (item) => {
        const enc = rlpEncode(item as RlpItem);
        expect(bytesToHex(enc)).toBe(toRlp(toViem(item) as never, "hex"));
        expect(toViem(rlpDecode(enc) as Nested)).toEqual(toViem(item));
        expect(fromRlp(bytesToHex(enc), "hex")).toEqual(toViem(item));
      }),
      { numRuns: runs(300) },
    );
  });

  it("encodes known values", () => {
    expect(bytesToHex(rlpEncode(new Uint8Array(0)))).toBe("0x80");
    expect(bytesToHex(rlpEncode([]))).toBe("0xc0");
    expect(bytesToHex(rlpEncodeBytes(uintToBytes(1024)))).toBe("0x820400");
    expect(bytesToHex(rlpEncodeBytes(uintToBytes(0)))).toBe("0x80");
    expect(bytesToHex(rlpEncodeBytes(Uint8Array.of(0x7f)))).toBe("0x7f");
    expect(keccakHex(rlpEncode([]))).toBe(EMPTY_OMMERS_HASH);
  });

  it("decoder throws only DecodeError on random and truncated input", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        try {
          rlpDecode(b);
        } catch (e) {
          expect(e).toBeInstanceOf(DecodeError);
        }
      }),
      { numRuns: runs(2000) },
    );
    fc.assert(
      fc.property(itemArb, fc.nat(), (item, cut) => {
        const enc = rlpEncode(item as RlpItem);
        if (enc.length < 2) return;
        const t = enc.subarray(0, cut % enc.length);
        expect(() => rlpDecode(t)).toThrow(DecodeError);
      }),
      { numRuns: runs(500) },
    );
  });

  it("rejects non-canonical encodings", () => {
    expect(() => rlpDecode(Uint8Array.of(0x81, 0x05))).toThrow(DecodeError);
    expect(() => rlpDecode(Uint8Array.of(0xb8, 0x01, 0x00))).toThrow(DecodeError);
    expect(() => rlpDecode(Uint8Array.of(0x80, 0x80))).toThrow(DecodeError);
  });
});

describe("trie", () => {
  it("empty root", () => {
    expect(orderedTrieRoot([])).toBe(EMPTY_TRIE_ROOT);
  });

  it("ordered trie root matches @ethereumjs/mpt", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 120 }), { minLength: 1, maxLength: 300 }),
        async (values) => {
          const mpt = await createMPT();
          for (let i = 0; i < values.length; i++)
            await mpt.put(rlpEncodeBytes(uintToBytes(i)), values[i] as Uint8Array);
          expect(orderedTrieRoot(values)).toBe(bytesToHex(mpt.root()));
        },
      ),
      { numRuns: runs(40) },
    );
  });

  it("arbitrary-key trie root matches @ethereumjs/mpt", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 6 }), {
          maxLength: 60,
          selector: (k) => bytesToHex(k),
        }),
        async (keys) => {
          const mpt = await createMPT();
          const pairs = keys.map((key, i) => ({ key, value: Uint8Array.of(i + 1, 7) }));
          for (const p of pairs) await mpt.put(p.key, p.value);
          expect(bytesToHex(trieRootBytes(pairs))).toBe(bytesToHex(mpt.root()));
        },
      ),
      { numRuns: runs(60) },
    );
  });
});
