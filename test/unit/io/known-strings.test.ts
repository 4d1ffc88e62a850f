import { describe, expect, it } from "vitest";
import { type KnownStrings, parseWithKnownStrings } from "../../../src/io/json-rpc/raw-json.js";

/** The build-start batch's getPayload response shape, with the payload's transactions `txs`. */
const tx = (b: string, n: number): string => `0x${b.repeat(n)}`;
const TXS = [tx("7e", 250), tx("02", 400), tx("01", 3), "0x"];
const PATH = ["result", "executionPayload", "transactions"];

function envelope(txs: unknown): unknown {
  return {
    executionPayload: {
      parentHash: tx("aa", 32),
      blockNumber: "0x10",
      extraData: "0x",
      transactions: txs,
      withdrawals: [],
    },
    blockValue: "0x0",
    blobsBundle: { commitments: [], proofs: [], blobs: [] },
    shouldOverrideBuilder: false,
  };
}

function batch(txs: unknown = TXS): unknown[] {
  return [
    { jsonrpc: "2.0", id: 4, result: { status: "VALID", latestValidHash: tx("bb", 32), validationError: null } },
    { jsonrpc: "2.0", id: 5, result: { payloadStatus: { status: "VALID" }, payloadId: "0x0300000000000001" } },
    { jsonrpc: "2.0", id: 6, result: envelope(txs) },
  ];
}

const KNOWN: KnownStrings = { id: 6, path: PATH, strings: TXS };
/** The same with the request's joined text of the strings (compared in one piece when the array is compact). */
const KNOWN_JOINED: KnownStrings = { ...KNOWN, joined: TXS.join('","') };

/** The fast path was taken and its result is exactly what JSON.parse makes of the text. */
function expectSameAsJsonParse(text: string, known: KnownStrings = KNOWN): unknown {
  const got = parseWithKnownStrings(text, known);
  expect(got).toBeDefined();
  expect(got).toEqual(JSON.parse(text));
  return got;
}

