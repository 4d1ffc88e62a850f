/**
 * JSON text handled without `JSON.stringify`/`JSON.parse` where a request or response carries kilobytes of hex
 * strings (the Engine API's payloads and attributes: ~10 kB of transactions per block). On Node 20, JSON.stringify
 * scans every character of a string for escapes (~1.5 ns per character: ~15 µs for a block's transactions), while
 * `indexOf` of one character runs at memory speed; and a value the EL wrote can be sent back as the EL wrote it.
 */

import { randomBytes } from "node:crypto";

/**
 * JSON text that goes into a request as it is (already serialised, e.g. the EL's own JSON of a payload), given whole
 * or as parts that are written one after the other (the request is then never copied into one string first).
 */
export class RawJson {
  /** The text, or its parts (no array is made for a text given whole: a payload's text is kept per block). */
  readonly json: string | readonly string[];

  constructor(json: string | readonly string[]) {
    this.json = json;
  }

  get text(): string {
    return typeof this.json === "string" ? this.json : this.json.join("");
  }
}

/**
 * A JSON-RPC 2.0 request object as text; elements of `params` that are {@link RawJson} are inserted verbatim, the
 * others serialised as JSON.stringify would (undefined → null, as in an array).
 */
export function requestJson(id: number, method: string, params: readonly unknown[]): string {
  let raw = false;
  for (let i = 0; i < params.length; i++) {
    if (params[i] instanceof RawJson) {
      raw = true;
      break;
    }
  }
  if (!raw) return JSON.stringify({ jsonrpc: "2.0", id, method, params });
  return requestParts([{ method, params }], id, false).join("");
}

/** A JSON-RPC call as {@link requestParts} takes it. */
export interface CallJson {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** RawJson parts at least this long are written into the request as they are (not copied into a string first). */
const LARGE_PART = 1024;

/**
 * The text of request objects for `calls` (ids from `firstId` on; a batch array when `batch`) as parts to be written
 * one after the other: `requestParts(...).join("")` is the request (each object as {@link requestJson} writes it).
 * The large RawJson parts (a payload's ~12 kB of JSON, a block's ~10 kB of transactions) stay parts of their own,
 * the short text between them is joined, so a transport that writes the parts into its buffer copies every byte
 * once instead of flattening a ~25 kB string first (docs/adr/0101).
 */
export function requestParts(calls: readonly CallJson[], firstId: number, batch: boolean): string[] {
  const out: string[] = [];
  let cur = batch ? "[" : "";
  for (let i = 0; i < calls.length; i++) {
    const { method, params } = calls[i]!;
    if (i > 0) cur += ",";
    cur += `{"jsonrpc":"2.0","id":${firstId + i},"method":${JSON.stringify(method)},"params":[`;
    for (let j = 0; j < params.length; j++) {
      const p = params[j];
      if (j > 0) cur += ",";
      if (!(p instanceof RawJson)) {
        cur += JSON.stringify(p) ?? "null";
        continue;
      }
      const json = p.json;
      if (typeof json === "string") cur = addPart(out, cur, json);
      else for (let k = 0; k < json.length; k++) cur = addPart(out, cur, json[k]!);
    }
    cur += "]}";
  }
  if (batch) cur += "]";
  out.push(cur);
  return out;
}

/** `part` appended to the short text `cur` (returned), or pushed to `out` as a part of its own when it is large. */
function addPart(out: string[], cur: string, part: string): string {
  if (part.length < LARGE_PART) return cur + part;
  if (cur !== "") out.push(cur);
  out.push(part);
  return "";
}

/**
 * `JSON.stringify(strings)` for strings that are hex in practice (transactions): a string without a quote or a
 * backslash is written between quotes as it is, so nothing can close the string early; any string with either
 * falls back to JSON.stringify for the whole array. (A control character, which no hex string holds, would go out
 * unescaped: invalid JSON that the EL refuses, as it refuses a transaction that is not hex.)
 */
export function hexArrayJson(strings: readonly string[]): string {
  const inner = hexArrayInner(strings);
  if (inner === undefined) return JSON.stringify(strings);
  return strings.length === 0 ? "[]" : `["${inner}"]`;
}

/**
 * The text between `["` and `"]` of {@link hexArrayJson}'s array (`strings.join('","')`, one flat string), or
 * undefined when a string holds a quote or a backslash (JSON.stringify's text then). The strings are not scanned
 * one by one (which would flatten each, e.g. a `0x…` hex made by concatenation: a copy of every transaction): the
 * joined text is, once — it holds no backslash, and exactly the separators' quotes.
 */
export function hexArrayInner(strings: readonly string[]): string | undefined {
  for (let i = 0; i < strings.length; i++) if (typeof strings[i] !== "string") return undefined;
  const joined = strings.join('","');
  if (joined.indexOf("\\") >= 0) return undefined;
  let quotes = 0;
  for (let q = joined.indexOf('"'); q >= 0; q = joined.indexOf('"', q + 1)) quotes++;
  return quotes === 2 * Math.max(0, strings.length - 1) ? joined : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index just past the string whose opening quote is at `q`. */
function stringEnd(text: string, q: number): number {
  let j = q;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) return -1;
    let k = j - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1; // an even number of backslashes before it: the closing quote
  }
}

