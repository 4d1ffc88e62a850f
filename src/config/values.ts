import { parseDurationMs } from "../core/time/duration.js";
import type { OptionSpec } from "./option-spec.js";

export type OptionValue = boolean | number | string | readonly string[];

export type ParseResult =
  | { readonly ok: true; readonly value: OptionValue }
  | { readonly ok: false; readonly error: string };

const TRUE = new Set(["1", "t", "true", "yes", "on"]);
const FALSE = new Set(["0", "f", "false", "no", "off"]);

/** Splits a comma list: items trimmed, empty items dropped. */
export function splitList(raw: string): string[] {
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * Parses one raw value (from a flag or env var) for `spec`. `raw` is undefined for a bare flag (`--flag`),
 * which only booleans accept.
 */
export function parseOptionValue(spec: OptionSpec, raw: string | undefined): ParseResult {
  if (raw === undefined) {
    return spec.type === "bool" ? { ok: true, value: true } : { ok: false, error: "needs a value" };
  }
  const s = raw.trim();
  switch (spec.type) {
    case "bool": {
      const l = s.toLowerCase();
      if (TRUE.has(l)) return { ok: true, value: true };
      if (FALSE.has(l)) return { ok: true, value: false };
      return { ok: false, error: `invalid boolean "${raw}" (expected true or false)` };
    }
    case "int":
    case "uint":
    case "port": {
      if (!/^[-+]?\d+$/.test(s))
        return { ok: false, error: `invalid ${spec.type === "int" ? "integer" : "number"} "${raw}"` };
      const n = Number(s);
      if (!Number.isSafeInteger(n)) return { ok: false, error: `number "${raw}" is out of range` };
      if (spec.type !== "int" && n < 0) return { ok: false, error: `must not be negative (got ${raw})` };
      if (spec.type === "port" && n > 65535) return { ok: false, error: `invalid port ${raw} (expected 0..65535)` };
      return { ok: true, value: n };
    }
    case "duration": {
      if (s.startsWith("-")) return { ok: false, error: `negative duration "${raw}"` };
      try {
        return { ok: true, value: parseDurationMs(s) };
      } catch {
        return { ok: false, error: `invalid duration "${raw}" (expected e.g. 12s, 500ms, 168h)` };
      }
    }
    case "list":
      return { ok: true, value: splitList(raw) };
    case "enum": {
      const choices = spec.choices ?? [];
      if (choices.includes(s)) return { ok: true, value: s };
      const lower = s.toLowerCase();
      if (choices.includes(lower)) return { ok: true, value: lower };
      return {
        ok: false,
        error: `invalid value "${raw}" (expected one of: ${choices.map((c) => (c === "" ? '""' : c)).join(", ")})`,
      };
    }
    default:
      return { ok: true, value: raw };
  }
}

/** Typed reads of a resolved option value, with the option's default when absent or of another type. */
export const num = (v: OptionValue | undefined, d = 0): number => (typeof v === "number" ? v : d);
export const str = (v: OptionValue | undefined, d = ""): string => (typeof v === "string" ? v : d);
export const bool = (v: OptionValue | undefined): boolean => v === true;
export const list = (v: OptionValue | undefined): readonly string[] =>
  Array.isArray(v) ? (v as readonly string[]) : [];
