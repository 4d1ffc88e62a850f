import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SupernodeError, TemporaryError } from "../../../src/core/errors/supernode-error.js";
import { silentLogger } from "../../../src/core/logger.js";
import { createMethodTable, type MethodTable } from "../../../src/rpc/method-table.js";
import { RpcServer, type RpcServerOptions } from "../../../src/rpc/server.js";

/** Issue 11 defects 5-7 against a real server on an ephemeral loopback port. */
const running = createMethodTable({
  stack_syncStatus: async () => "ok",
  stack_down: async () => {
    throw new TemporaryError("RPC_NETWORK", "eth_getBlockByNumber: connect ECONNREFUSED 127.0.0.1:18652", {
      url: "http://127.0.0.1:18652",
    });
  },
  stack_leaky: async () => {
    throw new SupernodeError("X", "fetch http://10.1.2.3:8551/engine failed\nat [::1]:9000 reading /var/lib/node/db", {
      severity: "temporary",
    });
  },
});
const tables = new Map<string, MethodTable>([
  ["901", running],
  ["7", new Map()], // hosted, never started: no instance has published its methods yet
]);

function start(extra: Partial<RpcServerOptions> = {}): Promise<RpcServer> {
  return RpcServer.listen(
    { addr: "127.0.0.1", port: 0, enableAdmin: false, ...extra },
    {
      root: running,
      chains: {
        tableOf: (id) => tables.get(id),
        chainIds: () => [...tables.keys()],
        notRunning: (id) => (id === "7" ? "starting" : undefined),
      },
      readiness: () => ({ ready: true }),
      logger: silentLogger,
    },
  );
}

async function post(url: string, body: string) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  return { status: res.status, json: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

/** Writes raw bytes on a new connection; resolves with everything read until the server closes it. */
function rawExchange(port: number, write: (s: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => write(s));
    let out = "";
    s.setEncoding("latin1");
    s.on("data", (d: string) => {
      out += d;
    });
    s.on("close", () => resolve(out));
    s.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? resolve(out) : reject(e)));
  });
}

function envelopeOf(reply: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);
  const body = reply.slice(reply.indexOf("\r\n\r\n") + 4);
  return { status, body: JSON.parse(body) };
}

