import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RollupConfig } from "../protocol/rollup-config.js";
import { checkRollupConfig, parseRollupConfig } from "../protocol/rollup-config-json.js";
import {
  CHAIN_OPTIONS,
  DISCARDED_CHAIN_OPTIONS,
  OVERRIDE_FORKS,
  SILENT_CHAIN_OPTION_PREFIXES,
  WARNED_CHAIN_OPTIONS,
} from "./chain-options.js";
import { ENV_PREFIX } from "./global-options.js";
import type { ConfigIssue, ConfigWarning } from "./issues.js";
import { readJwtSecret } from "./jwt.js";
import { loadNetwork, resolveNetworkName, unknownNetworkMessage } from "./networks.js";
import { buildP2pConfig } from "./chain-p2p-build.js";
import type { ExplicitValue, ResolvedOptions, ScopeValues } from "./resolve-options.js";
import type { ChainConfig, EngineKind, P2pConfig, SyncMode } from "./types.js";
import { bool, num, type OptionValue, str } from "./values.js";

/** Per-chain options the supernode replaces with its own values; setting them logs a warning. */
const OVERRIDDEN_CHAIN_OPTIONS: Readonly<Record<string, string>> = {
  "rpc.addr": "chains are served by the supernode's RPC server (--rpc.addr)",
  "rpc.port": "chains are served by the supernode's RPC server (--rpc.port)",
  "rpc.enable-admin": "use the supernode's --rpc.enable-admin",
  "pprof.enabled": "profiling is supernode-wide (--pprof.enabled)",
  "pprof.addr": "profiling is supernode-wide (--pprof.addr)",
  "pprof.port": "profiling is supernode-wide (--pprof.port)",
  "pprof.path": "profiling is supernode-wide",
  "pprof.type": "profiling is supernode-wide",
  "safedb.path": "the SafeDB lives in <data-dir>/chain-<id>/safedb",
  "l1.beacon-fallbacks": "use the supernode's --l1.beacon-fallbacks",
  "l1.beacon-header": "the shared beacon client is used",
  "l1.trustrpc": "the shared L1 client is used",
  "l1.rpckind": "the shared L1 client is used",
  "l1.max-concurrency": "the shared L1 client is used",
  "l1.rpc-rate-limit": "the shared L1 client is used",
  "l1.rpc-max-batch-size": "the shared L1 client is used",
  "l1.cache-size": "the shared L1 client is used",
  "l1.epoch-poll-interval": "the shared L1 client reads the safe and finalized heads at every --l1.http-poll-interval",
  "interop.rpc.addr": "the supernode runs interop itself",
  "interop.rpc.port": "the supernode runs interop itself",
  "interop.jwt-secret": "the supernode runs interop itself",
};

/** Value precedence of one option for one chain: per-chain flag > per-chain env > all flag > all env. */
/**
 * Options a chain takes only from its own scope: one peer key for every chain would give them all one peer ID
 * (op-supernode #21436 honours `--vn.<chainID>.p2p.priv.path` only).
 */
const PER_CHAIN_ONLY: readonly string[] = ["p2p.priv.path"];

function pick(name: string, chain: ScopeValues | undefined, all: ScopeValues | undefined): ExplicitValue | undefined {
  const own = chain?.flags.get(name) ?? chain?.env.get(name);
  return own ?? (PER_CHAIN_ONLY.includes(name) ? undefined : (all?.flags.get(name) ?? all?.env.get(name)));
}

export function isUrl(s: string, schemes: readonly string[]): boolean {
  try {
    const u = new URL(s);
    return schemes.includes(u.protocol);
  } catch {
    return false;
  }
}

export const HTTP = ["http:", "https:"];
export const HTTP_WS = ["http:", "https:", "ws:", "wss:"];

/** What is known of one chain even when some of its options are wrong (for the cross-chain checks). */
export interface ChainFacts {
  readonly chainId: bigint;
  readonly l2: string;
  readonly rollup?: RollupConfig;
  readonly p2pDisabled: boolean;
  readonly listenTcp: number;
  readonly listenUdp: number;
  readonly dependencySet: boolean;
  /** `interop.dependency-set` ("" when not set). */
  readonly dependencySetPath: string;
}

