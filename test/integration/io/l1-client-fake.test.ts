/**
 * L1Client against a programmable fake L1 (Fastify on port 0) serving synthetic blocks with valid hashes:
 * retries with backoff, typed errors, timeouts, bounded concurrency, response validation, label polling.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toQuantity } from "../../../src/core/codec/quantity.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { L1Client, type L1ClientOptions } from "../../../src/io/l1/l1-client.js";
import { createL1Metrics } from "../../../src/io/l1/metrics.js";
import { headerHash, parseRpcHeader } from "../../../src/protocol/block/header.js";
import { EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT } from "../../../src/protocol/block/trie.js";

const H = (n: number, fill = "0"): Hash => `0x${n.toString(16).padStart(64, fill)}`;

function makeChain(count: number): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  let parent: Hash = `0x${"00".repeat(32)}`;
  for (let n = 0; n < count; n++) {
    const b: Record<string, unknown> = {
      parentHash: parent,
      sha3Uncles: EMPTY_OMMERS_HASH,
      miner: `0x${"00".repeat(20)}`,
      stateRoot: H(n + 1000),
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: `0x${"00".repeat(256)}`,
      difficulty: "0x0",
      number: toQuantity(n),
      gasLimit: "0x1c9c380",
      gasUsed: "0x0",
      timestamp: toQuantity(1_700_000_000 + 12 * n),
      extraData: "0x",
      mixHash: H(n + 5000),
      nonce: "0x0000000000000000",
      baseFeePerGas: "0x7",
      withdrawalsRoot: EMPTY_TRIE_ROOT,
      withdrawals: [],
      transactions: [],
    };
    b.hash = headerHash(parseRpcHeader(b));
    parent = b.hash as Hash;
    blocks.push(b);
  }
  return blocks;
}

describe("L1Client against a programmable fake L1", () => {
  const blocks = makeChain(40);
  let app: FastifyInstance;
  let url = "";
  const calls: string[] = [];
  let active = 0;
  let maxActive = 0;
  let delayMs = 0;
  /** Per-method scripted failures, consumed one per call: an HTTP status or a JSON-RPC error code. */
  const failures = new Map<string, Array<{ http?: number; rpc?: number; hang?: number }>>();
  let tamper: ((b: Record<string, unknown>) => Record<string, unknown>) | undefined;
  /** The block numbers the labels point at. */
  let tags = { latest: 39, safe: 37, finalized: 35 };

  function answer(method: string, params: unknown[]): unknown {
    const full = params[1] === true;
    const shape = (b: Record<string, unknown> | undefined) => {
      if (b === undefined) return null;
      const out = full ? b : { ...b, transactions: [] };
      return tamper ? tamper(out) : out;
    };
    switch (method) {
      case "eth_chainId":
        return "0x384";
      case "eth_getBlockByNumber": {
        const tag = params[0] as string;
        const n = tag === "latest" || tag === "safe" || tag === "finalized" ? tags[tag] : Number(tag);
        return shape(blocks[n]);
      }
      case "eth_getBlockByHash":
        return shape(blocks.find((b) => b.hash === params[0]));
      case "eth_getBlockReceipts":
        return blocks.some((b) => b.hash === params[0]) ? [] : null;
      default:
        return undefined;
    }
  }

  beforeAll(async () => {
    app = Fastify();
    app.post("/", async (req, reply) => {
      const body = req.body as
        | { id: number; method: string; params: unknown[] }
        | { id: number; method: string; params: unknown[] }[];
      const list = Array.isArray(body) ? body : [body];
      for (const c of list) calls.push(c.method);
      const first = list[0] as { method: string };
      const f = failures.get(first.method)?.shift();
      active++;
      maxActive = Math.max(maxActive, active);
      try {
        if (f?.hang !== undefined) await new Promise((r) => setTimeout(r, f.hang));
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        if (f?.http !== undefined) return reply.code(f.http).send("nope");
        const out = list.map((c) => {
          if (f?.rpc !== undefined) return { jsonrpc: "2.0", id: c.id, error: { code: f.rpc, message: "scripted" } };
          const result = answer(c.method, c.params);
          if (result === undefined) return { jsonrpc: "2.0", id: c.id, error: { code: -32601, message: "no method" } };
          return { jsonrpc: "2.0", id: c.id, result };
        });
        return Array.isArray(body) ? out : out[0];
      } finally {
        active--;
      }
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const addr = app.server.address();
    url = `http://127.0.0.1:${typeof addr === "object" && addr !== null ? addr.port : 0}`;
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    // requests abandoned by a client timeout may still be hanging in the server
    while (active > 0) await new Promise((r) => setTimeout(r, 20));
    calls.length = 0;
    failures.clear();
    delayMs = 0;
    maxActive = 0;
    tamper = undefined;
    tags = { latest: 39, safe: 37, finalized: 35 };
  });

  const client = (over: Partial<L1ClientOptions> = {}, reg = new Registry()) =>
    L1Client.create(
      {
        url,
        pollIntervalMs: 60_000,
        maxConcurrency: 4,
        cacheSize: 100,
        timeoutMs: 2_000,
        backoff: { initialMs: 10, maxMs: 50, factor: 2, maxAttempts: 4 },
        ...over,
      },
      { clock: systemClock, logger: silentLogger, metrics: createL1Metrics(reg) },
    );

  it("retries HTTP 503/429 and transient JSON-RPC errors, then succeeds", async () => {
    failures.set("eth_getBlockByNumber", [{ http: 503 }, { http: 429 }, { rpc: -32000 }]);
    const ref = await client().l1BlockRefByNumber(5);
    expect(ref.hash).toBe(blocks[5]?.hash);
    expect(calls.filter((m) => m === "eth_getBlockByNumber").length).toBe(4);
  });

  it("gives up after maxAttempts with a temporary error; malformed-request errors are not retried", async () => {
    failures.set("eth_getBlockByNumber", [{ http: 502 }, { http: 502 }, { http: 502 }, { http: 502 }]);
    await expect(client().l1BlockRefByNumber(6)).rejects.toMatchObject({ code: "RPC_HTTP", severity: "temporary" });
    expect(calls.length).toBe(4);
    calls.length = 0;
    failures.set("eth_getBlockByNumber", [{ rpc: -32602 }]);
    await expect(client().l1BlockRefByNumber(6)).rejects.toMatchObject({ rpcCode: -32602, severity: "critical" });
    expect(calls.length).toBe(1);
    calls.length = 0;
    failures.set("eth_getBlockByNumber", [{ http: 401 }]);
    await expect(client().l1BlockRefByNumber(6)).rejects.toMatchObject({ code: "RPC_HTTP", severity: "critical" });
    expect(calls.length).toBe(1);
  });

  it("times out slow requests (typed RPC_TIMEOUT) and retries them", async () => {
    // The retry that succeeds must answer within timeoutMs: 500 ms leaves room on a loaded machine (was 100 ms).
    failures.set("eth_getBlockByNumber", [{ hang: 1_000 }]);
    const ref = await client({ timeoutMs: 500 }).l1BlockRefByNumber(7);
    expect(ref.number).toBe(7);
    failures.set("eth_getBlockByNumber", [{ hang: 1_000 }, { hang: 1_000 }, { hang: 1_000 }, { hang: 1_000 }]);
    await expect(client({ timeoutMs: 500 }).l1BlockRefByNumber(8)).rejects.toMatchObject({ code: "RPC_TIMEOUT" });
  });

  it("keeps at most maxConcurrency requests in flight", async () => {
    delayMs = 40;
    const c = client({ maxConcurrency: 3 });
    const refs = await Promise.all(Array.from({ length: 15 }, (_, i) => c.l1BlockRefByNumber(i + 1)));
    expect(refs.map((r) => r.number)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(maxActive).toBe(3);
  });

  it("rejects a block whose hash does not match its header, and counts it", async () => {
    const reg = new Registry();
    tamper = (b) => ({ ...b, stateRoot: H(1, "f") });
    await expect(client({}, reg).l1BlockRefByNumber(9)).rejects.toMatchObject({ reason: "block-hash" });
    const m = await reg.getSingleMetric("supernode_l1_errors_total")?.get();
    expect(m?.values.find((v) => v.labels.kind === "invalid")?.value).toBe(1);
    // with --l1.trustrpc the same answer is accepted
    expect((await client({ trustRpc: true }).l1BlockRefByNumber(9)).number).toBe(9);
  });

  it("polls latest/safe/finalized in one batch and serves full blocks and receipts", async () => {
    const c = client();
    await c.pollOnce();
    expect(calls).toEqual(["eth_getBlockByNumber", "eth_getBlockByNumber", "eth_getBlockByNumber"]);
    expect(c.getLabel("latest")?.number).toBe(39);
    expect(c.getLabel("safe")?.number).toBe(37);
    expect(c.getLabel("finalized")?.number).toBe(35);
    const { info, txs } = await c.infoAndTxsByHash(blocks[20]?.hash as Hash);
    expect(info.number).toBe(20);
    expect(txs).toEqual([]);
    const r = await c.fetchReceipts(blocks[20]?.hash as Hash);
    expect(r.receipts).toEqual([]);
    // a finalized block's number → hash mapping is cached: the second lookup sends nothing
    await c.l1BlockRefByNumber(20);
    calls.length = 0;
    expect((await c.l1BlockRefByNumber(20)).hash).toBe(blocks[20]?.hash);
    expect(calls).toEqual([]);
    expect(await c.chainId()).toBe(900n);
  });

  it("keeps number → hash above finalized while the polled heads extend each other, and drops it when one does not", async () => {
    let now = 1_000_000;
    const clock = { nowMs: () => now, sleep: systemClock.sleep };
    const c = L1Client.create(
      { url, pollIntervalMs: 1_000, maxConcurrency: 4, cacheSize: 100, timeoutMs: 2_000 },
      { clock, logger: silentLogger },
    );
    tags = { latest: 30, safe: 25, finalized: 20 };
    for (const head of [30, 31, 32]) {
      tags.latest = head;
      await c.pollOnce();
    }
    const byNumber = async (n: number) => {
      calls.length = 0;
      expect((await c.l1BlockRefByNumber(n)).hash).toBe(blocks[n]?.hash);
      return calls.length;
    };
    now += 10_000; // ten poll intervals later
    expect([await byNumber(30), await byNumber(31), await byNumber(32)]).toEqual([0, 0, 0]);
    // a block fetched by number that is the parent of a followed head joins the followed chain
    expect(await byNumber(29)).toBe(1);
    // one that is not linked to it is kept for one poll interval only
    expect(await byNumber(26)).toBe(1);
    expect(await byNumber(26)).toBe(0);
    now += 10_000;
    expect([await byNumber(29), await byNumber(26)]).toEqual([0, 1]);
    // a head that does not extend the previous one drops every mapping above finalized
    tags.latest = 34;
    await c.pollOnce();
    expect([await byNumber(31), await byNumber(29), await byNumber(34), await byNumber(20)]).toEqual([1, 1, 0, 1]);
    expect(await byNumber(20)).toBe(0);
  });

  it("one caller giving up does not fail the others sharing the same request", async () => {
    delayMs = 150;
    const c = client();
    const ctl = new AbortController();
    const quitter = c.l1BlockRefByNumber(11, ctl.signal);
    const patient = c.l1BlockRefByNumber(11);
    setTimeout(() => ctl.abort(), 30);
    await expect(quitter).rejects.toMatchObject({ code: "ABORTED" });
    expect((await patient).hash).toBe(blocks[11]?.hash);
    expect(calls.filter((m) => m === "eth_getBlockByNumber").length).toBe(1);
  });
});
