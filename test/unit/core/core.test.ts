import { describe, expect, it } from "vitest";
import { bytesToHex, hexEqualsBytes, hexToBytes, padHex, writeHexBytes } from "../../../src/core/codec/hex.js";
import { quantityToBigint, quantityToNumber, toQuantity } from "../../../src/core/codec/quantity.js";
import { DecodeError, severityOf, TemporaryError } from "../../../src/core/errors/supernode-error.js";
import { backoffDelayMs, DEFAULT_BACKOFF } from "../../../src/core/async/retry.js";
import { SerialQueue } from "../../../src/core/async/serial-queue.js";
import { formatDurationMs, parseDurationMs } from "../../../src/core/time/duration.js";

describe("durations", () => {
  it.each([
    ["12s", 12_000],
    ["500ms", 500],
    ["168h", 168 * 3_600_000],
    ["1h30m", 5_400_000],
    ["0", 0],
    ["0s", 0],
    ["1.5s", 1500],
  ])("parses %s", (text, ms) => expect(parseDurationMs(text)).toBe(ms));
  it.each(["", "12", "-1s", "12 s", "abc", "1x"])("rejects %j", (text) =>
    expect(() => parseDurationMs(text)).toThrow(),
  );
  it("formats", () => {
    expect(formatDurationMs(12_000)).toBe("12s");
    expect(formatDurationMs(500)).toBe("500ms");
    expect(formatDurationMs(0)).toBe("0s");
    expect(formatDurationMs(5_400_000)).toBe("1h30m");
  });
});