function skipSpace(text: string, i: number): number {
  let c = text.charCodeAt(i);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  return i;
}

/** Index just past the JSON value that starts at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === QUOTE) {
        j = stringEnd(text, j) - 1;
        if (j < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d /* } */ || d === 0x5d /* ] */) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A number or a literal: up to the next delimiter.
  let j = i;
  for (; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
  }
  return j;
}

/**
 * Where the value of member `key` of the object starting at `obj` starts; -1 when `obj` is not an object or has no
 * such member (a key written with escapes does not match). Only the members before it are scanned, to their ends.
 */
function memberStart(text: string, obj: number, key: string): number {
  if (text.charCodeAt(obj) !== 0x7b /* { */) return -1;
  let i = skipSpace(text, obj + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return -1;
    const v = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    if (keyEnd - i - 2 === key.length && text.startsWith(key, i + 1)) return v;
    const vEnd = valueEnd(text, v);
    if (vEnd < 0) return -1;
    i = skipSpace(text, vEnd);
    if (text.charCodeAt(i) !== 0x2c /* , */) return -1;
    i = skipSpace(text, i + 1);
  }
  return -1;
}

/** The text of the value at `path` under the value starting at `start`; every value on the way scanned at most once. */
function valueTextAt(text: string, start: number, path: readonly string[]): string | undefined {
  const at = valueStartAt(text, start, path);
  if (at < 0) return undefined;
  const end = valueEnd(text, at);
  return end < 0 ? undefined : text.slice(at, end);
}

/**
 * The text of the value at `path` (object keys, from the root) inside `text`, which must be valid JSON (text that
 * JSON.parse accepted); undefined when a key is missing, is not under an object, or is written with escapes.
 * Strings are skipped with `indexOf`, so finding a member costs a few µs however long its strings are; only the
 * members before each key of the path and the value found are scanned, each once.
 */
export function jsonValueAt(text: string, path: readonly string[]): string | undefined {
  return valueTextAt(text, skipSpace(text, 0), path);
}

/**
 * `jsonValueAt(jsonArrayItemWithId(text, id), path)` without scanning the element twice: in the element of the
 * top-level array `text` (valid JSON) whose `id` member is the number `id`, the value at `path` (e.g. `["result",
 * "executionPayload"]` of one call of a JSON-RPC batch). The elements before it are scanned to their ends; in it,
 * the members before `id` and before each key of the path, and the value found.
 */
export function jsonArrayItemValueAt(text: string, id: number, path: readonly string[]): string | undefined {
  const at = arrayItemValueStart(text, id, path);
  if (at < 0) return undefined;
  const end = valueEnd(text, at);
  return end < 0 ? undefined : text.slice(at, end);
}

/** Where the value at `path` starts in the first element of the top-level array `text` whose `id` is `id`; -1: none. */
function arrayItemValueStart(text: string, id: number, path: readonly string[]): number {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x5b /* [ */) return -1;
  const want = String(id);
  i = skipSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== 0x5d /* ] */) {
    const idAt = memberStart(text, i, "id");
    if (idAt >= 0) {
      const idEnd = valueEnd(text, idAt);
      if (idEnd > idAt && text.slice(idAt, idEnd) === want) return valueStartAt(text, i, path);
    }
    const end = valueEnd(text, i);
    if (end < 0) return -1;
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c /* , */) break;
    i = skipSpace(text, i + 1);
  }
  return -1;
}

/** Where the value at `path` under the value starting at `start` starts; -1: a key is missing. */
function valueStartAt(text: string, start: number, path: readonly string[]): number {
  let at = start;
  for (const key of path) {
    at = memberStart(text, at, key);
    if (at < 0) return -1;
  }
  return at;
}

/** Where the strings of a response the caller already knows are (see {@link parseWithKnownStrings}). */
export interface KnownStrings {
  /** The `id` of the JSON-RPC batch element holding them; undefined: the response is one object (no batch). */
  readonly id?: number | undefined;
  /** Object keys from the response object down to the array, e.g. `["result", "executionPayload", "transactions"]`. */
  readonly path: readonly string[];
  /**
   * The array's strings, each known to need no JSON escape (hex, as the transactions of attributes the node
   * asked a payload to hold): no quote, backslash or control character.
   */
  readonly strings: readonly string[];
  /**
   * `strings.join('","')` when the caller has that text already and it holds no quote of a string's own nor a
   * backslash ({@link hexArrayInner}'s text, e.g. the request's own part made of these very strings): an array
   * written without whitespace is then compared in one piece (one comparison of a flat string, instead of one per
   * string — each of which flattens a `0x…` concatenation first: a copy of every transaction). Any other way of
   * writing it is compared string by string as without it.
   */
  readonly joined?: string | undefined;
}

