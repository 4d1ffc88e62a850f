import { describe, expect, it } from "vitest";
import { RpcError } from "supernode/json-rpc";
import { dispatchBody } from "../../../src/el/json-rpc.js";
import { mintEngineJwt, parseJwtSecret, verifyEngineJwt } from "../../../src/el/jwt-auth.js";

const methods = new Map([
  ["echo", (ps: readonly unknown[]) => ps[0]],
  [
    "fail",
    () => {
      throw new RpcError(-38001, "Unknown payload");
    },
  ],
  [
    "decode",
    () => {
      throw Object.assign(new Error("bad hex"), { name: "DecodeError" });
    },
  ],
]);

describe("JSON-RPC dispatch", () => {
  it("answers results, errors, notifications and batches", async () => {
    expect(await dispatchBody(methods, '{"jsonrpc":"2.0","id":1,"method":"echo","params":[7]}')).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: 7,
    });
    expect(await dispatchBody(methods, '{"jsonrpc":"2.0","id":"x","method":"fail"}')).toEqual({
      jsonrpc: "2.0",
      id: "x",
      error: { code: -38001, message: "Unknown payload" },
    });
    expect(await dispatchBody(methods, '{"jsonrpc":"2.0","id":2,"method":"decode","params":[]}')).toMatchObject({
      error: { code: -32602 },
    });
    expect(await dispatchBody(methods, '{"jsonrpc":"2.0","method":"echo","params":[1]}')).toBeUndefined();
    expect(await dispatchBody(methods, "[]")).toMatchObject({ error: { code: -32600 } });
    expect(await dispatchBody(methods, '[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}, 5]')).toEqual([
      { jsonrpc: "2.0", id: 1, result: 1 },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } },
    ]);
    expect(await dispatchBody(methods, "{")).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await dispatchBody(methods, '{"jsonrpc":"2.0","id":3,"method":"echo","params":{}}')).toMatchObject({
      error: { code: -32602 },
    });
    expect(await dispatchBody(methods, '{"jsonrpc":"2.0","id":4,"method":"nope"}')).toEqual({
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32601, message: "Method not found" },
    });
  });
});

describe("Engine API JWT", () => {
  const secret = new Uint8Array(32).fill(7);
  it("accepts fresh HS256 tokens within ±60 s and refuses everything else", () => {
    const now = 1_700_000_000;
    expect(verifyEngineJwt(`Bearer ${mintEngineJwt(secret, now)}`, secret, now)).toEqual({ ok: true });
    expect(verifyEngineJwt(`Bearer ${mintEngineJwt(secret, now - 60)}`, secret, now).ok).toBe(true);
    expect(verifyEngineJwt(`Bearer ${mintEngineJwt(secret, now + 61)}`, secret, now)).toEqual({
      ok: false,
      reason: "stale token",
    });
    expect(verifyEngineJwt(`Bearer ${mintEngineJwt(new Uint8Array(32), now)}`, secret, now)).toEqual({
      ok: false,
      reason: "signature invalid",
    });
    expect(verifyEngineJwt(undefined, secret, now).ok).toBe(false);
    expect(verifyEngineJwt("Basic abc", secret, now).ok).toBe(false);
    expect(verifyEngineJwt("Bearer a.b", secret, now).ok).toBe(false);
  });
  it("parses secret files (optional 0x, whitespace)", () => {
    expect(parseJwtSecret(` 0x${"0a".repeat(32)}\n`)).toEqual(new Uint8Array(32).fill(10));
    expect(() => parseJwtSecret("0x1234")).toThrow();
  });
});
