import { describe, expect, it } from "vitest";
import { DecodeError, TemporaryError } from "../../../src/core/errors/supernode-error.js";
import { dispatchBody, dispatchText, type DispatchOptions, stringifyJson } from "../../../src/rpc/dispatch.js";
import { InvalidParamsError, toRpcError } from "../../../src/rpc/errors.js";
import { createMethodTable, mergeMethodTables, namespacesOf } from "../../../src/rpc/method-table.js";

const table = createMethodTable({
  test_echo: async (params) => params,
  test_nothing: async () => undefined,
  test_big: async () => ({ n: 2n ** 64n + 1n, s: 1n }),
  test_badParams: async () => {
    throw new InvalidParamsError("invalid argument 0: bad");
  },
  test_decode: async () => {
    throw new DecodeError("invalid quantity");
  },
  test_temp: async () => {
    throw new TemporaryError("NOT_FOUND", "block not yet available");
  },
  test_boom: async () => {
    throw new Error("secret internal detail at /home/x.ts:12");
  },
  admin_poke: { handler: async () => "poked", admin: true },
});

function opts(over: Partial<DispatchOptions> = {}): DispatchOptions {
  return { enableAdmin: false, maxBatchSize: 3, ctx: {}, ...over };
}

describe("dispatchBody", () => {
  it("answers a single request with its id", async () => {
    const res = await dispatchBody(table, { jsonrpc: "2.0", id: 7, method: "test_echo", params: [1, "a"] }, opts());
    expect(res).toEqual({ jsonrpc: "2.0", id: 7, result: [1, "a"] });
  });

  it("treats absent params as [] and undefined results as null", async () => {
    expect(await dispatchBody(table, { jsonrpc: "2.0", id: "x", method: "test_echo" }, opts())).toEqual({
      jsonrpc: "2.0",
      id: "x",
      result: [],
    });
    expect(await dispatchBody(table, { jsonrpc: "2.0", id: 1, method: "test_nothing" }, opts())).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: null,
    });
  });

  it("rejects invalid requests with -32600", async () => {
    for (const bad of [
      1,
      "x",
      null,
      { id: 1, method: "test_echo" },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: {}, method: "test_echo" },
    ]) {
      const res = (await dispatchBody(table, bad, opts())) as { error: { code: number } };
      expect(res.error.code).toBe(-32600);
    }
  });

  it("answers unknown methods with -32601 and hides admin methods unless enabled", async () => {
    const unknown = (await dispatchBody(table, { jsonrpc: "2.0", id: 1, method: "nope_x" }, opts())) as {
      error: { code: number; message: string };
    };
    expect(unknown.error).toEqual({ code: -32601, message: "Method not found", data: { method: "nope_x" } });
    const gated = (await dispatchBody(table, { jsonrpc: "2.0", id: 1, method: "admin_poke" }, opts())) as {
      error: { code: number };
    };
    expect(gated.error.code).toBe(-32601);
    expect(
      await dispatchBody(table, { jsonrpc: "2.0", id: 1, method: "admin_poke" }, opts({ enableAdmin: true })),
    ).toEqual({ jsonrpc: "2.0", id: 1, result: "poked" });
  });

  it("maps errors to codes without leaking internals", async () => {
    const call = async (method: string) =>
      (
        (await dispatchBody(table, { jsonrpc: "2.0", id: 1, method }, opts())) as {
          error: { code: number; message: string };
        }
      ).error;
    expect((await call("test_badParams")).code).toBe(-32602);
    expect((await call("test_decode")).code).toBe(-32602);
    expect(await call("test_temp")).toEqual({ code: -32001, message: "block not yet available" });
    const boom = await call("test_boom");
    expect(boom).toEqual({ code: -32603, message: "internal error" });
    expect(JSON.stringify(boom)).not.toContain("secret");
  });

  it("reports unexpected errors to the hook", async () => {
    const seen: string[] = [];
    await dispatchBody(
      table,
      { jsonrpc: "2.0", id: 1, method: "test_boom" },
      opts({ onUnexpectedError: (m) => seen.push(m) }),
    );
    expect(seen).toEqual(["test_boom"]);
  });

  it("rejects by-name params with -32602", async () => {
    const res = (await dispatchBody(
      table,
      { jsonrpc: "2.0", id: 1, method: "test_echo", params: { a: 1 } },
      opts(),
    )) as {
      error: { code: number };
    };
    expect(res.error.code).toBe(-32602);
  });

  it("gives no response to notifications, even failing ones", async () => {
    expect(await dispatchBody(table, { jsonrpc: "2.0", method: "test_echo" }, opts())).toBeUndefined();
    expect(await dispatchBody(table, { jsonrpc: "2.0", method: "nope" }, opts())).toBeUndefined();
    expect(await dispatchBody(table, [{ jsonrpc: "2.0", method: "test_echo" }], opts())).toBeUndefined();
  });

  it("answers batches in order, skipping notifications", async () => {
    const res = await dispatchBody(
      table,
      [
        { jsonrpc: "2.0", id: 1, method: "test_echo", params: [1] },
        { jsonrpc: "2.0", method: "test_echo", params: [2] },
        { jsonrpc: "2.0", id: 3, method: "nope" },
      ],
      opts(),
    );
    expect(res).toEqual([
      { jsonrpc: "2.0", id: 1, result: [1] },
      { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found", data: { method: "nope" } } },
    ]);
  });

  it("bounds batches and rejects empty ones", async () => {
    expect(await dispatchBody(table, [], opts())).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "empty batch" },
    });
    const big = Array.from({ length: 4 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "test_echo" }));
    const res = (await dispatchBody(table, big, opts())) as { error: { code: number } };
    expect(res.error.code).toBe(-32005);
  });

  it("observes every call with its outcome code", async () => {
    const seen: Array<[string, number]> = [];
    const observer = { observe: (m: string, c: number) => seen.push([m, c]) };
    await dispatchBody(
      table,
      [
        { jsonrpc: "2.0", id: 1, method: "test_echo" },
        { jsonrpc: "2.0", id: 2, method: "whatever_random" },
        { jsonrpc: "2.0", id: 3, method: "test_badParams" },
      ],
      opts({ observer }),
    );
    expect(seen.sort()).toEqual([
      ["test_badParams", -32602],
      ["test_echo", 0],
      ["unknown", -32601],
    ]);
  });
});

describe("dispatchText", () => {
  it("answers unparsable bodies with -32700", async () => {
    expect(JSON.parse((await dispatchText(table, "{not json", opts())) ?? "")).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "parse error" },
    });
  });

  it("renders bigint results as exact JSON integers", async () => {
    const text = await dispatchText(table, '{"jsonrpc":"2.0","id":1,"method":"test_big"}', opts());
    expect(text).toBe('{"jsonrpc":"2.0","id":1,"result":{"n":18446744073709551617,"s":1}}');
  });
});

describe("helpers", () => {
  it("stringifyJson keeps ordinary values unchanged", () => {
    expect(stringifyJson({ a: [1, "x", null] })).toBe('{"a":[1,"x",null]}');
  });
  it("merges tables and lists namespaces", () => {
    const t = mergeMethodTables(
      table,
      createMethodTable({ test_echo: async () => "override", rpc_modules: async () => ({}) }),
    );
    expect(namespacesOf(t, { includeAdmin: false })).toEqual(["rpc", "test"]);
    expect(namespacesOf(t, { includeAdmin: true })).toEqual(["admin", "rpc", "test"]);
  });
  it("toRpcError maps unknown throwables to -32603", () => {
    expect(toRpcError("str")).toEqual({ code: -32603, message: "internal error" });
  });
});
