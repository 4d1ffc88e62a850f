import { describe, expect, it } from "vitest";
import {
  bigUint,
  bool,
  hexBytes,
  nullish,
  oneOf,
  optional,
  readShape,
  strictObject,
  uint,
  uintUpTo,
} from "../../../src/protocol/json-shape.js";

const shape = strictObject({
  a: hexBytes(2),
  n: uint,
  small: optional(uintUpTo(10)),
  big: bigUint,
  flag: optional(bool),
  kind: oneOf(["x", "y"]),
  inner: nullish(strictObject({ m: uint })),
});

const good = { a: "0xABcd", n: 7, big: "0x1f", kind: "y" };

describe("json-shape", () => {
  it("reads a value of the shape: hex lower-cased, absent optional fields left out, null read as absent", () => {
    const r = readShape(shape, { ...good, inner: null });
    expect(r).toEqual({ ok: true, value: { a: "0xabcd", n: 7, big: "0x1f", kind: "y" } });
    expect(Object.keys(r.ok ? r.value : {})).not.toContain("inner");
    expect(readShape(shape, { ...good, small: 10, flag: false, inner: { m: 0 }, big: 12 })).toEqual({
      ok: true,
      value: { a: "0xabcd", n: 7, small: 10, flag: false, big: 12, kind: "y", inner: { m: 0 } },
    });
    expect(readShape(bigUint, "123456789012345678901234567890")).toEqual({
      ok: true,
      value: "123456789012345678901234567890",
    });
  });

  it("reports every problem with its path, unknown fields included", () => {
    const r = readShape(shape, {
      a: "0x123",
      n: -1,
      small: 11,
      big: "1e3",
      flag: "yes",
      kind: "z",
      inner: { m: 1.5, q: 1 },
      extra: 1,
    });
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems.split("; ");
    expect(problems).toEqual([
      "unknown field(s) extra",
      "a: expected 0x-prefixed 2-byte hex",
      `n: expected an integer in [0, ${Number.MAX_SAFE_INTEGER}]`,
      "small: expected an integer in [0, 10]",
      "big: expected an unsigned integer",
      "flag: expected a boolean, got string",
      'kind: expected one of "x", "y"',
      "unknown field(s) inner.q",
      "inner.m: expected an integer in [0, 9007199254740991]",
    ]);
  });

  it("reports a missing field as required and a wrong type by its JSON type", () => {
    const r = readShape(shape, { a: "0xabcd", n: "7", big: 1, kind: "x", inner: [] });
    expect(r).toEqual({
      ok: false,
      problems: "n: expected a number, got string; inner: expected an object, got array",
    });
    expect(readShape(shape, { n: 1, big: 1, kind: "x" })).toEqual({ ok: false, problems: "a: required" });
    expect(readShape(shape, null)).toEqual({ ok: false, problems: "(root): expected an object, got null" });
    expect(readShape(uint, 2 ** 53)).toEqual({
      ok: false,
      problems: `(root): expected an integer in [0, ${Number.MAX_SAFE_INTEGER}]`,
    });
  });
});
