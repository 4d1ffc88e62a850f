import { type FlagArity, tokenizeArgv } from "./argv.js";
import { CHAIN_OPTIONS } from "./chain-options.js";
import { ENV_PREFIX, GLOBAL_OPTIONS } from "./global-options.js";
import type { ConfigIssue, ConfigWarning } from "./issues.js";
import type { OptionSpec } from "./option-spec.js";
import { nearest } from "./suggest.js";
import { type OptionValue, parseOptionValue, splitList } from "./values.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** Where an explicitly set value came from. */
export interface ExplicitValue {
  readonly value: OptionValue;
  readonly source: "flag" | "env";
  /** `--vn.10.l2` or `SUPERNODE_VN_10_L2_ENGINE_RPC`. */
  readonly origin: string;
}

/** Explicit values of one scope (top level, `all`, or one chain), by option name, split by source. */
export interface ScopeValues {
  readonly flags: Map<string, ExplicitValue>;
  readonly env: Map<string, ExplicitValue>;
}

export interface ResolvedOptions {
  /** Parsed chain IDs (valid, deduplicated, in order). */
  readonly chains: readonly bigint[];
  readonly global: ScopeValues;
  /** Key `all` or a decimal chain ID. */
  readonly scopes: ReadonlyMap<string, ScopeValues>;
  readonly issues: ConfigIssue[];
  readonly warnings: ConfigWarning[];
}

function indexSpecs(specs: readonly OptionSpec[]): Map<string, OptionSpec> {
  const m = new Map<string, OptionSpec>();
  for (const s of specs) {
    m.set(s.name, s);
    for (const a of s.aliases ?? []) m.set(a, s);
  }
  return m;
}

export const GLOBAL_INDEX = indexSpecs(GLOBAL_OPTIONS);
export const CHAIN_INDEX = indexSpecs(CHAIN_OPTIONS);

/** Sub-commands of the CLI, for suggestions on stray arguments. */
const COMMAND_NAMES = ["config", "chain-options", "devnet"];

const VN_RE = /^vn\.([^.]+)\.(.+)$/;

/** Splits a `vn.<scope>.<flag>` name. */
export function splitVnName(name: string): { scope: string; flag: string } | undefined {
  const m = VN_RE.exec(name);
  return m ? { scope: m[1] as string, flag: m[2] as string } : undefined;
}

function arityOf(name: string): FlagArity {
  const vn = splitVnName(name);
  const spec = vn ? CHAIN_INDEX.get(vn.flag) : GLOBAL_INDEX.get(name);
  if (spec === undefined) return "unknown";
  return spec.type === "bool" ? "bool" : "value";
}

function emptyScope(): ScopeValues {
  return { flags: new Map(), env: new Map() };
}

/** Stores a parsed value; lists accumulate over repetitions, scalars take the last one. */
function put(map: Map<string, ExplicitValue>, spec: OptionSpec, v: ExplicitValue): void {
  const prev = map.get(spec.name);
  if (spec.type === "list" && prev !== undefined && Array.isArray(prev.value)) {
    map.set(spec.name, { ...v, value: [...(prev.value as string[]), ...(v.value as string[])] });
  } else {
    map.set(spec.name, v);
  }
}

const MAX_U64 = (1n << 64n) - 1n;

/** Parses `--chains` items: base-10 unsigned 64-bit, non-zero, no duplicates. */
export function parseChainIds(items: readonly string[], origin: string, issues: ConfigIssue[]): bigint[] {
  const out: bigint[] = [];
  for (const raw of items) {
    const item = raw.trim();
    if (item === "") continue;
    if (!/^\d+$/.test(item) || BigInt(item) > MAX_U64 || BigInt(item) === 0n) {
      issues.push({
        option: origin,
        message: `invalid chain ID "${item}" (expected a positive base-10 integer below 2^64)`,
      });
      continue;
    }
    const id = BigInt(item);
    if (out.includes(id)) {
      issues.push({ option: origin, message: `duplicate chain ID ${id}` });
      continue;
    }
    out.push(id);
  }
  return out;
}

function suggestionFor(name: string, chainIds: readonly string[]): string {
  const vn = splitVnName(name);
  if (vn) {
    const near = CHAIN_INDEX.has(vn.flag) ? undefined : nearest(vn.flag, CHAIN_INDEX.keys());
    return near ? `; did you mean --vn.${vn.scope}.${near}?` : "";
  }
  if (CHAIN_INDEX.has(name)) {
    const ex = chainIds[0] ?? "<chainID>";
    return `; it is a per-chain option: use --vn.${ex}.${name} or --vn.all.${name}`;
  }
  const candidates = [...GLOBAL_INDEX.keys(), ...[...CHAIN_INDEX.keys()].map((k) => `vn.all.${k}`)];
  const near = nearest(name, candidates);
  return near ? `; did you mean --${near}?` : "";
}

