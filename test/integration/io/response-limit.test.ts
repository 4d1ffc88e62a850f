import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import { BeaconClient } from "../../../src/io/beacon/beacon-client.js";
import { ResponseTooLargeError } from "../../../src/io/common/response-limit.js";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import { HttpRpcClient, type RpcRequestEvent } from "../../../src/io/json-rpc/http-client.js";
import { postHttp1 } from "../../../src/io/http1/post.js";
import { postText } from "../../../src/io/json-rpc/http-post.js";
import { L1Client } from "../../../src/io/l1/l1-client.js";
import { createL1Metrics } from "../../../src/io/l1/metrics.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";

/**
 * Issue 11 defect 4: every upstream response body is bounded while it streams. A real HTTP server on port 0 streams
 * up to 256 MiB (chunked, or as a body up to the close) or announces a huge content-length; the clients must abort
 * once past their limit, and the server must see its connection closed long before it has sent everything.
 */
const STREAM_CAP = 256 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);
const LIMIT = 1024 * 1024;

interface Served {
  sent: number;
  done: Promise<void>;
}

describe("response size bounds (real HTTP server on port 0)", () => {
  let server: Server;
  let base: string;
  const served: Served[] = [];

  /** Streams `a`s until the client goes away or STREAM_CAP is reached; `mode` picks the framing. */
  function stream(res: ServerResponse, mode: "chunked" | "close" | "announce") {
    const s: Served = { sent: 0, done: Promise.resolve() };
    served.push(s);
    s.done = new Promise<void>((resolve) => {
      res.on("close", () => resolve());
      if (mode === "announce") {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(1024 ** 3) });
        res.write('{"jsonrpc":"2.0","id":1,"result":"');
        return;
      }
      // "close": no content-length and no chunked framing, the body runs up to the close.
      if (mode === "close") res.useChunkedEncodingByDefault = false;
      res.writeHead(200, { "content-type": "application/json", ...(mode === "close" ? { connection: "close" } : {}) });
      const pump = () => {
        while (s.sent < STREAM_CAP && !res.destroyed) {
          s.sent += CHUNK.length;
          if (!res.write(CHUNK)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
  }

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on("end", () => {
        const mode = (req.url ?? "").includes("announce")
          ? "announce"
          : (req.url ?? "").includes("close")
            ? "close"
            : "chunked";
        stream(res, mode);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  async function expectAborted(p: Promise<unknown>, check: (err: unknown) => void): Promise<void> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    check(err);
    const s = served.at(-1)!;
    await s.done; // the server saw the connection close ...
    expect(s.sent).toBeLessThan(STREAM_CAP); // ... before it had sent everything
  }

  for (const [name, post] of [
    ["postText (node:http)", postText],
    ["postHttp1 (lean client)", postHttp1],
  ] as const) {
    for (const mode of ["chunked", "close", "announce"]) {
      it(`${name} aborts a ${mode} body past its limit`, async () => {
        await expectAborted(post(`${base}/${mode}`, "{}", {}, undefined, 60_000, LIMIT), (err) => {
          expect(err).toBeInstanceOf(ResponseTooLargeError);
          expect((err as ResponseTooLargeError).limit).toBe(LIMIT);
        });
      });
    }
  }

  it("HttpRpcClient classifies the abort as a temporary RPC_RESPONSE_TOO_LARGE with outcome too_large", async () => {
    const events: RpcRequestEvent[] = [];
    const rpc = new HttpRpcClient({
      url: `${base}/chunked`,
      maxResponseBytes: LIMIT,
      onRequest: (e) => events.push(e),
    });
    await expectAborted(rpc.call("eth_getBlockByNumber", ["latest", true]), (err) => {
      expect(err).toMatchObject({ code: "RPC_RESPONSE_TOO_LARGE", severity: "temporary" });
      expect((err as Error).message).toContain(`limit of ${LIMIT} bytes`);
    });
    expect(events.map((e) => e.outcome)).toEqual(["too_large"]);
  });

  it("the L1 client bounds its responses and counts the abort in the metric", async () => {
    const registry = new Registry();
    const l1 = L1Client.create(
      {
        url: `${base}/chunked`,
        pollIntervalMs: 60_000,
        maxConcurrency: 1,
        cacheSize: 4,
        maxResponseBytes: LIMIT,
        backoff: { initialMs: 1, maxMs: 1, factor: 1, maxAttempts: 1 },
      },
      { clock: systemClock, logger: silentLogger, metrics: createL1Metrics(registry) },
    );
    await expectAborted(l1.infoAndTxsByNumber(1), (err) =>
      expect(err).toMatchObject({ code: "RPC_RESPONSE_TOO_LARGE" }),
    );
    const text = await registry.metrics();
    expect(text).toContain('supernode_upstream_response_too_large_total{upstream="l1",chain_id="supernode"} 1');
  });

  it("the Engine API client aborts an oversized answer (lean transport)", async () => {
    const events: RpcRequestEvent[] = [];
    const engine = EngineRpcClient.create(
      {
        url: `${base}/close`,
        jwtSecret: new Uint8Array(32).fill(1),
        kind: "variant_a",
        maxResponseBytes: LIMIT,
        rollupConfig: { genesis: { l2_time: 0 }, block_time: 2 } as unknown as RollupConfig,
      },
      { clock: systemClock, logger: silentLogger, onRequest: (e) => events.push(e) },
    );
    await expectAborted(engine.chainId(), (err) => expect(err).toMatchObject({ code: "RPC_RESPONSE_TOO_LARGE" }));
    expect(events.map((e) => e.outcome)).toEqual(["too_large"]);
  });

  it("the beacon client aborts an oversized answer and reports it", async () => {
    const tooLarge: string[] = [];
    const beacon = BeaconClient.create(
      { url: `${base}/chunked`, maxResponseBytes: LIMIT },
      { clock: systemClock, logger: silentLogger, onResponseTooLarge: (e) => tooLarge.push(e.path) },
    );
    // getTiming asks genesis (aborted, logged) and fails for want of it.
    await expectAborted(beacon.getTiming(), (err) => expect(err).toMatchObject({ code: "BEACON_GENESIS" }));
    expect(tooLarge).toEqual(["/eth/v1/beacon/genesis"]);
  });
});
