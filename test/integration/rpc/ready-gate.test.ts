import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { createMethodTable } from "../../../src/rpc/method-table.js";
import { RpcServer } from "../../../src/rpc/server.js";

/**
 * op-supernode's readiness gate (PR 21103): a request to a chain between two instances waits for it (polling) up to
 * a bound, then HTTP 503 "chain RPC not ready"; other chains answer meanwhile.
 */
let server: RpcServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const table = createMethodTable({ stack_version: { handler: async () => "v-test" } });

async function start(restarting: Set<string>, chainReadyWaitMs: number) {
  server = await RpcServer.listen(
    { addr: "127.0.0.1", port: 0, enableAdmin: false, chainReadyWaitMs },
    {
      root: createMethodTable({}),
      chains: {
        tableOf: (id) => (id === "901" || id === "902" ? table : undefined),
        chainIds: () => ["901", "902"],
        notRunning: (id) => (restarting.has(id) ? "backoff" : undefined),
        restarting: (id) => restarting.has(id),
      },
      readiness: () => ({ ready: restarting.size === 0 }),
      logger: silentLogger,
    },
  );
  return server;
}

async function version(url: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "stack_version" }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("requests to a restarting chain", () => {
  it("wait for the chain to come back and are then answered; other chains are not held up", async () => {
    const restarting = new Set(["901"]);
    const s = await start(restarting, 10_000);
    const waiting = version(`${s.url}/901/`);
    let settled = false;
    void waiting.then(() => {
      settled = true;
    });
    expect(await version(`${s.url}/902/`)).toMatchObject({ status: 200, json: { result: "v-test" } });
    expect(settled).toBe(false);
    restarting.delete("901");
    expect(await waiting).toMatchObject({ status: 200, json: { result: "v-test" } });
  });

  it("answer HTTP 503 'chain RPC not ready' when it is not back within the bound", async () => {
    const s = await start(new Set(["901"]), 150);
    const t0 = Date.now();
    const r = await version(`${s.url}/901/`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(r).toEqual({
      status: 503,
      json: {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: "chain RPC not ready", data: { state: "backoff" } },
      },
    });
  });
});