/**
 * First pass over argv and env: tokenises flags, parses each value by its option's type, expands
 * `vn.<id>` / `vn.all` scopes, and reports unknown options (with the nearest name), bad values, flags for
 * chains not in `--chains`, and stray positionals. Env vars are read only for defined names; other
 * `SUPERNODE_*` variables produce warnings.
 */
export function resolveOptions(argv: readonly string[], env: Env): ResolvedOptions {
  const issues: ConfigIssue[] = [];
  const warnings: ConfigWarning[] = [];
  const global = emptyScope();
  const scopes = new Map<string, ScopeValues>();
  const scope = (key: string): ScopeValues => {
    let s = scopes.get(key);
    if (s === undefined) {
      s = emptyScope();
      scopes.set(key, s);
    }
    return s;
  };

  const { flags, positionals } = tokenizeArgv(argv, arityOf);
  for (const p of positionals) {
    const cmd = nearest(p, COMMAND_NAMES);
    issues.push({
      message: `unexpected argument "${p}"${cmd ? `; did you mean the command \`supernode ${cmd}\` (commands come first)?` : ""}`,
    });
  }

  // Chains first: the per-chain flag set depends on them (flag wins over env).
  const chainFlags = flags.filter((f) => f.name === "chains");
  let chains: bigint[];
  if (chainFlags.length > 0) {
    const items: string[] = [];
    for (const f of chainFlags) {
      if (f.value === undefined) issues.push({ option: "--chains", message: "needs a value" });
      else items.push(...f.value.split(","));
    }
    chains = parseChainIds(items, "--chains", issues);
  } else {
    const e = env[`${ENV_PREFIX}_CHAINS`];
    chains = e === undefined ? [] : parseChainIds(e.split(","), `${ENV_PREFIX}_CHAINS`, issues);
  }
  const chainKeys = chains.map((c) => c.toString(10));

  for (const f of flags) {
    if (f.name === "chains") continue;
    const vn = splitVnName(f.name);
    const spec = vn ? CHAIN_INDEX.get(vn.flag) : GLOBAL_INDEX.get(f.name);
    if (spec === undefined || (vn && vn.scope !== "all" && !/^\d+$/.test(vn.scope))) {
      issues.push({ option: f.token, message: `unknown option${suggestionFor(f.name, chainKeys)}` });
      continue;
    }
    const token = vn ? `--vn.${vn.scope}.${spec.name}` : `--${spec.name}`;
    if (vn && vn.scope !== "all") {
      const id = BigInt(vn.scope).toString(10);
      if (!chainKeys.includes(id)) {
        issues.push({
          option: f.token,
          chain: id,
          message: `chain ${id} is not in --chains (${chainKeys.length > 0 ? chainKeys.join(", ") : "none given"})`,
        });
        continue;
      }
    }
    const parsed = parseOptionValue(spec, f.value);
    if (!parsed.ok) {
      const chain = vn && vn.scope !== "all" ? BigInt(vn.scope).toString(10) : undefined;
      issues.push(
        chain === undefined
          ? { option: token, message: parsed.error }
          : { option: token, chain, message: parsed.error },
      );
      continue;
    }
    const target = vn ? scope(vn.scope === "all" ? "all" : BigInt(vn.scope).toString(10)) : global;
    put(target.flags, spec, { value: parsed.value, source: "flag", origin: token });
  }

  // Environment.
  const known = new Set<string>([`${ENV_PREFIX}_CHAINS`]);
  const readEnv = (name: string, spec: OptionSpec, target: Map<string, ExplicitValue>, chain?: string): void => {
    known.add(name);
    const raw = env[name];
    if (raw === undefined || target.has(spec.name)) return;
    const parsed = spec.type === "list" ? { ok: true as const, value: splitList(raw) } : parseOptionValue(spec, raw);
    if (!parsed.ok) {
      issues.push(
        chain === undefined ? { option: name, message: parsed.error } : { option: name, chain, message: parsed.error },
      );
      return;
    }
    target.set(spec.name, { value: parsed.value, source: "env", origin: name });
  };
  for (const spec of GLOBAL_OPTIONS) {
    if (spec.name === "chains") continue;
    for (const e of spec.env) readEnv(`${ENV_PREFIX}_${e}`, spec, global.env);
  }
  for (const key of ["all", ...chainKeys]) {
    const s = scope(key);
    for (const spec of CHAIN_OPTIONS) {
      for (const e of spec.env)
        readEnv(`${ENV_PREFIX}_VN_${key.toUpperCase()}_${e}`, spec, s.env, key === "all" ? undefined : key);
    }
  }
  for (const name of Object.keys(env)) {
    if (!name.startsWith(`${ENV_PREFIX}_`) || known.has(name)) continue;
    const m = /^SUPERNODE_VN_(\d+)_/.exec(name);
    warnings.push({
      msg:
        m && !chainKeys.includes(BigInt(m[1] as string).toString(10))
          ? "Env var for a chain not in --chains"
          : "Unknown env var",
      fields: { env_var: name },
    });
  }
  return { chains, global, scopes, issues, warnings };
}
