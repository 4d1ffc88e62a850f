import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../../src/core/codec/hex.js";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import {
  encodeFrame,
  encodeFrames,
  type Frame,
  MAX_FRAME_LEN,
  parseFrames,
  pruneFrameQueue,
  splitIntoFrames,
} from "../../../../src/protocol/derive/index.js";

const ID_A = `0x${"0a".repeat(16)}` as const;
const ID_B = `0x${"0b".repeat(16)}` as const;

const frameArb: fc.Arbitrary<Frame> = fc.record({
  id: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => bytesToHex(b)),
  frameNumber: fc.integer({ min: 0, max: 0xffff }),
  data: fc.uint8Array({ maxLength: 300 }),
  isLast: fc.boolean(),
});

function f(id: typeof ID_A, n: number, last = false, data = new Uint8Array([n])): Frame {
  return { id, frameNumber: n, data, isLast: last };
}

describe("frames", () => {
  it("encodes the documented layout", () => {
    const bytes = encodeFrame({ id: ID_A, frameNumber: 0x0102, data: new Uint8Array([0xde, 0xad]), isLast: true });
    expect(bytesToHex(bytes)).toBe(`0x${"0a".repeat(16)}010200000002dead01`);
  });

  it("round-trips data items (property)", () => {
    fc.assert(
      fc.property(fc.array(frameArb, { minLength: 1, maxLength: 5 }), (frames) => {
        const parsed = parseFrames(encodeFrames(frames));
        expect(parsed.map((p) => ({ ...p, data: bytesToHex(p.data) }))).toEqual(
          frames.map((p) => ({ ...p, data: bytesToHex(p.data) })),
        );
      }),
    );
  });

  it("rejects bad version, bad is_last, truncation, oversize, empty", () => {
    const good = encodeFrames([f(ID_A, 0, true)]);
    const badVersion = good.slice();
    badVersion[0] = 1;
    expect(() => parseFrames(badVersion)).toThrow(DecodeError);
    const badLast = good.slice();
    badLast[badLast.length - 1] = 2;
    expect(() => parseFrames(badLast)).toThrow(DecodeError);
    expect(() => parseFrames(good.subarray(0, good.length - 1))).toThrow(DecodeError);
    expect(() => parseFrames(new Uint8Array([0]))).toThrow(DecodeError);
    expect(() => parseFrames(new Uint8Array(0))).toThrow(DecodeError);
    const oversize = new Uint8Array(1 + 23);
    new DataView(oversize.buffer).setUint32(1 + 18, MAX_FRAME_LEN + 1);
    expect(() => parseFrames(oversize)).toThrow(/too large/);
    // A valid frame followed by garbage drops the whole item.
    expect(() => parseFrames(new Uint8Array([...good, 1, 2, 3]))).toThrow(DecodeError);
  });

  it("only ever throws DecodeError on random or truncated input (property)", () => {
    fc.assert(
      fc.property(
        fc.array(frameArb, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.uint8Array(),
        (frames, cut, junk) => {
          const enc = encodeFrames(frames);
          for (const input of [enc.subarray(0, cut % (enc.length + 1)), junk, new Uint8Array([0, ...junk])]) {
            try {
              parseFrames(input);
            } catch (e) {
              expect(e).toBeInstanceOf(DecodeError);
            }
          }
        },
      ),
    );
  });

  it("splits channel data into frames under the max frame size", () => {
    const data = new Uint8Array(1000).map((_, i) => i & 0xff);
    const frames = splitIntoFrames(ID_A, data, 123);
    expect(frames.every((fr) => encodeFrame(fr).length <= 123)).toBe(true);
    expect(frames.map((fr) => fr.frameNumber)).toEqual(frames.map((_, i) => i));
    expect(frames.filter((fr) => fr.isLast).length).toBe(1);
    expect(frames.at(-1)!.isLast).toBe(true);
    expect(Buffer.concat(frames.map((fr) => fr.data)).equals(Buffer.from(data))).toBe(true);
    expect(splitIntoFrames(ID_A, new Uint8Array(0), 100)).toHaveLength(1);
  });
});

describe("Holocene frame-queue pruning", () => {
  const ids = (fs: Frame[]) => fs.map((x) => `${x.id === ID_A ? "A" : "B"}${x.frameNumber}${x.isLast ? "!" : ""}`);

  it("keeps contiguous in-order frames", () => {
    expect(ids(pruneFrameQueue([f(ID_A, 0), f(ID_A, 1), f(ID_A, 2, true), f(ID_B, 0)]))).toEqual([
      "A0",
      "A1",
      "A2!",
      "B0",
    ]);
  });

  it("drops a gap, a frame after last, and non-first frames of a new channel", () => {
    expect(ids(pruneFrameQueue([f(ID_A, 0), f(ID_A, 2)]))).toEqual(["A0"]);
    expect(ids(pruneFrameQueue([f(ID_A, 0), f(ID_A, 1, true), f(ID_A, 2)]))).toEqual(["A0", "A1!"]);
    expect(ids(pruneFrameQueue([f(ID_A, 0, true), f(ID_B, 1)]))).toEqual(["A0!"]);
  });

  it("drops an unclosed channel when a new first frame arrives (and re-checks backwards)", () => {
    expect(ids(pruneFrameQueue([f(ID_A, 0), f(ID_A, 1), f(ID_B, 0), f(ID_B, 1, true)]))).toEqual(["B0", "B1!"]);
  });
});