/**
 * What stands in for the known array while the rest of the text is parsed: a string with a token drawn once per
 * process, which no EL can write itself. (A fixed one could: in a later element with the same id, JSON.parse's
 * value there would then be the EL's string and pass the check below for the node's own placeholder.)
 */
const KNOWN_VALUE = `\u0000supernode:known-strings:${randomBytes(16).toString("hex")}`;
const KNOWN_JSON = JSON.stringify(KNOWN_VALUE);

/**
 * `JSON.parse(text)` of a JSON-RPC response that holds, at `known.path`, an array of strings the caller already
 * knows (the transactions of a payload the node asked for: ~10 kB of hex): when that array's text is exactly
 * `known.strings` written as JSON (whitespace between tokens allowed), it is compared in place instead of parsed
 * (no second copy of each string made, scanned and compared again later), and the parsed value there is a copy of
 * `known.strings` (the same string objects). Everything else is parsed by JSON.parse as it is: the result is what
 * `JSON.parse(text)` returns. Undefined when the array is not found there as such, is found differently by
 * JSON.parse (a duplicate key or `id`), or the rest is not valid JSON: the caller then parses the text whole
 * (and meets the same errors as without this function).
 */
export function parseWithKnownStrings(text: string, known: KnownStrings): unknown {
  const start =
    known.id === undefined
      ? valueStartAt(text, skipSpace(text, 0), known.path)
      : arrayItemValueStart(text, known.id, known.path);
  if (start < 0) return undefined;
  const end = knownStringArrayEnd(text, start, known.strings, known.joined);
  if (end < 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(`${text.slice(0, start)}${KNOWN_JSON}${text.slice(end)}`);
  } catch {
    return undefined;
  }
  // The object JSON.parse made of the same member: the last one of a duplicated `id` or key (the scan above took
  // the first), so the placeholder must be found where the caller will look.
  let at: unknown = parsed;
  if (known.id !== undefined) {
    if (!Array.isArray(parsed)) return undefined;
    at = undefined;
    for (const r of parsed) if (isObject(r) && r.id === known.id) at = r;
  }
  const last = known.path.length - 1;
  for (let i = 0; i < last; i++) {
    if (!isObject(at)) return undefined;
    at = at[known.path[i]!];
  }
  if (!isObject(at) || at[known.path[last]!] !== KNOWN_VALUE) return undefined;
  at[known.path[last]!] = known.strings.slice();
  return parsed;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Index just past the JSON array starting at `at` when it holds exactly `strings`, each written as it is between
 * quotes; -1 otherwise. A string with a quote or a backslash never matches (its JSON text would differ). `joined`:
 * see {@link KnownStrings.joined}.
 */
function knownStringArrayEnd(text: string, at: number, strings: readonly string[], joined: string | undefined): number {
  if (text.charCodeAt(at) !== 0x5b /* [ */) return -1;
  if (joined !== undefined && strings.length > 0 && text.charCodeAt(at + 1) === QUOTE) {
    // `["` + the strings joined by `","` + `"]`, as written by an EL that puts no whitespace in the array.
    const end = at + 2 + joined.length;
    if (
      text.charCodeAt(end) === QUOTE &&
      text.charCodeAt(end + 1) === 0x5d /* ] */ &&
      text.slice(at + 2, end) === joined
    )
      return end + 2;
  }
  let i = skipSpace(text, at + 1);
  for (let k = 0; k < strings.length; k++) {
    if (k > 0) {
      if (text.charCodeAt(i) !== 0x2c /* , */) return -1;
      i = skipSpace(text, i + 1);
    }
    const s = strings[k]!;
    const end = i + 1 + s.length;
    if (text.charCodeAt(i) !== QUOTE || text.charCodeAt(end) !== QUOTE || text.slice(i + 1, end) !== s) return -1;
    if (s.indexOf('"') >= 0 || s.indexOf("\\") >= 0) return -1;
    i = skipSpace(text, end + 1);
  }
  return text.charCodeAt(i) === 0x5d /* ] */ ? i + 1 : -1;
}

/**
 * The text of the element of the top-level array `text` (valid JSON) whose `id` member is the number `id`: the
 * response to one call of a JSON-RPC batch, whose elements may come in any order. Undefined when there is none.
 */
export function jsonArrayItemWithId(text: string, id: number): string | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x5b /* [ */) return undefined;
  const want = String(id);
  i = skipSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== 0x5d /* ] */) {
    const end = valueEnd(text, i);
    if (end < 0) return undefined;
    const item = text.slice(i, end);
    if (jsonValueAt(item, ["id"]) === want) return item;
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c /* , */) break;
    i = skipSpace(text, i + 1);
  }
  return undefined;
}
