/**
 * EngineRpcClient against a bare node:http Engine API on port 0 that writes its JSON by hand (whitespace, its own key
 * order, fields the node does not model, escapes): the payload of a getPayload result goes back in newPayload as
 * the very text the EL wrote, byte for byte, also inside a batch with the next build start; the attributes go out as
 * the JSON the EL parses back to the node's attributes; a build start sealed at once brings the same payload back.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import type { PayloadAttributes } from "../../../src/protocol/engine-api-types.js";
import { encodePayloadAttributes } from "../../../src/io/engine/engine-types.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { attributesFromHex } from "../../../src/protocol/l2/attributes.js";

const SECRET = new Uint8Array(32).fill(9);
const H = (b: string): Hash => `0x${b.repeat(32)}`;
const CFG = {
  genesis: { l1: { hash: H("00"), number: 0 }, l2: { hash: H("00"), number: 0 }, l2_time: 0 },
  block_time: 2,
  regolith_time: 0,
  canyon_time: 0,
  delta_time: 0,
  ecotone_time: 0,
  fjord_time: 0,
  granite_time: 0,
  holocene_time: 0,
  isthmus_time: 0,
} as unknown as RollupConfig;

const TXS: Hex[] = ["0x7ef8f8aa", `0x02${"ab".repeat(600)}`, "0x01cd"];

/** The EL's payload, as it writes it: pretty-printed, its own order, an unmodelled field with escapes. */
const PAYLOAD_TEXT = `{
    "blockHash" : "${H("15")}",
    "parentHash": "${H("11")}", "feeRecipient": "0x4200000000000000000000000000000000000011",
    "stateRoot": "${H("12")}", "receiptsRoot": "${H("13")}", "logsBloom": "0x${"00".repeat(256)}",
    "prevRandao": "${H("14")}", "blockNumber": "0xa", "gasLimit": "0x1c9c380", "gasUsed": "0x5208",
    "timestamp": "0x64", "extraData": "0x00000000fa00000006", "baseFeePerGas": "0x7",
    "transactions": [ "${TXS[0]}", "${TXS[1]!.toUpperCase().replace("0X", "0x")}", "${TXS[2]}" ],
    "withdrawals": [], "blobGasUsed": "0x0", "excessBlobGas": "0x0", "withdrawalsRoot": "${H("16")}",
    "futureField": {"note": "a \\"quoted\\" }] value \\\\", "list": [1, 2.5e3, true, null]}
  }`;

/** The same payload holding exactly the transactions asked for (lower case, as the node has them). */
const PAYLOAD_TEXT_EXACT = PAYLOAD_TEXT.replace(TXS[1]!.toUpperCase().replace("0X", "0x"), TXS[1]!);
/** getPayload ids the EL answers: with the upper-case payload, the exact one, or an error. */
const ID_UPPER = "0x0102030405060708";
const ID_EXACT = "0x0000000000000002";
const ID_UNKNOWN = "0x0000000000000003";

