import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import { BLOB_SIZE, decodeBlob, encodeBlob, MAX_BLOB_DATA_SIZE } from "../../../../src/protocol/l1/blob.js";
import { runs } from "../../../support/property.js";

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const ff = (n: number): number[] => new Array(n).fill(0xff);

/** Byte equality without vitest's slow deep diff of big arrays. */
function same(a: Uint8Array, b: Uint8Array): void {
  expect(a.length).toBe(b.length);
  expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
}

function blobWith(prefix: number[]): Uint8Array {
  const b = new Uint8Array(BLOB_SIZE);
  b.set(prefix);
  return b;
}

describe("blob codec (op-node §8 vectors)", () => {
  it("decode vectors", () => {
    expect(decodeBlob(blobWith([]))).toEqual(new Uint8Array(0));
    expect(decodeBlob(blobWith([0, 0, 0, 0, 1]))).toEqual(bytes(0));
    same(decodeBlob(blobWith([0, 0, 1, 0xfb, 0xfc])), new Uint8Array(MAX_BLOB_DATA_SIZE));
    expect(() => decodeBlob(blobWith([0, 0, 1, 0xfb, 0xfd]))).toThrow(DecodeError);
    expect(decodeBlob(blobWith([0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff]))).toEqual(
      bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff),
    );
    expect(decodeBlob(blobWith([0, 0, 0, 0, 0x1b, ...ff(27)]))).toEqual(bytes(...ff(27)));
    expect(decodeBlob(blobWith([0x3f, 0, 0, 0, 0x20, ...ff(27), 0x30, ...ff(4)]))).toEqual(bytes(...ff(32)));
  });

  it("encode vectors", () => {
    same(encodeBlob(new Uint8Array(0)), blobWith([]));
    same(encodeBlob(new Uint8Array(MAX_BLOB_DATA_SIZE)), blobWith([0, 0, 1, 0xfb, 0xfc]));
    expect(() => encodeBlob(new Uint8Array(MAX_BLOB_DATA_SIZE + 1))).toThrow(DecodeError);
    same(encodeBlob(bytes(...ff(27))), blobWith([0, 0, 0, 0, 0x1b, ...ff(27)]));
    same(encodeBlob(bytes(...ff(28))), blobWith([0x3f, 0, 0, 0, 0x1c, ...ff(27), 0x30]));
  });

  it("rejects bad version, size and extraneous data", () => {
    expect(() => decodeBlob(blobWith([0, 1]))).toThrow(/version/);
    expect(() => decodeBlob(new Uint8Array(100))).toThrow(DecodeError);
    expect(() => decodeBlob(blobWith([0x30, 0, 0, 0, 0]))).toThrow(/extraneous/);
    expect(() => decodeBlob(blobWith([0x01, 0, 0, 0, 0]))).toThrow(/extraneous/);
    const b = new Uint8Array(BLOB_SIZE);
    for (let i = 5; i < 128; i++) {
      b.fill(0);
      b[i] = 1;
      expect(() => decodeBlob(b)).toThrow(DecodeError);
    }
    for (let i = 128; i < BLOB_SIZE; i += 4999) {
      b.fill(0);
      b[i] = 1;
      expect(() => decodeBlob(b)).toThrow(DecodeError);
    }
    const top = encodeBlob(bytes(1, 2, 3));
    top[32 * 2] = 0x80;
    expect(() => decodeBlob(top)).toThrow(/top bits/);
  });

  it("round-trips arbitrary data", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (d) => {
        same(decodeBlob(encodeBlob(d)), d);
      }),
      { numRuns: runs(80) },
    );
    const big = new Uint8Array(MAX_BLOB_DATA_SIZE).map((_, i) => (i * 7919) & 0xff);
    same(decodeBlob(encodeBlob(big)), big);
  });

  it("decoder throws only DecodeError on corrupted blobs", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.nat(BLOB_SIZE - 1), fc.nat(255), (d, pos, val) => {
        const b = encodeBlob(d);
        b[pos] = val;
        try {
          decodeBlob(b);
        } catch (e) {
          expect(e).toBeInstanceOf(DecodeError);
        }
      }),
      { numRuns: runs(100) },
    );
  });
});