export interface ChainBuild {
  readonly config?: ChainConfig;
  readonly facts: ChainFacts;
}

/** Applies `override.<fork>` options to a rollup config. */
function applyOverrides(rollup: RollupConfig, opts: Record<string, OptionValue | undefined>): RollupConfig {
  let out = rollup;
  for (const f of OVERRIDE_FORKS) {
    const v = opts[`override.${f}`];
    if (typeof v !== "number") continue;
    const key = f === "pectrablobschedule" ? "pectra_blob_schedule_time" : `${f}_time`;
    out = { ...out, [key]: v };
  }
  return out;
}

function loadRollup(
  id: string,
  opts: Record<string, OptionValue | undefined>,
  flag: (n: string) => string,
  issues: ConfigIssue[],
  networksDir: string,
): { rollup?: RollupConfig; network?: string; path?: string } {
  const network = typeof opts.network === "string" && opts.network !== "" ? opts.network : undefined;
  const path =
    typeof opts["rollup.config"] === "string" && opts["rollup.config"] !== "" ? opts["rollup.config"] : undefined;
  if (network === undefined && path === undefined) {
    issues.push({
      option: `${flag("network")} / ${flag("rollup.config")}`,
      chain: id,
      message: "one of network or rollup.config is required",
    });
    return {};
  }
  if (network !== undefined && path !== undefined) {
    issues.push({
      option: `${flag("network")} / ${flag("rollup.config")}`,
      chain: id,
      message: "set only one of network and rollup.config, not both",
    });
    return {};
  }
  let rollup: RollupConfig;
  let canonical: string | undefined;
  if (network !== undefined) {
    canonical = resolveNetworkName(network, networksDir);
    if (canonical === undefined) {
      issues.push({
        option: flag("network"),
        chain: id,
        message: unknownNetworkMessage(network, networksDir),
      });
      return {};
    }
    try {
      rollup = loadNetwork(canonical, networksDir).rollup;
    } catch (e) {
      issues.push({
        option: flag("network"),
        chain: id,
        message: `built-in network ${canonical} is unreadable: ${(e as Error).message}`,
      });
      return {};
    }
  } else {
    const p = path as string;
    let text: string;
    try {
      text = readFileSync(p, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      issues.push({
        option: flag("rollup.config"),
        chain: id,
        message:
          code === "ENOENT"
            ? `rollup config file ${p} does not exist`
            : `cannot read rollup config file ${p}: ${code ?? String(e)}`,
      });
      return {};
    }
    try {
      rollup = parseRollupConfig(text);
    } catch (e) {
      issues.push({ option: flag("rollup.config"), chain: id, message: `${p}: ${(e as Error).message}` });
      return {};
    }
  }
  rollup = applyOverrides(rollup, opts);
  const where = canonical !== undefined ? flag("network") : flag("rollup.config");
  if (rollup.l2_chain_id.toString(10) !== id) {
    issues.push({
      option: where,
      chain: id,
      message: `rollup config is for l2_chain_id ${rollup.l2_chain_id}, not chain ${id}`,
    });
  }
  for (const problem of checkRollupConfig(rollup))
    issues.push({ option: where, chain: id, message: `rollup config: ${problem}` });
  const out: { rollup: RollupConfig; network?: string; path?: string } = { rollup };
  if (canonical !== undefined) out.network = canonical;
  if (path !== undefined) out.path = path;
  return out;
}

/** One chain's option values (defaults filled in), which of them were set, and where each came from. */
interface ChainOptionValues {
  readonly key: string;
  readonly opts: Record<string, OptionValue | undefined>;
  readonly explicit: Set<string>;
  /** The flag (or env var) that set an option, for messages. */
  readonly flag: (name: string) => string;
}

function chainOptionValues(key: string, r: ResolvedOptions): ChainOptionValues {
  const chainScope = r.scopes.get(key);
  const allScope = r.scopes.get("all");
  const opts: Record<string, OptionValue | undefined> = {};
  const explicit = new Set<string>();
  const origin = new Map<string, string>();
  for (const spec of CHAIN_OPTIONS) {
    const v = pick(spec.name, chainScope, allScope);
    if (v !== undefined) {
      explicit.add(spec.name);
      origin.set(spec.name, v.origin);
      opts[spec.name] = v.value;
    } else opts[spec.name] = spec.default;
  }
  return { key, opts, explicit, flag: (n) => origin.get(n) ?? `--vn.${key}.${n}` };
}

/** Options the supernode owns: warned about (or dropped) when a chain sets them. */
function reportOwnedOptions(v: ChainOptionValues, warnings: ConfigWarning[]): void {
  const { key, opts, flag } = v;
  for (const n of v.explicit) {
    if (DISCARDED_CHAIN_OPTIONS.includes(n)) {
      warnings.push({
        msg: "Virtual node flag discarded -- the supernode owns this resource; use the supernode-level flag",
        fields: { chain: key, flag: n, origin: flag(n) },
      });
      delete opts[n];
    } else if (WARNED_CHAIN_OPTIONS.includes(n)) {
      warnings.push({
        msg: "Virtual node flag is ignored -- supernode owns this resource; use the supernode-level flag instead",
        fields: { chain: key, flag: n, origin: flag(n) },
      });
    } else if (SILENT_CHAIN_OPTION_PREFIXES.some((p) => n.startsWith(p))) {
      // one shared logger: silently ignored
    } else if (OVERRIDDEN_CHAIN_OPTIONS[n] !== undefined) {
      warnings.push({
        msg: "Virtual node flag has no effect under the supernode",
        fields: { chain: key, flag: n, origin: flag(n), reason: OVERRIDDEN_CHAIN_OPTIONS[n] },
      });
    }
  }
}

/** The chain's Engine API endpoint and JWT secret (both required). */
function checkEngine(
  v: ChainOptionValues,
  issues: ConfigIssue[],
): { l2: string; jwtPath: string; jwtSecret?: Uint8Array } {
  const { key, opts, flag } = v;
  const l2 = str(opts.l2);
  if (l2 === "") {
    issues.push({
      option: `--vn.${key}.l2`,
      chain: key,
      message: `required: the chain's Engine API endpoint (or ${ENV_PREFIX}_VN_${key}_L2_ENGINE_RPC, or --vn.all.l2)`,
    });
  } else if (!isUrl(l2, HTTP_WS)) {
    issues.push({
      option: flag("l2"),
      chain: key,
      message: `invalid endpoint "${l2}" (expected an http(s) or ws(s) URL)`,
    });
  }
  const jwtPath = str(opts["l2.jwt-secret"]);
  if (jwtPath === "") {
    issues.push({
      option: `--vn.${key}.l2.jwt-secret`,
      chain: key,
      message: `required: file with the engine JWT secret (or --vn.all.l2.jwt-secret, ${ENV_PREFIX}_VN_ALL_L2_ENGINE_AUTH)`,
    });
    return { l2, jwtPath };
  }
  try {
    return { l2, jwtPath, jwtSecret: readJwtSecret(jwtPath) };
  } catch (e) {
    issues.push({ option: flag("l2.jwt-secret"), chain: key, message: (e as Error).message });
    return { l2, jwtPath };
  }
}

/** Rules across options that no single option's parser can check. */
function checkOptionCombinations(v: ChainOptionValues, issues: ConfigIssue[]): void {
  const { key, opts, flag } = v;
  if (bool(opts["conductor.enabled"]) && !bool(opts["sequencer.enabled"])) {
    issues.push({ option: flag("conductor.enabled"), chain: key, message: "the conductor requires sequencer.enabled" });
  }
  if (bool(opts["altda.enabled"]) && str(opts["altda.da-server"]) === "") {
    issues.push({ option: flag("altda.da-server"), chain: key, message: "required when altda.enabled is set" });
  }
}

/** Resolves, reads and validates one chain; problems go to `issues`. */
export function buildChain(
  id: bigint,
  r: ResolvedOptions,
  top: { dataDir: string; disableP2p: boolean },
  issues: ConfigIssue[],
  warnings: ConfigWarning[],
  networksDir: string,
): ChainBuild {
  const v = chainOptionValues(id.toString(10), r);
  const before = issues.length;
  reportOwnedOptions(v, warnings);
  const engine = checkEngine(v, issues);
  const rollupRes = loadRollup(v.key, v.opts, v.flag, issues, networksDir);
  const chainDir = join(top.dataDir, `chain-${v.key}`);
  const p2p = buildP2pConfig({ ...v, issues, warnings, p2pDir: join(chainDir, "p2p"), disableP2p: top.disableP2p });
  checkOptionCombinations(v, issues);
  const depSet = str(v.opts["interop.dependency-set"]);
  const facts: ChainFacts = {
    chainId: id,
    l2: engine.l2,
    ...(rollupRes.rollup !== undefined ? { rollup: rollupRes.rollup } : {}),
    p2pDisabled: p2p.disabled,
    listenTcp: p2p.listenTcp,
    listenUdp: p2p.listenUdp,
    dependencySet: depSet !== "",
    dependencySetPath: depSet,
  };
  if (issues.length > before || rollupRes.rollup === undefined || engine.jwtSecret === undefined) return { facts };
  const rollup = { ...rollupRes, rollup: rollupRes.rollup };
  const config = chainConfigFrom(v, {
    id,
    chainDir,
    p2p,
    rollupRes: rollup,
    engine: { ...engine, jwtSecret: engine.jwtSecret },
  });
  return { config, facts };
}

/** The validated chain's configuration (called only when every check passed). */
function chainConfigFrom(
  v: ChainOptionValues,
  parts: {
    id: bigint;
    chainDir: string;
    p2p: P2pConfig;
    rollupRes: { rollup: RollupConfig; network?: string; path?: string };
    engine: { l2: string; jwtPath: string; jwtSecret: Uint8Array };
  },
): ChainConfig {
  const { opts } = v;
  const { id, chainDir, p2p, rollupRes, engine } = parts;
  const depSet = str(opts["interop.dependency-set"]);
  const syncMode: SyncMode = bool(opts["l2.engine-sync"])
    ? "execution-layer"
    : (str(opts.syncmode, "consensus-layer") as SyncMode);
  return {
    chainId: id,
    rollup: rollupRes.rollup,
    ...(rollupRes.network !== undefined ? { network: rollupRes.network } : {}),
    ...(rollupRes.path !== undefined ? { rollupConfigPath: rollupRes.path } : {}),
    l2: engine.l2,
    jwtSecret: engine.jwtSecret,
    jwtSecretPath: engine.jwtPath,
    engineKind: str(opts["l2.enginekind"], "variant_b") as EngineKind,
    l2EngineRpcTimeoutMs: num(opts["l2.engine-rpc-timeout"]),
    l2MaxResponseBytes: num(opts["l2.max-response-size"]),
    dataDir: chainDir,
    sequencer: {
      enabled: bool(opts["sequencer.enabled"]),
      stopped: bool(opts["sequencer.stopped"]),
      l1Confs: num(opts["sequencer.l1-confs"]),
      maxSafeLag: num(opts["sequencer.max-safe-lag"]),
      recoverMode: bool(opts["sequencer.recover"]),
      sealingDurationMs: num(opts["sequencer.sealing-duration"]),
    },
    verifierL1Confs: num(opts["verifier.l1-confs"]),
    syncMode,
    syncModeReqResp: bool(opts["syncmode.req-resp"]),
    syncOffsetElSafeMs: num(opts["syncmode.offset-el-safe"]),
    finalityLookback: num(opts["finality.lookback"]),
    finalityDelay: num(opts["finality.delay"]),
    p2p,
    metrics: {
      enabled: bool(opts["metrics.enabled"]),
      addr: str(opts["metrics.addr"], "0.0.0.0"),
      port: num(opts["metrics.port"]),
    },
    safedbEnabled: true,
    safedbPath: join(chainDir, "safedb"),
    ...(depSet !== "" ? { interopDependencySetPath: depSet } : {}),
    options: Object.freeze({ ...opts }),
    explicitOptions: v.explicit,
  };
}