describe("parseWithKnownStrings: a response's known strings compared in place, the rest parsed", () => {
  it("takes the known strings (a copy of the caller's array) when the response holds exactly them", () => {
    const got = expectSameAsJsonParse(JSON.stringify(batch())) as { result: { executionPayload: object } }[];
    const txs = (got[2]!.result.executionPayload as { transactions: string[] }).transactions;
    expect(txs).not.toBe(TXS); // the caller's array is never handed out (the decoder may keep the parsed one)
    txs.push("0x00");
    expect(TXS).toHaveLength(4);
  });

  it("reads formatted text as a real EL may write it: whitespace, line breaks, member and element order", () => {
    expectSameAsJsonParse(JSON.stringify(batch(), null, 2));
    expectSameAsJsonParse(JSON.stringify(batch(), null, "\t").replaceAll("\n", "\r\n"));
    expectSameAsJsonParse(JSON.stringify([...batch()].reverse()));
    // id after result, transactions first in the payload
    const el = { result: { executionPayload: { transactions: TXS, blockNumber: "0x1" } }, id: 6, jsonrpc: "2.0" };
    expectSameAsJsonParse(JSON.stringify([el]));
    expectSameAsJsonParse(
      `[ { "id" : 6 , "result" : { "executionPayload" : { "transactions" : [ ${TXS.map((t) => `"${t}"`).join(" ,\n ")} ] } } } ]`,
    );
    // a string elsewhere that looks like the path
    const decoy = { jsonrpc: "2.0", id: 7, result: { note: '"executionPayload":{"transactions":[' } };
    expectSameAsJsonParse(JSON.stringify([decoy, ...batch()]));
  });

  it("no transactions: an empty array, also with space inside", () => {
    const known = { ...KNOWN, strings: [] };
    expectSameAsJsonParse(JSON.stringify(batch([])), known);
    expectSameAsJsonParse(JSON.stringify(batch([])).replace("[]", "[ \n ]"), known);
  });

  it("a single response (no batch): the path from the root object", () => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 9, result: envelope(TXS) });
    expectSameAsJsonParse(text, { path: PATH, strings: TXS });
    expect(parseWithKnownStrings(text, KNOWN)).toBeUndefined(); // not an array
  });

  it("falls back (undefined) whenever the response is not exactly the known strings where expected", () => {
    const cases: Record<string, string> = {
      "error element": JSON.stringify([
        ...batch().slice(0, 2),
        { jsonrpc: "2.0", id: 6, error: { code: -38001, message: "Unknown payload" } },
      ]),
      "no element with the id": JSON.stringify(batch().slice(0, 2)),
      "null result": JSON.stringify([{ jsonrpc: "2.0", id: 6, result: null }]),
      "no executionPayload (a V1 payload)": JSON.stringify([{ jsonrpc: "2.0", id: 6, result: { transactions: TXS } }]),
      "no transactions member": JSON.stringify(batch()).replace(/"transactions":\[[^\]]*\],/, ""),
      "transactions null": JSON.stringify(batch(null)),
      "one transaction differs": JSON.stringify(batch([TXS[0], `${tx("02", 399)}03`, TXS[2], TXS[3]])),
      "a transaction in upper case": JSON.stringify(
        batch([TXS[0]!.toUpperCase().replace("0X", "0x"), ...TXS.slice(1)]),
      ),
      "one transaction more": JSON.stringify(batch([...TXS, "0x01"])),
      "one transaction fewer": JSON.stringify(batch(TXS.slice(0, 3))),
      "a transaction longer": JSON.stringify(batch([`${TXS[0]}00`, ...TXS.slice(1)])),
      "a transaction not a string": JSON.stringify(batch([TXS[0], 5, TXS[2], TXS[3]])),
      "a string written with an escape": JSON.stringify(batch()).replace(`"${TXS[2]}"`, `"0x\\u0030101"`),
      "the key written with an escape": JSON.stringify(batch()).replace('"transactions"', '"transaction\\u0073"'),
      "a later duplicate key": JSON.stringify(batch()).replace('"withdrawals":[]', '"transactions":["0x01"]'),
      "a later element with the same id": JSON.stringify([
        ...batch(),
        { jsonrpc: "2.0", id: 6, result: envelope(["0x01"]) },
      ]),
      "the rest is not JSON": JSON.stringify(batch()).replace('"blockValue":"0x0"', '"blockValue":0x0'),
      truncated: JSON.stringify(batch()).slice(0, -3),
      "not JSON at all": "<html>502 Bad Gateway</html>",
      empty: "",
    };
    for (const [name, text] of Object.entries(cases)) {
      expect(parseWithKnownStrings(text, KNOWN), name).toBeUndefined();
    }
    // a later element with the same id that holds them: JSON.parse's (last) element is the one compared
    const twice = [{ jsonrpc: "2.0", id: 6, result: envelope(["0x01"]) }, ...batch()];
    expect(parseWithKnownStrings(JSON.stringify(twice), KNOWN)).toBeUndefined();
  });

  it("an EL that writes a placeholder of its own in a later element gets what JSON.parse makes of it", () => {
    // The known array is where the scan looks (the first element with the id); the later element, the one JSON.parse
    // keeps, holds a string shaped like the node's stand-in. The node's stand-in carries a per-process token, so
    // that string is never taken for it: the result is never the known strings.
    for (const own of ["\u0000supernode:known-strings", "\u0000supernode:known-strings:00", ""]) {
      const text = JSON.stringify([...batch(), { jsonrpc: "2.0", id: 6, result: envelope(own) }]);
      const got = parseWithKnownStrings(text, KNOWN);
      if (got !== undefined) expect(got).toEqual(JSON.parse(text));
      const last = (JSON.parse(text) as { result: { executionPayload: { transactions: unknown } } }[])[3]!;
      expect(last.result.executionPayload.transactions).toBe(own);
      expect(got === undefined || (got as (typeof last)[])[3]!.result.executionPayload.transactions === own).toBe(true);
    }
  });

  it("with the joined text: the same results, compact or formatted, and the same fallbacks", () => {
    expectSameAsJsonParse(JSON.stringify(batch()), KNOWN_JOINED);
    expectSameAsJsonParse(JSON.stringify(batch(), null, 2), KNOWN_JOINED); // whitespace: string by string
    expectSameAsJsonParse(JSON.stringify([...batch()].reverse()), KNOWN_JOINED);
    const got = parseWithKnownStrings(JSON.stringify(batch()), KNOWN_JOINED) as { result: object }[];
    const txs = (got[2]!.result as { executionPayload: { transactions: string[] } }).executionPayload.transactions;
    expect(txs).toEqual(TXS);
    expect(txs).not.toBe(TXS);
    for (let i = 0; i < TXS.length; i++) expect(txs[i]).toBe(TXS[i]);
    // a response that differs anywhere in the array is not taken
    const differing = [
      [TXS[0], `${tx("02", 399)}03`, TXS[2], TXS[3]],
      [...TXS, "0x01"],
      TXS.slice(0, 3),
      [`${TXS[0]}00`, ...TXS.slice(1)],
      [TXS[0]!.toUpperCase().replace("0X", "0x"), ...TXS.slice(1)],
      [TXS.join('","')], // one string holding the others' separators
    ];
    for (const d of differing) expect(parseWithKnownStrings(JSON.stringify(batch(d)), KNOWN_JOINED)).toBeUndefined();
    expect(
      parseWithKnownStrings(JSON.stringify(batch()).replace('"transactions":["', '"transactions":[ "'), {
        ...KNOWN_JOINED,
        strings: [...TXS.slice(0, 3), "0x01"],
        joined: [...TXS.slice(0, 3), "0x01"].join('","'),
      }),
    ).toBeUndefined();
    // an empty array: nothing joined to compare, string by string (none)
    expectSameAsJsonParse(JSON.stringify(batch([])), { ...KNOWN, strings: [], joined: "" });
  });

  it("known strings that would need an escape never match, even when the text holds them verbatim", () => {
    const odd = ['0x"', "0x\\"];
    for (const s of odd) {
      const text = JSON.stringify(batch(["0x01"])).replace('"0x01"', `"${s}"`);
      expect(parseWithKnownStrings(text, { ...KNOWN, strings: [s] })).toBeUndefined();
    }
  });
});
