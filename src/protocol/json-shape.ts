/**
 * Reading a parsed JSON value against a fixed shape (the rollup config's), every problem reported with its path.
 * Small on purpose: it replaced the zod schema library, which cost the process ~3 MB of heap for one file
 * (docs/performance.md). A reader returns the value it read (lower-cased hex, the number or string as given);
 * when it records a problem its result is not to be used, and `readShape` throws before anyone does.
 */
import type { Hex } from "../core/types/primitives.js";

/** Problems found so far, each `path: message` or `unknown field(s) …`. */
export type Issues = string[];

export type Reader<T> = (v: unknown, path: string, issues: Issues) => T;

const at = (path: string) => path || "(root)";

function fail<T>(issues: Issues, path: string, message: string): T {
  issues.push(`${at(path)}: ${message}`);
  return undefined as T;
}

/** A reader of a present value: an absent one (undefined) is reported as required. */
function present<T>(r: Reader<T>): Reader<T> {
  return (v, path, issues) => (v === undefined ? fail(issues, path, "required") : r(v, path, issues));
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** A 0x-prefixed hex string of exactly `bytes` bytes, returned lower-cased. */
export function hexBytes(bytes: number): Reader<Hex> {
  const re = new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`);
  return present((v, path, issues) =>
    typeof v === "string" && re.test(v)
      ? (v.toLowerCase() as Hex)
      : fail(issues, path, `expected 0x-prefixed ${bytes}-byte hex`),
  );
}

/** A JSON number that is an integer in [0, max] (max at most Number.MAX_SAFE_INTEGER). */
export function uintUpTo(max: number): Reader<number> {
  return present((v, path, issues) => {
    if (typeof v !== "number") return fail(issues, path, `expected a number, got ${describe(v)}`);
    if (!Number.isInteger(v) || v < 0 || v > max) return fail(issues, path, `expected an integer in [0, ${max}]`);
    return v;
  });
}

export const uint: Reader<number> = uintUpTo(Number.MAX_SAFE_INTEGER);

/** An unsigned integer as a safe JSON number, or as a decimal or 0x-hex string (any size). */
export const bigUint: Reader<number | string> = present((v, path, issues) => {
  if (typeof v === "number") return uint(v, path, issues);
  if (typeof v === "string" && /^(0x[0-9a-fA-F]+|\d+)$/.test(v)) return v;
  return fail(issues, path, "expected an unsigned integer");
});

export const bool: Reader<boolean> = present((v, path, issues) =>
  typeof v === "boolean" ? v : fail(issues, path, `expected a boolean, got ${describe(v)}`),
);

/** One of the given strings. */
export function oneOf<const T extends string>(values: readonly T[]): Reader<T> {
  return present((v, path, issues) =>
    typeof v === "string" && (values as readonly string[]).includes(v)
      ? (v as T)
      : fail(issues, path, `expected one of ${values.map((x) => JSON.stringify(x)).join(", ")}`),
  );
}

/** Absent (undefined) is allowed. */
export function optional<T>(r: Reader<T>): Reader<T | undefined> {
  return (v, path, issues) => (v === undefined ? undefined : r(v, path, issues));
}

/** Absent or null is allowed (both read as undefined). */
export function nullish<T>(r: Reader<T>): Reader<T | undefined> {
  return (v, path, issues) => (v === undefined || v === null ? undefined : r(v, path, issues));
}

type Fields = Record<string, Reader<unknown>>;
type Read<F extends Fields> = { [K in keyof F]: ReturnType<F[K]> };

/** A JSON object with exactly these fields (each read by its reader); any other field is a problem. */
export function strictObject<F extends Fields>(fields: F): Reader<Read<F>> {
  return present((v, path, issues) => {
    if (typeof v !== "object" || v === null || Array.isArray(v))
      return fail(issues, path, `expected an object, got ${describe(v)}`);
    const obj = v as Record<string, unknown>;
    const unknown = Object.keys(obj).filter((k) => !Object.hasOwn(fields, k));
    if (unknown.length > 0)
      issues.push(`unknown field(s) ${unknown.map((k) => (path ? `${path}.${k}` : k)).join(", ")}`);
    const out: Record<string, unknown> = {};
    for (const [k, r] of Object.entries(fields)) {
      const value = r(obj[k], path ? `${path}.${k}` : k, issues);
      if (value !== undefined) out[k] = value;
    }
    return out as Read<F>;
  });
}

/** Reads `v` with `r`; the problems joined by "; " when there are any (the value is then undefined). */
export function readShape<T>(r: Reader<T>, v: unknown): { ok: true; value: T } | { ok: false; problems: string } {
  const issues: Issues = [];
  const value = r(v, "", issues);
  return issues.length === 0 ? { ok: true, value } : { ok: false, problems: issues.join("; ") };
}
