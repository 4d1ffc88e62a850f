/**
 * JSON text handled without `JSON.stringify`/`JSON.parse` where a request or response carries kilobytes of hex
 * strings (the Engine API's payloads and attributes: ~10 kB of transactions per block). On Node 20, JSON.stringify
 * scans every character of a string for escapes (~1.5 ns per character: ~15 µs for a block's transactions), while
 * `indexOf` of one character runs at memory speed; and a value the EL wrote can be sent back as the EL wrote it.
 */

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
 * once instead of flattening a ~25 kB string first (docs/performance.md).
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
