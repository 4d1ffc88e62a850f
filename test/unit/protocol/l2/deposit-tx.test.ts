import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../../src/core/codec/hex.js";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import type { Address, Hash } from "../../../../src/core/types/primitives.js";
import { keccakHex } from "../../../../src/protocol/block/keccak.js";
import { validateRpcBlock } from "../../../../src/protocol/block/l1-block-validate.js";
import { parseRpcReceipt } from "../../../../src/protocol/block/receipt.js";
import { l2BlockFactsFromRpc } from "../../../../src/protocol/l2/block-ref.js";
import { decodeSignedTx } from "../../../../src/protocol/l1/signed-tx.js";
import {
  type DepositTx,
  decodeDepositTx,
  depositTxHash,
  encodeDepositTx,
} from "../../../../src/protocol/l2/deposit-tx.js";
import { runs } from "../../../support/property.js";

const bytesArb = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => bytesToHex(b));
const depositArb: fc.Arbitrary<DepositTx> = fc.record({
  sourceHash: bytesArb(32) as fc.Arbitrary<Hash>,
  from: bytesArb(20) as fc.Arbitrary<Address>,
  to: fc.option(bytesArb(20) as fc.Arbitrary<Address>, { nil: null }),
  mint: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
  value: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
  gas: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  isSystemTx: fc.boolean(),
  data: fc.uint8Array({ maxLength: 200 }).map((b) => bytesToHex(b)),
});

describe("deposit transaction (0x7E)", () => {
  it("encode → decode round trip; hash is keccak of the encoding", () => {
    fc.assert(
      fc.property(depositArb, (d) => {
        const enc = encodeDepositTx(d);
        expect(enc[0]).toBe(0x7e);
        expect(decodeDepositTx(enc)).toEqual(d);
        expect(depositTxHash(d)).toBe(keccakHex(enc));
      }),
      { numRuns: runs(300) },
    );
  });

  it("decoders throw only DecodeError on random or truncated input", () => {
    fc.assert(
      fc.property(depositArb, fc.nat(), (d, cut) => {
        const enc = encodeDepositTx(d);
        expect(() => decodeDepositTx(enc.subarray(0, cut % enc.length))).toThrow(DecodeError);
      }),
      { numRuns: runs(300) },
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom(0x7e, 0x01, 0x02, 0x03, 0x04, 0xf8, 0xc5),
        (b, t) => {
          const raw = new Uint8Array([t, ...b]);
          for (const dec of [decodeDepositTx, decodeSignedTx]) {
            try {
              dec(raw);
            } catch (e) {
              expect(e).toBeInstanceOf(DecodeError);
            }
          }
        },
      ),
      { numRuns: runs(1000) },
    );
  });

  it("JSON parsers (block, receipt, L2 block facts) throw only DecodeError on arbitrary JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (j) => {
        for (const parse of [validateRpcBlock, parseRpcReceipt, l2BlockFactsFromRpc]) {
          try {
            parse(j);
          } catch (e) {
            expect(e).toBeInstanceOf(DecodeError);
          }
        }
      }),
      { numRuns: runs(300) },
    );
  });
});