describe("hex and quantities", () => {
  it("round-trips bytes", () => {
    expect(bytesToHex(hexToBytes("0x00ff10"))).toBe("0x00ff10");
    expect(() => hexToBytes("0x0")).toThrow(DecodeError);
    expect(padHex("0x1", 2)).toBe("0x0001");
  });
  it("bytesToHex: Buffer's hex of exactly the view's bytes, for views at any offset and of any kind", () => {
    const all = Uint8Array.from({ length: 600 }, (_, i) => (i * 37 + 11) & 0xff);
    const views = [
      new Uint8Array(0),
      all,
      all.subarray(3, 403),
      new Uint8Array(all.buffer, 599, 1),
      new Uint8Array(all.buffer, 17, 0),
      Buffer.from(all.subarray(100, 164)),
      Buffer.alloc(8192, 0xab).subarray(5),
    ];
    for (const v of views) {
      expect(bytesToHex(v)).toBe(`0x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex")}`);
    }
  });

  it("compares hex with bytes in either case, and never equals malformed hex", () => {
    const b = Uint8Array.of(0x00, 0xab, 0x9f, 0xf0);
    expect(hexEqualsBytes("0x00ab9ff0", b)).toBe(true);
    expect(hexEqualsBytes("0x00AB9FF0", b)).toBe(true);
    expect(hexEqualsBytes("0x00ab9ff1", b)).toBe(false);
    expect(hexEqualsBytes("0x00ab9f", b)).toBe(false);
    expect(hexEqualsBytes("0x00ab9ff0ff", b)).toBe(false);
    expect(hexEqualsBytes("0X00ab9ff0", b)).toBe(false);
    expect(hexEqualsBytes("0x00ag9ff0", b)).toBe(false);
    // Characters whose low bits look like hex digits (':' after '9', 'G', '`') are not digits.
    expect(hexEqualsBytes("0x00ab9:f0", Uint8Array.of(0x00, 0xab, 0x9a, 0xf0))).toBe(false);
    expect(hexEqualsBytes("0x", new Uint8Array(0))).toBe(true);
    for (let v = 0; v < 256; v++) {
      const one = Uint8Array.of(v);
      expect(hexEqualsBytes(bytesToHex(one), one)).toBe(true);
      expect(hexEqualsBytes(bytesToHex(one).toUpperCase().replace("0X", "0x"), one)).toBe(true);
    }
  });
  it("encodes quantities without leading zeros", () => {
    expect(toQuantity(0n)).toBe("0x0");
    expect(toQuantity(26)).toBe("0x1a");
    expect(quantityToNumber("0x1a")).toBe(26);
    expect(() => quantityToNumber("0x20000000000000")).toThrow(DecodeError);
  });
  it("reads quantities of every length the same as BigInt does, short ones without it, with the same errors", () => {
    const valid = ["0x0", "0x00", "0x1", "0xA", "0xabcDEF", "0x1fffffffffffff", "0xfffffffffffff", "0x0000000000001"];
    for (let k = 1; k <= 20; k++) valid.push(`0x${"f".repeat(k)}`, `0x1${"0".repeat(k - 1)}`, `0x${"0".repeat(k)}7`);
    for (const q of valid) {
      const big = BigInt(q);
      expect(quantityToBigint(q)).toBe(big);
      if (big <= BigInt(Number.MAX_SAFE_INTEGER)) expect(quantityToNumber(q)).toBe(Number(big));
      else expect(() => quantityToNumber(q)).toThrow(DecodeError);
    }
    // Characters next to the digits' ranges (':' '/' '@' 'G' '`' 'g'), no digits, no prefix, not a string.
    const invalid = ["0x", "0x:", "0x/", "0x1@", "0xG", "0x`", "0x1g", "0X1", "1", "", "0x 1", "0x1 ", "0x-1", "x1"];
    for (const q of [...invalid, 1, null, undefined, 1n]) {
      expect(() => quantityToBigint(q)).toThrow(DecodeError);
      expect(() => quantityToNumber(q)).toThrow(DecodeError);
    }
  });
  it("writes numbers as quantities the same as bigints, and refuses what is not a non-negative integer", () => {
    for (const n of [0, 1, 15, 16, 255, 1_700_000_000, 2 ** 32, 2 ** 53 - 1]) {
      expect(toQuantity(n)).toBe(toQuantity(BigInt(n)));
      expect(toQuantity(n)).toBe(`0x${BigInt(n).toString(16)}`);
    }
    expect(toQuantity(2 ** 60)).toBe(`0x${(2n ** 60n).toString(16)}`);
    expect(() => toQuantity(-1)).toThrow(DecodeError);
    expect(() => toQuantity(1.5)).toThrow(RangeError);
    expect(() => toQuantity(Number.NaN)).toThrow(RangeError);
  });
  it("decodes hex of every length up to and past the digit-by-digit bound the same, and refuses bad digits", () => {
    for (let n = 0; n <= 80; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 59 + n * 13) & 0xff);
      const hex = Buffer.from(bytes).toString("hex");
      expect(hexToBytes(`0x${hex}`)).toEqual(bytes);
      expect(hexToBytes(`0x${hex.toUpperCase()}`)).toEqual(bytes);
      expect(() => hexToBytes(`0x${hex}0`)).toThrow(DecodeError);
      for (const at of n === 0 ? [] : [0, n, 2 * n - 1])
        for (const bad of ["g", ":", "`", "/", " "])
          expect(() => hexToBytes(`0x${hex.slice(0, at)}${bad}${hex.slice(at + 1)}`)).toThrow(DecodeError);
    }
    expect(() => hexToBytes("00ab")).toThrow(DecodeError);
    expect(() => hexToBytes("0Xab")).toThrow(DecodeError);
  });
  it("writes fixed-size hex into a buffer, refusing any other size, prefix or digit", () => {
    const out = new Uint8Array(6);
    expect(writeHexBytes("0x00aBff", 3, out, 2)).toBe(true);
    expect([...out]).toEqual([0, 0, 0x00, 0xab, 0xff, 0]);
    for (const bad of ["0x00abf", "0x00abff00", "0X00abff", "1x00abff", "0x00agff", "0x00:bff", "0x00ab`f"])
      expect(writeHexBytes(bad, 3, out, 0)).toBe(false);
    expect(writeHexBytes("0x", 0, out, 0)).toBe(true);
  });
});

describe("errors, retry and queues", () => {
  it("maps severities", () => {
    expect(severityOf(new TemporaryError("X", "x"))).toBe("temporary");
    expect(severityOf(new DecodeError("x"))).toBe("reset");
    expect(severityOf(new Error("x"))).toBe("temporary");
  });
  it("backs off exponentially up to the cap", () => {
    expect(backoffDelayMs(1, DEFAULT_BACKOFF)).toBe(250);
    expect(backoffDelayMs(3, DEFAULT_BACKOFF)).toBe(1000);
    expect(backoffDelayMs(20, DEFAULT_BACKOFF)).toBe(10_000);
  });
  it("serial queue keeps order even when a task fails", async () => {
    const q = new SerialQueue();
    const order: number[] = [];
    const slow = q.run(async () => {
      await new Promise((r) => setTimeout(r, 20));
      order.push(1);
    });
    const failing = q.run(async () => {
      order.push(2);
      throw new Error("boom");
    });
    const fast = q.run(async () => order.push(3));
    await Promise.allSettled([slow, failing, fast]);
    expect(order).toEqual([1, 2, 3]);
  });
});