describe("EngineRpcClient: the EL's own payload text goes back as it is", () => {
  let server: Server;
  let url = "";
  const bodies: string[] = [];
  /** The payload id a forkchoice update returns; "echo": the id of the batch's getPayload (a prediction that held). */
  let fcuPayloadId: string | null | "echo" = null;
  /** What getPayload of an id outside the fixed ones answers. */
  let predictedPayload: string | "unknown" = PAYLOAD_TEXT;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on("data", (d: Buffer) => parts.push(d));
      req.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        bodies.push(text);
        const body = JSON.parse(text);
        type Call = { id: number; method: string; params: unknown[] };
        const gp = Array.isArray(body)
          ? (body as Call[]).find((c) => c.method.startsWith("engine_getPayload"))
          : undefined;
        const answer = (c: Call) => {
          if (c.method === "engine_getPayloadV4") {
            const id = c.params[0];
            const fixed = id === ID_EXACT ? PAYLOAD_TEXT_EXACT : id === ID_UPPER ? PAYLOAD_TEXT : undefined;
            const payload = id === ID_UNKNOWN ? "unknown" : (fixed ?? predictedPayload);
            if (payload === "unknown")
              return `{"jsonrpc":"2.0","id":${c.id},"error":{"code":-38001,"message":"Unknown payload"}}`;
            return `{"jsonrpc":"2.0", "id": ${c.id},\n  "result": {"blockValue": "0x1",\n  "executionPayload": ${payload},\n  "parentBeaconBlockRoot": "${H("bb")}", "executionRequests": []}}`;
          }
          const payloadId = fcuPayloadId === "echo" ? (gp?.params[0] ?? null) : fcuPayloadId;
          const result = c.method.startsWith("engine_newPayload")
            ? { status: "VALID", latestValidHash: H("15"), validationError: null }
            : { payloadStatus: { status: "VALID", latestValidHash: H("15"), validationError: null }, payloadId };
          return JSON.stringify({ jsonrpc: "2.0", id: c.id, result });
        };
        const out = Array.isArray(body) ? `[${body.map(answer).join(",")}]` : answer(body);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(out);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("newPayload and the batch carry the payload text byte for byte; the attributes parse back exactly", async () => {
    const c = EngineRpcClient.create(
      { url, jwtSecret: SECRET, kind: "variant_a", rollupConfig: CFG },
      { clock: systemClock, logger: silentLogger },
    );
    const sealed = await c.sealPayload(ID_UPPER, 100);
    const env = sealed.envelope;
    // Decoded for the node: lower-case hex (the upper-case transaction is checked and lower-cased).
    expect(env.executionPayload.transactions).toEqual(TXS);
    expect(env.executionPayload.blockNumber).toBe(10);
    bodies.length = 0;
    await c.newPayload(sealed);
    expect(bodies[0]).toContain(`"params":[${PAYLOAD_TEXT},[],"${H("bb")}",[]]`);
    const attrs: PayloadAttributes = attributesFromHex(
      {
        timestamp: 102,
        prevRandao: H("aa"),
        suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
        withdrawals: [],
        parentBeaconBlockRoot: H("bc"),
        noTxPool: true,
        gasLimit: 30_000_000n,
        eip1559Params: "0x000000fa00000006",
      },
      TXS,
    );
    const state = { headBlockHash: H("15"), safeBlockHash: H("02"), finalizedBlockHash: H("03") };
    const { inserted, forkchoice } = await c.startBuild({ state, attrs, insert: sealed, sealAtOnce: false });
    expect(inserted).toMatchObject({ status: "VALID" });
    expect(forkchoice).toMatchObject({ payloadStatus: { status: "VALID" } });
    expect(bodies[1]).toContain(`"params":[${PAYLOAD_TEXT},[],"${H("bb")}",[]]`);
    const batch = JSON.parse(bodies[1]!);
    expect(batch.map((b: { method: string }) => b.method)).toEqual([
      "engine_newPayloadV4",
      "engine_forkchoiceUpdatedV3",
    ]);
    expect(batch[1].params).toEqual([state, encodePayloadAttributes(attrs)]);
    // The envelope alone is encoded afresh (no text travels with it).
    bodies.length = 0;
    await c.newPayload(env);
    expect(bodies[0]).not.toContain("futureField");
    expect(JSON.parse(bodies[0]!).params[0].transactions).toEqual(TXS);
  });

  it("build start with getPayload: the same payload whether its transactions are the ones asked for or not", async () => {
    const c = EngineRpcClient.create(
      { url, jwtSecret: SECRET, kind: "variant_a", rollupConfig: CFG },
      { clock: systemClock, logger: silentLogger },
    );
    const attrs: PayloadAttributes = attributesFromHex(
      {
        timestamp: 100,
        prevRandao: H("14"),
        suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
        withdrawals: [],
        parentBeaconBlockRoot: H("bb"),
        noTxPool: true,
        gasLimit: 30_000_000n,
        eip1559Params: "0x000000fa00000006",
      },
      TXS,
    );
    const state = { headBlockHash: H("11"), safeBlockHash: H("02"), finalizedBlockHash: H("03") };
    const start = () => c.startBuild({ state, attrs, sealAtOnce: true });
    // Exactly the transactions asked for (taken as known, not parsed again) and one in upper case (checked, lower-
    // cased): the same envelope as getPayload decodes; each payload's own text goes back in its newPayload.
    const alone = await c.getPayload(ID_UPPER, 100);
    fcuPayloadId = "echo";
    try {
      for (const text of [PAYLOAD_TEXT_EXACT, PAYLOAD_TEXT]) {
        predictedPayload = text;
        bodies.length = 0;
        const r = await start();
        expect(bodies).toHaveLength(1); // one request: the build start and its getPayload
        expect(r.forkchoice).toMatchObject({ payloadStatus: { status: "VALID" } });
        expect(r.sealed?.envelope).toEqual(alone);
        bodies.length = 0;
        await c.newPayload(r.sealed!);
        expect(bodies[0]).toContain(`"params":[${text},[],"${H("bb")}",[]]`);
      }
      // The batched getPayload failed: the update's result stands, no payload, and prediction stops for this EL.
      predictedPayload = "unknown";
      const failed = await start();
      expect(failed.forkchoice).toMatchObject({ payloadStatus: { status: "VALID" } });
      expect(failed.sealed).toBeUndefined();
      expect(c.predictsPayloadIds).toBe(false);
      bodies.length = 0;
      await start();
      expect(JSON.parse(bodies[0]!).method).toBe("engine_forkchoiceUpdatedV3"); // alone, not in a batch
    } finally {
      fcuPayloadId = null;
      predictedPayload = PAYLOAD_TEXT;
    }
  });
});
