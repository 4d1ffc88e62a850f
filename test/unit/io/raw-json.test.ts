import { describe, expect, it } from "vitest";
import type { Hex } from "../../../src/core/types/primitives.js";
import type { PayloadAttributes } from "../../../src/protocol/engine-api-types.js";
import { encodePayloadAttributes, encodePayloadAttributesParts } from "../../../src/io/engine/engine-types.js";
import { type AttributesFields, attributesFromHex } from "../../../src/protocol/l2/attributes.js";
import {
  jsonArrayItemValueAt,
  jsonArrayItemWithId,
  jsonValueAt,
  RawJson,
  requestJson,
  requestParts,
} from "../../../src/io/json-rpc/raw-json.js";

const H = (b: string): Hex => `0x${b.repeat(32)}` as Hex;

describe("raw JSON for the Engine API's large requests and responses", () => {
  it("requestJson: JSON.stringify's text without RawJson; RawJson elements inserted verbatim", () => {
    const params = [{ a: 1, b: [H("aa")] }, null, 'x"y\\', 5, undefined];
    expect(requestJson(7, "m_x", params)).toBe(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "m_x", params }));
    const raw = requestJson(8, "engine_newPayloadV4", [new RawJson('{ "k" : [1, 2] }'), [], H("bb"), undefined]);
    expect(raw).toBe(
      `{"jsonrpc":"2.0","id":8,"method":"engine_newPayloadV4","params":[{ "k" : [1, 2] },[],"${H("bb")}",null]}`,
    );
    expect(JSON.parse(raw).params[0]).toEqual({ k: [1, 2] });
  });

  it("requestParts: the request objects' text (a batch array or one object), large RawJson parts kept apart", () => {
    const payload = `{ "transactions": ["0x${"ab".repeat(1000)}"] }`;
    const txs = `["0x${"cd".repeat(600)}","0x7e"]`;
    const calls = [
      { method: "engine_newPayloadV4", params: [new RawJson(payload), [], H("bb"), []] },
      {
        method: "engine_forkchoiceUpdatedV3",
        params: [{ h: H("01") }, new RawJson(['{"a":1,"transactions":', txs, ',"z":"0x"}'])],
      },
      { method: "engine_getPayloadV4", params: ["0x0300000000000001"] },
      { method: "m_small", params: [new RawJson('{"k":[1]}'), undefined, 'x"y'] },
    ];
    const batch = requestParts(calls, 7, true);
    expect(batch.join("")).toBe(`[${calls.map((c, i) => requestJson(7 + i, c.method, c.params)).join(",")}]`);
    expect(JSON.parse(batch.join("")).map((c: { id: number }) => c.id)).toEqual([7, 8, 9, 10]);
    expect(batch).toContain(payload);
    expect(batch).toContain(txs);
    expect(batch.join("")).toContain(`"params":[{"h":"${H("01")}"},{"a":1,"transactions":${txs},"z":"0x"}]`);
    for (const c of calls) expect(requestParts([c], 3, false).join("")).toBe(requestJson(3, c.method, c.params));
    expect(new RawJson(["[1,", "2]"]).text).toBe("[1,2]");
  });

  it("jsonValueAt: the member's text exactly, across whitespace, escapes and nesting", () => {
    const text = `{ "jsonrpc" : "2.0", "id":1,
      "note": "a \\"result\\": {\\"executionPayload\\": 1} inside a string \\\\",
      "result" : {
        "blockValue": 1e+3, "flags": [true, false, null, {"x": "}]"}],
        "executionPayload" :  {"transactions": ["0x01", "0x02"], "nested": {"a": [[], {}], "b": "\\\\"}, "n": -1.5E-2} ,
        "last": "z"
      }
    }`;
    const payload = jsonValueAt(text, ["result", "executionPayload"]);
    expect(payload).toBe(`{"transactions": ["0x01", "0x02"], "nested": {"a": [[], {}], "b": "\\\\"}, "n": -1.5E-2}`);
    const parsed = JSON.parse(text);
    expect(JSON.parse(payload!)).toEqual(parsed.result.executionPayload);
    for (const path of [["id"], ["result", "blockValue"], ["result", "flags"], ["result", "last"], ["note"], []]) {
      const got = jsonValueAt(text, path);
      expect(got, path.join(".")).toBeDefined();
      const want = path.reduce((o: Record<string, unknown>, k) => o[k] as Record<string, unknown>, parsed);
      expect(JSON.parse(got!), path.join(".")).toEqual(want);
    }
    expect(jsonValueAt(text, ["result", "missing"])).toBeUndefined();
    expect(jsonValueAt(text, ["id", "x"])).toBeUndefined(); // not under an object
    expect(jsonValueAt(`{"resul\\u0074": 1}`, ["result"])).toBeUndefined(); // a key written with escapes
    expect(jsonValueAt(`[{"result": 1}]`, ["result"])).toBeUndefined();
  });

  it("the attributes' request parts are JSON.stringify(encodePayloadAttributes(...)) for every shape", () => {
    const base: AttributesFields = {
      timestamp: 1_700_000_000,
      prevRandao: H("aa"),
      suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
      noTxPool: true,
      gasLimit: 30_000_000n,
    };
    const txs: Hex[] = ["0x7e01", H("cd"), "0x"];
    const shapes: PayloadAttributes[] = [
      attributesFromHex(base, txs),
      attributesFromHex({ ...base, noTxPool: false }, []),
      attributesFromHex({ ...base, withdrawals: [], parentBeaconBlockRoot: H("bb") }, txs),
      attributesFromHex({ ...base, eip1559Params: "0x000000fa00000006", minBaseFee: 7n }, txs),
    ];
    for (const a of shapes) {
      for (const standardOnly of [false, true]) {
        expect(encodePayloadAttributesParts(a, standardOnly).join("")).toBe(
          JSON.stringify(encodePayloadAttributes(a, standardOnly)),
        );
      }
    }
  });
});

