import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The pure layers hold no module-level mutable state (developers' guide): no top-level `let`/`var`, and no
 * top-level constant bound to a mutable collection or buffer (`new Map/Set/WeakMap/…`, a typed array, an array,
 * `Buffer.alloc*`) unless it is declared read-only (`ReadonlySet`, `ReadonlyMap`, `readonly T[]`) or empty.
 * Scratch buffers and memos shared by every call are what this keeps out: they make results depend on call order.
 */
const ROOT = join(import.meta.dirname, "..", "..", "..");
const LAYERS = ["src/protocol", "src/core"];

/** Module state that mirrors a library's own process-wide state, with the reason it stays. */
const ALLOWED: Readonly<Record<string, string>> = {};

const MUTABLE_BINDING = /^(?:export\s+)?(?:let|var)\s+(\w+)/;
const MUTABLE_VALUE =
  /^(?:export\s+)?const\s+(\w+)\s*(?::\s*([^=]+?))?\s*=\s*(?:new\s+(?:Map|Set|WeakMap|WeakSet|Array|ArrayBuffer|DataView|(?:Big)?(?:Ui|I)nt(?:8|16|32|64)(?:Clamped)?Array|Float(?:32|64)Array)\s*(?:<[^>]*>)?\((.*)|Buffer\.alloc\w*\(|\[\s*\]\s*;)/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** The names of the top-level mutable bindings of `text` (a TypeScript module). */
function topLevelMutableState(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split("\n")) {
    const binding = MUTABLE_BINDING.exec(line);
    if (binding !== null) {
      found.push(binding[1]!);
      continue;
    }
    const value = MUTABLE_VALUE.exec(line);
    if (value === null) continue;
    const [, name, type, args] = value;
    if (type !== undefined && /^(?:Readonly|readonly\s)/.test(type.trim())) continue;
    if (args !== undefined && /^0\s*\)/.test(args)) continue; // zero length: nothing to mutate
    found.push(name!);
  }
  return found;
}

describe("no module-level mutable state in protocol/ and core/", () => {
  it("finds a top-level let, a shared scratch buffer and a memo map, and passes read-only or empty constants", () => {
    const text = [
      "let last = 0;",
      "export let hits = 0;",
      "const SCRATCH = Buffer.allocUnsafe(8192);",
      "const F = new Int32Array(8);",
      "const memo = new WeakMap<object, string>();",
      "const seen = [];",
      "const TYPES: ReadonlySet<number> = new Set([1, 2]);",
      "const EMPTY = new Uint8Array(0);",
      "const TABLE: readonly string[] = Array.from({ length: 4 }, String);",
      "  let inside = 1; // not top level",
      "function f() {}",
    ].join("\n");
    expect(topLevelMutableState(text)).toEqual(["last", "hits", "SCRATCH", "F", "memo", "seen"]);
  });

  it("holds for every source file", () => {
    const offenders: string[] = [];
    for (const layer of LAYERS) {
      for (const file of sources(join(ROOT, layer))) {
        const rel = relative(ROOT, file);
        for (const name of topLevelMutableState(readFileSync(file, "utf8"))) {
          if (ALLOWED[`${rel}:${name}`] === undefined) offenders.push(`${rel}: ${name}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