describe("RPC server hardening (issue 11)", () => {
  let server: RpcServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server.close(500);
  });

  it("answers invalid requests without an id with -32600 and id null, never 204", async () => {
    for (const body of ["{}", '{"foo":1}', '{"jsonrpc":"2.0","method":5}', '{"jsonrpc":"1.0","method":"x"}']) {
      const r = await post(`${server.url}/901/`, body);
      expect(r.status, body).toBe(200);
      expect(r.json, body).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } });
    }
    const batch = await post(`${server.url}/901/`, '[{"foo":1},{"jsonrpc":"2.0","method":"stack_syncStatus"}]');
    expect(batch.json).toEqual([{ jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } }]);
  });

  it("answers -32000 'chain N is not running' with its state for a chain that has never started", async () => {
    for (const method of ["stack_syncStatus", "stack_outputAtBlock", "anything_else"]) {
      const r = await post(`${server.url}/7/`, JSON.stringify({ jsonrpc: "2.0", id: 3, method }));
      expect(r.json).toEqual({
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32000, message: "chain 7 is not running (starting)", data: { state: "starting" } },
      });
    }
    // A running chain still answers -32601 for a method it does not have.
    const r = await post(`${server.url}/901/`, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "nope_nope" }));
    expect((r.json as { error: { code: number } }).error.code).toBe(-32601);
  });

  it("replies to HTTP-level errors (bad request line, oversized headers, bad framing) with JSON-RPC envelopes", async () => {
    const cases: Array<[string, number, number]> = [
      ["GARBAGE\r\n\r\n", 400, -32600],
      [`POST /901/ HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431, -32005],
      ["POST /901/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n", 400, -32600],
      ["POST /901/ HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}", 415, -32600],
    ];
    for (const [req, status, code] of cases) {
      const reply = await rawExchange(server.port, (s) => s.end(req));
      const e = envelopeOf(reply);
      expect(e.status, req.slice(0, 40)).toBe(status);
      expect(e.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code } });
    }
  });

  it("never routes percent-encoded chain IDs or non-path request targets", async () => {
    const enc = await post(`${server.url}/9%30%31/`, '{"jsonrpc":"2.0","id":1,"method":"stack_syncStatus"}');
    expect(enc.status).toBe(404);
    expect(enc.json).toMatchObject({ id: null, error: { code: -32001 } });
    const body = '{"jsonrpc":"2.0","id":1,"method":"stack_syncStatus"}';
    for (const target of ["*", `http://127.0.0.1:${server.port}/901/`]) {
      const reply = await rawExchange(server.port, (s) =>
        s.end(
          `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        ),
      );
      const e = envelopeOf(reply);
      expect(e.status, target).toBe(400);
      expect(e.body).toMatchObject({ id: null, error: { code: -32600 } });
    }
  });

  it("a path segment over 100 characters, CONNECT and a fragment all get JSON-RPC envelopes; `/901#frag` is not `/901`", async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"stack_syncStatus"}';
    const long = `/${"9".repeat(150)}x/`;
    const longReply = await post(`${server.url}${long}`, body);
    expect(longReply.status).toBe(404);
    expect(longReply.json).toMatchObject({ id: null, error: { code: -32001 } });
    expect(JSON.stringify(longReply.json)).not.toContain("FST_ERR");
    const ask = (head: string) =>
      rawExchange(server.port, (s) =>
        s.end(
          `${head}\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        ),
      );
    const connectReply = envelopeOf(await ask(`CONNECT 127.0.0.1:${server.port} HTTP/1.1`));
    expect(connectReply.status).toBe(405);
    expect(connectReply.body).toMatchObject({ id: null, error: { code: -32600 } });
    const frag = envelopeOf(await ask("POST /901#frag HTTP/1.1"));
    expect(frag.status).toBe(400);
    expect(frag.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("gives clients a generic message without endpoints, paths or line breaks, keeping the code", async () => {
    const down = await post(`${server.url}/901/`, '{"jsonrpc":"2.0","id":1,"method":"stack_down"}');
    expect(down.json).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "upstream node unreachable" } });
    const leaky = await post(`${server.url}/901/`, '{"jsonrpc":"2.0","id":1,"method":"stack_leaky"}');
    const msg = (leaky.json as { error: { code: number; message: string } }).error;
    expect(msg.code).toBe(-32000);
    expect(msg.message).toBe("fetch <endpoint> failed at <endpoint> reading <path>");
  });
});

describe("RPC server bounds (issue 11)", () => {
  it("cuts a request whose body does not arrive within the request timeout, with a 408 envelope", async () => {
    const server = await start({ requestTimeoutMs: 1_000 });
    try {
      const started = Date.now();
      const reply = await rawExchange(server.port, (s) =>
        // Announces 100 bytes, sends 10, then stalls.
        s.write(
          'POST /901/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
        ),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      const e = envelopeOf(reply);
      expect(e.status).toBe(408);
      expect(e.body).toMatchObject({ id: null, error: { code: -32600, message: "request timed out" } });
    } finally {
      await server.close(500);
    }
  });

  it("past maxConnections a few more connections serve only the health endpoints; beyond those, closed at once", async () => {
    const server = await start({ maxConnections: 2, maxConnectionsPerClient: 0 });
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 2; i++) held.push(await opened(server.port, "127.0.0.1"));
      const body = '{"jsonrpc":"2.0","id":1,"method":"stack_syncStatus"}';
      const req = `POST /901/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      // the reserve (as many as the bound, here 2): a JSON-RPC call is refused with an envelope, /healthz answers
      const reserve = [await opened(server.port, "127.0.0.1"), await opened(server.port, "127.0.0.1")];
      held.push(...reserve);
      // beyond the reserve: dropped without an answer
      const closing = req.replace("Host: x\r\n", "Host: x\r\nConnection: close\r\n");
      expect(await rawExchange(server.port, (s) => s.write(closing))).toBe("");
      const refused = await exchangeOn(reserve[0]!, req, "}");
      expect(refused).toMatch(/^HTTP\/1.1 503/);
      expect(refused).toContain('"too many open connections; try again later"');
      expect(await exchangeOn(reserve[1]!, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "}")).toMatch(/^HTTP\/1.1 200/);
      // the held ones are served
      expect(await exchangeOn(held[0]!, req, '"result"')).toContain('"result":"ok"');
    } finally {
      for (const s of held) s.destroy();
      await server.close(500);
    }
  });

  it("1,100 connections from one client (127.0.0.2) leave /healthz and JSON-RPC reachable for another (127.0.0.1)", async () => {
    const server = await start(); // the defaults: 1024 in all, 128 per client
    const held: Socket[] = [];
    try {
      for (let batch = 0; batch < 11; batch++) {
        const more = Array.from({ length: 100 }, () => connectFrom(server.port, "127.0.0.2"));
        held.push(...(await Promise.all(more)));
      }
      expect(held).toHaveLength(1_100);
      const health = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      expect(health.status).toBe(200);
      const call = await post(`${server.url}/901/`, '{"jsonrpc":"2.0","id":1,"method":"stack_syncStatus"}');
      expect(call).toEqual({ status: 200, json: { jsonrpc: "2.0", id: 1, result: "ok" } });
      // the client at its bound has its further connections closed at once; the first 128 stay open
      const open = held.filter((s) => !s.destroyed && s.readyState === "open");
      expect(open.length).toBeLessThanOrEqual(128);
    } finally {
      for (const s of held) s.destroy();
      await server.close(500);
    }
  });
});

/** A connection from `from` (a loopback address) once connected (the server may close it right after). */
function connectFrom(port: number, from: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: "127.0.0.1", localAddress: from });
    s.once("connect", () => resolve(s));
    s.once("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? resolve(s) : reject(e)));
  });
}

async function opened(port: number, from: string): Promise<Socket> {
  const s = await connectFrom(port, from);
  s.on("error", () => {});
  return s;
}

/** Writes `req` on an open connection; resolves with what was read once it contains `until`. */
function exchangeOn(s: Socket, req: string, until: string): Promise<string> {
  return new Promise((resolve) => {
    let out = "";
    s.setEncoding("latin1");
    s.on("data", (d: string) => {
      out += d;
      if (out.includes(until)) resolve(out);
    });
    s.on("close", () => resolve(out));
    s.write(req);
  });
}
