import { Agent, request } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { createMethodTable, type MethodTable } from "../../../src/rpc/method-table.js";
import { RpcServer } from "../../../src/rpc/server.js";

const chainTables = new Map<string, MethodTable>([
  ["10", createMethodTable({ stack_syncStatus: async (_p, ctx) => ({ chain: String(ctx.chainId) }) })],
  [
    "420",
    createMethodTable({
      stack_syncStatus: async (_p, ctx) => ({ chain: String(ctx.chainId) }),
      admin_stopSequencer: { handler: async () => null, admin: true },
    }),
  ],
]);
const root = createMethodTable({ heartbeat_check: async () => "0x01020304" });
const observed: string[] = [];

async function startServer(enableAdmin: boolean, maxBodyBytes?: number): Promise<RpcServer> {
  return RpcServer.listen(
    {
      addr: "127.0.0.1",
      port: 0,
      enableAdmin,
      version: "test",
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    },
    {
      root,
      chains: { tableOf: (id) => chainTables.get(id), chainIds: () => [...chainTables.keys()] },
      readiness: () => ({ ready: chainTables.size === 2, chains: { "10": "running" } }),
      logger: silentLogger,
      observerFor: (chain) => ({ observe: (m, c) => observed.push(`${chain}:${m}:${c}`) }),
    },
  );
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

describe("RpcServer", () => {
  let server: RpcServer;
  let admin: RpcServer;
  beforeAll(async () => {
    server = await startServer(false, 4096);
    admin = await startServer(true);
  });
  afterAll(async () => {
    await server.close(500);
    await admin.close(500);
  });

  it("binds to an ephemeral loopback port", () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  it("routes /<chainID>/ and /<chainID> to that chain", async () => {
    for (const path of ["/10/", "/10", "/420/"]) {
      const r = await post(`${server.url}${path}`, { jsonrpc: "2.0", id: 1, method: "stack_syncStatus" });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ jsonrpc: "2.0", id: 1, result: { chain: path.includes("420") ? "420" : "10" } });
    }
    expect(observed).toContain("10:stack_syncStatus:0");
  });

  it("serves the supernode methods at / only", async () => {
    expect((await post(`${server.url}/`, { jsonrpc: "2.0", id: 1, method: "heartbeat_check" })).json).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: "0x01020304",
    });
    const onChain = (await post(`${server.url}/10/`, { jsonrpc: "2.0", id: 1, method: "heartbeat_check" })).json as {
      error: { code: number };
    };
    expect(onChain.error.code).toBe(-32601);
  });

  it("answers an unknown or malformed chain ID with 404 and a JSON-RPC error", async () => {
    for (const path of ["/11/", "/010/", "/0xa/", "/abc"]) {
      const r = await post(`${server.url}${path}`, { jsonrpc: "2.0", id: 1, method: "stack_syncStatus" });
      expect(r.status).toBe(404);
      const err = (r.json as { error: { code: number; message: string } }).error;
      expect(err.code).toBe(-32001);
      expect(err.message).toContain("hosted chains: 10, 420");
    }
    expect((await post(`${server.url}/10/x/y`, {})).status).toBe(404);
  });

  it("gates admin methods behind enableAdmin", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "admin_stopSequencer" };
    expect(((await post(`${server.url}/420/`, call)).json as { error: { code: number } }).error.code).toBe(-32601);
    expect((await post(`${admin.url}/420/`, call)).json).toEqual({ jsonrpc: "2.0", id: 1, result: null });
  });

  it("serves batches and notifications", async () => {
    const r = await post(`${server.url}/10/`, [
      { jsonrpc: "2.0", id: 1, method: "stack_syncStatus" },
      { jsonrpc: "2.0", method: "stack_syncStatus" },
      { jsonrpc: "2.0", id: 2, method: "nope" },
    ]);
    expect(r.json).toEqual([
      { jsonrpc: "2.0", id: 1, result: { chain: "10" } },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found", data: { method: "nope" } } },
    ]);
    const n = await post(`${server.url}/10/`, { jsonrpc: "2.0", method: "stack_syncStatus" });
    expect(n.status).toBe(204);
    expect(n.text).toBe("");
  });

  it("answers parse errors, bad content types and oversized bodies", async () => {
    expect((await post(`${server.url}/`, "{oops")).json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "parse error" },
    });
    const charset = await post(
      `${server.url}/`,
      { jsonrpc: "2.0", id: 1, method: "heartbeat_check" },
      {
        "content-type": "application/json; charset=utf-8",
      },
    );
    expect(charset.status).toBe(200);
    const wrongType = await post(`${server.url}/`, "x", { "content-type": "text/plain" });
    expect(wrongType.status).toBe(415);
    expect((wrongType.json as { error: { code: number } }).error.code).toBe(-32600);
    const big = await post(`${server.url}/`, {
      jsonrpc: "2.0",
      id: 1,
      method: "heartbeat_check",
      params: ["x".repeat(5000)],
    });
    expect(big.status).toBe(413);
    expect((big.json as { error: { code: number } }).error.code).toBe(-32005);
  });

  it("serves /healthz and /readyz", async () => {
    const h = await fetch(`${server.url}/healthz`);
    expect(h.status).toBe(200);
    expect(await h.json()).toEqual({ status: "ok", version: "test" });
    const r = await fetch(`${server.url}/readyz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ ready: true, chains: { "10": "running" } });
  });

  it("closes promptly even with idle keep-alive connections", async () => {
    const s = await startServer(false);
    // A client that keeps its idle connection open for as long as the server does (fetch's own idle timeout is 4 s).
    const agent = new Agent({ keepAlive: true });
    try {
      const socket = await new Promise<Socket>((resolve, reject) => {
        const req = request(`${s.url}/10/`, { method: "POST", agent, headers: { "content-type": "application/json" } });
        req.on("socket", (sock: Socket) => resolve(sock));
        req.on("error", reject);
        req.on("response", (res) => res.resume());
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "stack_syncStatus" }));
      });
      await vi.waitFor(() => expect(Object.keys(agent.freeSockets)).toHaveLength(1), { timeout: 30_000 });
      const socketClosed = new Promise((r) => socket.once("close", r));
      // The grace period outlasts the test's timeout, and the server's keep-alive timeout is 120 s: close() returns
      // only because the server ends its idle connection itself.
      await s.close(600_000);
      await socketClosed;
    } finally {
      agent.destroy();
    }
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
  });
});
