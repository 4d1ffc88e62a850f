/**
 * EngineRpcClient against a strict fake Engine API (Fastify on port 0): every request must carry a valid HS256 JWT
 * with a fresh `iat` and exactly the expected JSON body; the fake also checks that calls never overlap (serial queue).
 */
import Fastify, { type FastifyInstance } from "fastify";
import { jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import type { Clock } from "../../../src/core/time/clock.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import type { ExecutionPayload, PayloadAttributes } from "../../../src/protocol/engine-api-types.js";
import { encodeExecutionPayload } from "../../../src/io/engine/engine-types.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { type AttributesFields, attributesFromHex } from "../../../src/protocol/l2/attributes.js";

const SECRET = new Uint8Array(32).map((_, i) => i + 1);
const H = (b: string): Hash => `0x${b.repeat(32)}`;
const STATE = { headBlockHash: H("01"), safeBlockHash: H("02"), finalizedBlockHash: H("03") };

// forks: canyon 100, ecotone 200, holocene 300, isthmus 400, jovian 500
const CFG = {
  genesis: { l1: { hash: H("00"), number: 0 }, l2: { hash: H("00"), number: 0 }, l2_time: 0 },
  block_time: 2,
  regolith_time: 0,
  canyon_time: 100,
  delta_time: 100,
  ecotone_time: 200,
  fjord_time: 200,
  granite_time: 200,
  holocene_time: 300,
  isthmus_time: 400,
  jovian_time: 500,
} as unknown as RollupConfig;

interface Seen {
  method: string;
  params: unknown[];
  iat: number;
  body: string;
}

describe("EngineRpcClient against a strict fake Engine API", () => {
  let app: FastifyInstance;
  let url = "";
  const seen: Seen[] = [];
  let active = 0;
  let overlapped = false;
  const replies = new Map<string, unknown>();
  let delayMs = 0;
  let nowMs = Date.UTC(2026, 5, 1);
  // every reading advances the clock by one second, so each request's token must carry a new iat
  const clock: Clock = { nowMs: () => (nowMs += 1000), sleep: async () => {} };

  beforeAll(async () => {
    app = Fastify();
    app.post("/", async (req, reply) => {
      const auth = req.headers.authorization ?? "";
      const token = auth.startsWith("Bearer ") ? auth.slice(7) : "";
      let iat: number;
      try {
        const { payload, protectedHeader } = await jwtVerify(token, SECRET, { algorithms: ["HS256"] });
        if (protectedHeader.alg !== "HS256" || typeof payload.iat !== "number") throw new Error("bad claims");
        if (Object.keys(payload).join() !== "iat") throw new Error("extra claims");
        iat = payload.iat;
      } catch (err) {
        return reply.code(401).send(`Unauthorized: ${(err as Error).message}`);
      }
      const body = req.body as { jsonrpc: string; id: number; method: string; params: unknown[] };
      expect(body.jsonrpc).toBe("2.0");
      active++;
      if (active > 1) overlapped = true;
      seen.push({ method: body.method, params: body.params, iat, body: JSON.stringify(body.params) });
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      active--;
      const r = replies.get(body.method);
      if (r instanceof Error)
        return { jsonrpc: "2.0", id: body.id, error: { code: Number(r.message), message: "nope" } };
      return { jsonrpc: "2.0", id: body.id, result: r ?? null };
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const addr = app.server.address();
    url = `http://127.0.0.1:${typeof addr === "object" && addr !== null ? addr.port : 0}`;
  });
  afterAll(async () => {
    await app.close();
  });

  const client = (timeoutMs = 30_000) =>
    EngineRpcClient.create(
      { url, jwtSecret: SECRET, kind: "variant_a", timeoutMs, rollupConfig: CFG },
      { clock, logger: silentLogger },
    );

  const attrs = (timestamp: number, extra: Partial<AttributesFields> = {}): PayloadAttributes =>
    attributesFromHex(
      {
        timestamp,
        prevRandao: H("aa"),
        suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
        noTxPool: true,
        gasLimit: 30_000_000n,
        ...extra,
      },
      ["0x7e01"],
    );

  const payload = (timestamp: number): ExecutionPayload => ({
    parentHash: H("11"),
    feeRecipient: "0x4200000000000000000000000000000000000011",
    stateRoot: H("12"),
    receiptsRoot: H("13"),
    logsBloom: `0x${"00".repeat(256)}`,
    prevRandao: H("14"),
    blockNumber: 10,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp,
    extraData: "0x",
    baseFeePerGas: 7n,
    blockHash: H("15"),
    transactions: ["0x7e01"],
    ...(timestamp >= 100 ? { withdrawals: [] } : {}),
    ...(timestamp >= 200 ? { blobGasUsed: 0n, excessBlobGas: 0n } : {}),
    ...(timestamp >= 400 ? { withdrawalsRoot: H("16") } : {}),
  });

  it("sends forkchoiceUpdated V1/V2/V3 with the exact OP attribute JSON", async () => {
    seen.length = 0;
    const fcuResult = { payloadStatus: { status: "VALID", latestValidHash: H("01") }, payloadId: "0x0102030405060708" };
    for (const m of ["V1", "V2", "V3"]) replies.set(`engine_forkchoiceUpdated${m}`, fcuResult);
    const c = client();
    const r0 = await c.forkchoiceUpdated(STATE);
    expect(r0).toEqual({
      payloadStatus: { status: "VALID", latestValidHash: H("01") },
      payloadId: "0x0102030405060708",
    });
    await c.forkchoiceUpdated(STATE, attrs(50));
    await c.forkchoiceUpdated(STATE, attrs(150, { withdrawals: [] }));
    await c.forkchoiceUpdated(STATE, attrs(250, { withdrawals: [], parentBeaconBlockRoot: H("bb") }));
    await c.forkchoiceUpdated(
      STATE,
      attrs(550, {
        withdrawals: [],
        parentBeaconBlockRoot: H("bb"),
        eip1559Params: "0x000000fa00000006",
        minBaseFee: 1000n,
      }),
    );
    expect(seen.map((s) => s.method)).toEqual([
      "engine_forkchoiceUpdatedV3",
      "engine_forkchoiceUpdatedV1",
      "engine_forkchoiceUpdatedV2",
      "engine_forkchoiceUpdatedV3",
      "engine_forkchoiceUpdatedV3",
    ]);
    const st = `{"headBlockHash":"${H("01")}","safeBlockHash":"${H("02")}","finalizedBlockHash":"${H("03")}"}`;
    const common = `"prevRandao":"${H("aa")}","suggestedFeeRecipient":"0x4200000000000000000000000000000000000011"`;
    expect(seen[0]?.body).toBe(`[${st},null]`);
    expect(seen[1]?.body).toBe(
      `[${st},{"timestamp":"0x32",${common},"transactions":["0x7e01"],"noTxPool":true,"gasLimit":"0x1c9c380"}]`,
    );
    expect(seen[2]?.body).toBe(
      `[${st},{"timestamp":"0x96",${common},"withdrawals":[],"transactions":["0x7e01"],"noTxPool":true,"gasLimit":"0x1c9c380"}]`,
    );
    expect(seen[4]?.body).toBe(
      `[${st},{"timestamp":"0x226",${common},"withdrawals":[],"parentBeaconBlockRoot":"${H("bb")}","transactions":["0x7e01"],"noTxPool":true,"gasLimit":"0x1c9c380","eip1559Params":"0x000000fa00000006","minBaseFee":1000}]`,
    );
    // a fresh token per request
    expect(new Set(seen.map((s) => s.iat)).size).toBe(seen.length);
  });

  it("sends newPayload V2/V3/V4 and getPayload V2/V3/V4 by timestamp", async () => {
    seen.length = 0;
    for (const m of ["V2", "V3", "V4"]) {
      replies.set(`engine_newPayload${m}`, { status: "VALID", latestValidHash: H("15"), validationError: null });
    }
    const c = client();
    await c.newPayload({ executionPayload: payload(150) });
    await c.newPayload({ executionPayload: payload(250), parentBeaconBlockRoot: H("bb") });
    const st = await c.newPayload({ executionPayload: payload(450), parentBeaconBlockRoot: H("bb") });
    expect(st).toEqual({ status: "VALID", latestValidHash: H("15"), validationError: null });
    expect(seen.map((s) => s.method)).toEqual(["engine_newPayloadV2", "engine_newPayloadV3", "engine_newPayloadV4"]);
    const p = JSON.stringify({
      parentHash: H("11"),
      feeRecipient: "0x4200000000000000000000000000000000000011",
      stateRoot: H("12"),
      receiptsRoot: H("13"),
      logsBloom: `0x${"00".repeat(256)}`,
      prevRandao: H("14"),
      blockNumber: "0xa",
      gasLimit: "0x1c9c380",
      gasUsed: "0x5208",
      timestamp: "0x1c2",
      extraData: "0x",
      baseFeePerGas: "0x7",
      blockHash: H("15"),
      transactions: ["0x7e01"],
      withdrawals: [],
      blobGasUsed: "0x0",
      excessBlobGas: "0x0",
      withdrawalsRoot: H("16"),
    });
    expect(seen[2]?.body).toBe(`[${p},[],"${H("bb")}",[]]`);
    expect(seen[1]?.params.length).toBe(3);
    expect(seen[0]?.params.length).toBe(1);

    seen.length = 0;
    const env = {
      executionPayload: JSON.parse(p),
      blockValue: "0x1",
      blobsBundle: { commitments: [], proofs: [], blobs: [] },
      shouldOverrideBuilder: false,
      parentBeaconBlockRoot: H("bb"),
      executionRequests: [],
    };
    for (const m of ["V2", "V3", "V4"]) replies.set(`engine_getPayload${m}`, env);
    await c.getPayload("0x0102030405060708", 150);
    await c.getPayload("0x0102030405060708", 250);
    const got = await c.getPayload("0x0102030405060708", 450);
    expect(seen.map((s) => s.method)).toEqual(["engine_getPayloadV2", "engine_getPayloadV3", "engine_getPayloadV4"]);
    expect(seen[0]?.body).toBe(`["0x0102030405060708"]`);
    expect(got.parentBeaconBlockRoot).toBe(H("bb"));
    expect(got.executionPayload).toEqual(payload(450));
  });

  it("newPayload of a sealed payload sends the EL's own JSON back; its envelope alone is encoded afresh", async () => {
    seen.length = 0;
    const c = client();
    const own = {
      ...JSON.parse(JSON.stringify(encodeExecutionPayload(payload(450)))),
      transactions: ["0x7E01"],
      futureField: "0x01",
    };
    replies.set("engine_getPayloadV4", { executionPayload: own, blockValue: "0x1", parentBeaconBlockRoot: H("bb") });
    replies.set("engine_newPayloadV4", { status: "VALID", latestValidHash: H("15"), validationError: null });
    const sealed = await c.sealPayload("0x0102030405060708", 450);
    // decoded for the node (lower-case hex), the EL's JSON kept as it wrote it
    expect(sealed.envelope.executionPayload.transactions).toEqual(["0x7e01"]);
    await c.newPayload(sealed);
    expect(seen[1]?.body).toBe(`[${JSON.stringify(own)},[],"${H("bb")}",[]]`);
    await c.newPayload(sealed.envelope);
    expect(seen[2]?.body).toBe(`[${JSON.stringify(encodeExecutionPayload(payload(450)))},[],"${H("bb")}",[]]`);
  });

  it("typed statuses and errors: INVALID with latestValidHash, -38002 carries rpcCode", async () => {
    replies.set("engine_newPayloadV3", {
      status: "INVALID",
      latestValidHash: H("09"),
      validationError: "bad state root",
    });
    const c = client();
    const st = await c.newPayload({ executionPayload: payload(250), parentBeaconBlockRoot: H("bb") });
    expect(st).toEqual({ status: "INVALID", latestValidHash: H("09"), validationError: "bad state root" });
    replies.set("engine_forkchoiceUpdatedV3", new Error("-38002"));
    await expect(c.forkchoiceUpdated(STATE)).rejects.toMatchObject({ rpcCode: -38002 });
    replies.set("engine_newPayloadV3", { status: "BOGUS" });
    await expect(
      c.newPayload({ executionPayload: payload(250), parentBeaconBlockRoot: H("bb") }),
    ).rejects.toMatchObject({
      code: "DECODE",
    });
  });

  it("never overlaps or reorders engine calls, and times out slow ones", async () => {
    seen.length = 0;
    overlapped = false;
    replies.set("engine_forkchoiceUpdatedV3", { payloadStatus: { status: "VALID" }, payloadId: null });
    replies.set("engine_newPayloadV3", { status: "VALID" });
    delayMs = 60;
    const c = client();
    const calls = [
      c.forkchoiceUpdated(STATE),
      c.newPayload({ executionPayload: payload(250), parentBeaconBlockRoot: H("bb") }),
      c.forkchoiceUpdated({ ...STATE, headBlockHash: H("15") }),
      c.newPayload({ executionPayload: { ...payload(250), blockNumber: 11 }, parentBeaconBlockRoot: H("bb") }),
    ];
    expect(c.pendingEngineCalls).toBe(4);
    await Promise.all(calls);
    expect(overlapped).toBe(false);
    expect(seen.map((s) => s.method)).toEqual([
      "engine_forkchoiceUpdatedV3",
      "engine_newPayloadV3",
      "engine_forkchoiceUpdatedV3",
      "engine_newPayloadV3",
    ]);
    expect((seen[2]?.params[0] as { headBlockHash?: Hash } | undefined)?.headBlockHash).toBe(H("15"));
    delayMs = 500;
    await expect(client(100).forkchoiceUpdated(STATE)).rejects.toMatchObject({
      code: "RPC_TIMEOUT",
      severity: "temporary",
    });
    delayMs = 0;
  });

  it("a wrong secret is refused by the server (HTTP 401 → critical error)", async () => {
    const bad = EngineRpcClient.create(
      { url, jwtSecret: new Uint8Array(32), kind: "variant_a", rollupConfig: CFG },
      { clock, logger: silentLogger },
    );
    await expect(bad.forkchoiceUpdated(STATE)).rejects.toMatchObject({ code: "RPC_HTTP", severity: "critical" });
  });

  it("identify(): rpc_modules answered → variant B; mismatch and end-of-support warnings", async () => {
    replies.set("web3_clientVersion", "Geth/v1.101500.0-stable/linux-amd64/go1.23");
    replies.set("rpc_modules", { eth: "1.0", engine: "1.0" });
    const id = await client().identify();
    expect(id.clientVersion).toContain("Geth/");
    expect(id.detectedKind).toBe("variant_b");
    expect(id.warnings).toEqual([
      "execution client looks like variant_b but l2.enginekind is variant_a",
      "variant B execution client is past its end of support (2026-05-31); migrate to variant A",
    ]);
    replies.set("web3_clientVersion", "reth/v1.9.0-abcdef/x86_64-unknown-linux-gnu");
    replies.set("rpc_modules", new Error("-32601"));
    const id2 = await client().identify();
    expect(id2.detectedKind).toBe("variant_a");
    expect(id2.warnings).toEqual([]);
  });
});