describe("jsonArrayItemWithId", () => {
  it("finds a batch element by its top-level id, in any order, across whitespace and nested ids", () => {
    const a = '{"jsonrpc":"2.0","result":{"id":7,"s":"]\\"id\\":7,"},"id":8}';
    const b = '{ "id" : 7 , "result" : [1, {"id": 8}] }';
    const text = ` [ ${a} ,\n ${b}, {"id":9,"error":{"code":-38001,"message":"Unknown payload"}} ] `;
    expect(JSON.parse(text)).toHaveLength(3);
    expect(jsonArrayItemWithId(text, 7)).toBe(b);
    expect(jsonArrayItemWithId(text, 8)).toBe(a);
    expect(JSON.parse(jsonArrayItemWithId(text, 9) ?? "null")).toMatchObject({ error: { code: -38001 } });
    expect(jsonArrayItemWithId(text, 10)).toBeUndefined();
    expect(jsonArrayItemWithId(a, 8)).toBeUndefined(); // not an array
    expect(jsonArrayItemWithId("[]", 1)).toBeUndefined();
  });
});

describe("jsonArrayItemValueAt", () => {
  it("is jsonValueAt of jsonArrayItemWithId's element, in any member order, across whitespace and escapes", () => {
    const payload = '{"blockHash":"0x01","transactions":["0x7e\\"x","0x02"],"n":{"id":3}}';
    const items = [
      '{"jsonrpc":"2.0","id":1,"result":{"status":"VALID"}}',
      '{ "result" : { "payloadStatus" : { "status" : "VALID" }, "payloadId" : "0x03" } , "id" : 2, "jsonrpc":"2.0" }',
      `{"jsonrpc":"2.0","id":3,"result":{"executionPayload":${payload},"blockValue":"0x0"}}`,
      `{"result":{"blockValue":"0x0","executionPayload":${payload}},"jsonrpc":"2.0","id":4}`,
      '{"jsonrpc":"2.0","id":5,"error":{"code":-38001,"message":"Unknown payload"}}',
    ];
    const text = ` [ ${items.join(" ,\n ")} ] `;
    expect(JSON.parse(text)).toHaveLength(5);
    const paths = [["result"], ["result", "executionPayload"], ["result", "payloadStatus", "status"], ["error"], []];
    for (const id of [1, 2, 3, 4, 5, 6]) {
      for (const path of paths) {
        const item = jsonArrayItemWithId(text, id);
        expect(jsonArrayItemValueAt(text, id, path)).toBe(item === undefined ? undefined : jsonValueAt(item, path));
      }
    }
    expect(jsonArrayItemValueAt(text, 3, ["result", "executionPayload"])).toBe(payload);
    expect(jsonArrayItemValueAt(text, 4, ["result", "executionPayload"])).toBe(payload);
    expect(jsonArrayItemValueAt(items[2]!, 3, ["result"])).toBeUndefined(); // not an array
    expect(jsonArrayItemValueAt("[]", 1, ["result"])).toBeUndefined();
  });
});
