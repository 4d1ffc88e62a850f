import { describe, expect, it } from "vitest";
import { RpcError } from "../../../src/rpc/errors.js";
import { parseBlockNumberParam } from "../../../src/rpc/namespaces/stack.js";

function errorOf(v: unknown): { code: number; message: string } {
  try {
    parseBlockNumberParam([v], "stack_outputAtBlock");
  } catch (err) {
    expect(err).toBeInstanceOf(RpcError);
    return { code: (err as RpcError).code, message: (err as RpcError).message };
  }
  throw new Error(`accepted ${String(v)}`);
}

describe("parseBlockNumberParam (issue 11, 64-bit numbers)", () => {
  it("accepts quantities up to 2^53 - 1 as numbers", () => {
    expect(parseBlockNumberParam(["0x0"], "m")).toBe(0);
    expect(parseBlockNumberParam(["0x1fffffffffffff"], "m")).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("accepts valid uint64 values past 2^53 as blocks that do not exist (-32001), with the exact number", () => {
    expect(errorOf("0x20000000000001")).toEqual({ code: -32001, message: "block 9007199254740993 not found" });
    expect(errorOf("0xffffffffffffffff")).toEqual({ code: -32001, message: "block 18446744073709551615 not found" });
  });

  it("rejects values past 64 bits and non-quantities with -32602", () => {
    expect(errorOf("0x10000000000000000")).toEqual({
      code: -32602,
      message: "invalid argument 0: hex number > 64 bits",
    });
    expect(errorOf("0x01").code).toBe(-32602);
    expect(errorOf(5).code).toBe(-32602);
  });
});
