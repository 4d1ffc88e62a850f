import { formatDurationMs } from "../core/time/duration.js";

/** Value types of options. Durations resolve to milliseconds; lists accept comma lists and repetition. */
export type OptionType = "bool" | "int" | "uint" | "port" | "string" | "path" | "duration" | "list" | "enum";

/** One command-line option, defined once as data (help, env names and parsing derive from it). */
export interface OptionSpec {
  /** Flag name without dashes, e.g. `l1.beacon`. */
  readonly name: string;
  readonly type: OptionType;
  /** Default in the option's resolved form (ms for durations); undefined = unset. */
  readonly default?: boolean | number | string | readonly string[];
  /**
   * Env names without prefix (top-level: `SUPERNODE_<env>`; per-chain: `SUPERNODE_VN_<ID|ALL>_<env>`). The
   * first one is the canonical name shown in help.
   */
  readonly env: readonly string[];
  readonly help: string;
  /** Help group title. */
  readonly group: string;
  readonly aliases?: readonly string[];
  /** Allowed values for `enum`. */
  readonly choices?: readonly string[];
  /** Not shown in help (deprecated or developer options); still accepted. */
  readonly hidden?: boolean;
}

/** Help rendering of a default. */
export function describeDefault(spec: OptionSpec): string {
  const d = spec.default;
  if (d === undefined) return "";
  if (spec.type === "duration" && typeof d === "number") return formatDurationMs(d);
  if (Array.isArray(d)) return d.join(",");
  return String(d);
}

export type Extra = Partial<Pick<OptionSpec, "aliases" | "choices" | "hidden">>;

/** Builds an option spec (helper for the catalogues). */
export function opt(
  name: string,
  type: OptionType,
  def: OptionSpec["default"],
  env: string | readonly string[],
  group: string,
  help: string,
  extra: Extra = {},
): OptionSpec {
  const spec: OptionSpec = { name, type, env: typeof env === "string" ? [env] : env, group, help, ...extra };
  return def === undefined ? spec : { ...spec, default: def };
}

export const S = 1000;
export const M = 60 * S;
export const H = 60 * M;
