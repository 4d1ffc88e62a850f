import type { RollupConfig } from "../protocol/rollup-config.js";
import { type ChainFacts, buildChain, HTTP, HTTP_WS, isUrl } from "./chain-build.js";
import { type DependencySetSource, resolveDependencySet } from "./dependency-set.js";
import { ENV_PREFIX, GLOBAL_OPTIONS } from "./global-options.js";
import type { ConfigIssue, ConfigWarning } from "./issues.js";
import { defaultNetworksDir } from "./networks.js";
import type { ResolvedOptions } from "./resolve-options.js";
import type { ChainConfig, LogFormat, LogLevel, SupernodeConfig } from "./types.js";
import { bool, list, num, type OptionValue, str } from "./values.js";

export interface BuildOptions {
  /** Directory of the built-in networks (default: `<project>/config/networks`). */
  readonly networksDir?: string;
}

function defaults(specs: typeof GLOBAL_OPTIONS): Record<string, OptionValue | undefined> {
  const out: Record<string, OptionValue | undefined> = {};
  for (const s of specs) out[s.name] = s.default;
  return out;
}

/** Canonical form of an endpoint for duplicate detection (host case, default ports, trailing slash). */
export function normalizeEndpoint(s: string): string {
  try {
    const u = new URL(s);
    let host = u.hostname.toLowerCase();
    if (host === "localhost" || host === "[::1]") host = "127.0.0.1";
    const defaultPort = u.protocol === "https:" || u.protocol === "wss:" ? "443" : "80";
    return `${host}:${u.port || defaultPort}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return s.trim().toLowerCase();
  }
}

/** Resolves the interop activation timestamp (flag non-zero wins; else the rollup configs must agree). */
function resolveInterop(
  flagValue: number,
  chains: ReadonlyArray<{ readonly chainId: bigint; readonly rollup: RollupConfig }>,
  issues: ConfigIssue[],
): number | undefined {
  if (flagValue > 0) return flagValue;
  const withTime = chains.filter((c) => c.rollup.lagoon_time !== undefined);
  if (withTime.length === 0) return undefined;
  const without = chains.filter((c) => c.rollup.lagoon_time === undefined);
  const first = withTime[0] as (typeof chains)[number];
  for (const c of without) {
    issues.push({
      option: "--interop.activation-timestamp",
      chain: c.chainId.toString(10),
      message: `chain ${c.chainId} has no interop activation timestamp, but chain ${first.chainId} is configured for timestamp ${first.rollup.lagoon_time}`,
    });
  }
  const distinct = new Set(withTime.map((c) => c.rollup.lagoon_time));
  if (distinct.size > 1) {
    issues.push({
      option: "--interop.activation-timestamp",
      message: `mismatched interop activation timestamps: ${withTime.map((c) => `chain ${c.chainId}=${c.rollup.lagoon_time}`).join(", ")}`,
    });
  }
  return without.length === 0 && distinct.size === 1 ? first.rollup.lagoon_time : undefined;
}

/** The supernode-wide option values (defaults filled in) and where each set one came from. */
interface GlobalValues {
  readonly g: Record<string, OptionValue | undefined>;
  readonly origin: (name: string) => string;
}

function globalValues(r: ResolvedOptions): GlobalValues {
  const g: Record<string, OptionValue | undefined> = defaults(GLOBAL_OPTIONS);
  for (const spec of GLOBAL_OPTIONS) {
    const v = r.global.flags.get(spec.name) ?? r.global.env.get(spec.name);
    if (v !== undefined) g[spec.name] = v.value;
  }
  g.chains = r.chains.map((c) => c.toString(10));
  return { g, origin: (n) => r.global.flags.get(n)?.origin ?? r.global.env.get(n)?.origin ?? `--${n}` };
}

/** The supernode-wide endpoints and paths, checked. */
function checkGlobals(r: ResolvedOptions, { g, origin }: GlobalValues, issues: ConfigIssue[]) {
  if (r.chains.length === 0 && !issues.some((i) => i.option === "--chains" || i.option === `${ENV_PREFIX}_CHAINS`)) {
    issues.push({
      option: "--chains",
      message: `required: the chain IDs to host (comma list; or ${ENV_PREFIX}_CHAINS)`,
    });
  }
  const l1 = str(g.l1);
  if (l1 === "")
    issues.push({ option: "--l1", message: `required: the shared L1 JSON-RPC endpoint (or ${ENV_PREFIX}_L1)` });
  else if (!isUrl(l1, HTTP_WS))
    issues.push({ option: origin("l1"), message: `invalid endpoint "${l1}" (expected an http(s) or ws(s) URL)` });
  const beacon = str(g["l1.beacon"]);
  if (beacon !== "" && !isUrl(beacon, HTTP))
    issues.push({ option: origin("l1.beacon"), message: `invalid endpoint "${beacon}" (expected an http(s) URL)` });
  for (const fb of list(g["l1.beacon-fallbacks"])) {
    if (!isUrl(fb, HTTP))
      issues.push({
        option: origin("l1.beacon-fallbacks"),
        message: `invalid endpoint "${fb}" (expected an http(s) URL)`,
      });
  }
  const dataDir = str(g["data-dir"], "./datadir");
  if (dataDir.trim() === "") issues.push({ option: origin("data-dir"), message: "must not be empty" });
  const allScope = r.scopes.get("all");
  for (const p of ["p2p.listen.tcp", "p2p.listen.udp"] as const) {
    const allV = allScope?.flags.get(p) ?? allScope?.env.get(p);
    if (allV !== undefined && allV.value !== 0) {
      issues.push({
        option: allV.origin,
        message: `a non-zero listen port cannot be shared by all chains; set it per chain (--vn.<chainID>.${p}) or leave it 0`,
      });
    }
  }
  return { l1, beacon, dataDir, disableP2p: bool(g["disable-p2p"]) };
}

/** Rules across chains, on whatever could be read, so that one bad chain does not hide other problems. */
function checkAcrossChains(
  facts: readonly ChainFacts[],
  top: { beacon: string; topDependencySet: string },
  issues: ConfigIssue[],
  warnings: ConfigWarning[],
): void {
  const byEndpoint = new Map<string, string>();
  const ports = { tcp: new Map<number, string>(), udp: new Map<number, string>() };
  for (const c of facts) {
    const id = c.chainId.toString(10);
    if (c.l2 !== "") {
      const ep = normalizeEndpoint(c.l2);
      const other = byEndpoint.get(ep);
      if (other !== undefined)
        issues.push({
          option: `--vn.${id}.l2`,
          chain: id,
          message: `execution client ${c.l2} already backs chain ${other}; each chain needs its own`,
        });
      else byEndpoint.set(ep, id);
    }
    if (!c.p2pDisabled) {
      for (const [port, n] of [
        [c.listenTcp, "tcp"],
        [c.listenUdp, "udp"],
      ] as const) {
        if (port === 0) continue;
        const o = ports[n].get(port);
        if (o !== undefined)
          issues.push({
            option: `--vn.${id}.p2p.listen.${n}`,
            chain: id,
            message: `port ${port} is also used by chain ${o}`,
          });
        else ports[n].set(port, id);
      }
    }
    if (c.rollup?.ecotone_time !== undefined && top.beacon === "") {
      issues.push({
        option: "--l1.beacon",
        chain: id,
        message: `required: chain ${id} schedules Ecotone (blob data) at ${c.rollup.ecotone_time}`,
      });
    }
    if (c.rollup?.lagoon_time !== undefined && !c.dependencySet && top.topDependencySet === "") {
      warnings.push({
        msg: "Interop is scheduled but no dependency set is configured",
        fields: { chain: id, lagoon_time: c.rollup.lagoon_time },
      });
    }
  }
}

/** The interop activation timestamp and log backfill depth, checked against the chains' rollup configs. */
function interopSettings(
  r: ResolvedOptions,
  { g, origin }: GlobalValues,
  facts: readonly ChainFacts[],
  issues: ConfigIssue[],
) {
  const withRollup = facts.flatMap((f) => (f.rollup ? [{ chainId: f.chainId, rollup: f.rollup }] : []));
  const backfill = num(g["interop.log-backfill-depth"]);
  const issuesBefore = issues.length;
  const activation = resolveInterop(num(g["interop.activation-timestamp"]), withRollup, issues);
  const allRollupsKnown = withRollup.length === r.chains.length && r.chains.length > 0;
  if (backfill > 0 && activation === undefined && allRollupsKnown && issues.length === issuesBefore) {
    issues.push({
      option: origin("interop.log-backfill-depth"),
      message:
        "requires an interop activation timestamp (set --interop.activation-timestamp or schedule lagoon_time in every chain's rollup config)",
    });
  }
  return { activation, backfill };
}

/** The dependency set from the supernode-wide file and the chains' own (they must agree). */
function dependencySetOf(
  r: ResolvedOptions,
  { g, origin }: GlobalValues,
  facts: readonly ChainFacts[],
  issues: ConfigIssue[],
) {
  const sources: DependencySetSource[] = [];
  const top = str(g["dependency-set"]);
  if (top !== "") sources.push({ option: origin("dependency-set"), path: top });
  for (const f of facts) {
    const id = f.chainId.toString(10);
    if (f.dependencySetPath !== "")
      sources.push({ option: `--vn.${id}.interop.dependency-set`, chain: id, path: f.dependencySetPath });
  }
  return resolveDependencySet(sources, r.chains, issues);
}

/** Second pass: builds and validates the whole configuration. Every problem is appended to `r.issues`. */
export function buildConfig(
  r: ResolvedOptions,
  opts: BuildOptions = {},
): { config?: SupernodeConfig; issues: ConfigIssue[]; warnings: ConfigWarning[] } {
  const { issues, warnings } = r;
  const values = globalValues(r);
  const { g } = values;
  const top = checkGlobals(r, values, issues);
  const allPriv = r.scopes.get("all")?.flags.get("p2p.priv.path") ?? r.scopes.get("all")?.env.get("p2p.priv.path");
  if (allPriv !== undefined)
    warnings.push({
      msg: "Virtual node flag is ignored for all chains at once (one key would give every chain one peer ID); use --vn.<chainID>.p2p.priv.path",
      fields: { flag: "p2p.priv.path", origin: allPriv.origin },
    });
  const networksDir = opts.networksDir ?? defaultNetworksDir();
  const chainConfigs: ChainConfig[] = [];
  const facts: ChainFacts[] = [];
  for (const id of r.chains) {
    const built = buildChain(id, r, top, issues, warnings, networksDir);
    facts.push(built.facts);
    if (built.config) chainConfigs.push(built.config);
  }
  checkAcrossChains(facts, { beacon: top.beacon, topDependencySet: str(g["dependency-set"]) }, issues, warnings);
  const interop = interopSettings(r, values, facts, issues);
  const dependencySet = dependencySetOf(r, values, facts, issues);
  if (issues.length > 0 || dependencySet === undefined) return { issues, warnings };

  const config: SupernodeConfig = {
    chains: r.chains,
    dataDir: top.dataDir,
    l1: top.l1,
    ...(top.beacon !== "" ? { l1Beacon: top.beacon } : {}),
    l1BeaconFallbacks: list(g["l1.beacon-fallbacks"]),
    l1HttpPollIntervalMs: num(g["l1.http-poll-interval"]),
    l1MaxResponseBytes: num(g["l1.max-response-size"]),
    l1BeaconMaxResponseBytes: num(g["l1.beacon.max-response-size"]),
    disableP2p: top.disableP2p,
    ...(interop.activation !== undefined ? { interopActivationTimestamp: interop.activation } : {}),
    interopLogBackfillDepthMs: interop.backfill,
    dependencySet,
    rpc: {
      addr: str(g["rpc.addr"]),
      port: num(g["rpc.port"]),
      enableAdmin: bool(g["rpc.enable-admin"]),
      requestTimeoutMs: num(g["rpc.request-timeout"]),
      maxConnections: num(g["rpc.max-connections"]),
      maxConnectionsPerClient: num(g["rpc.max-connections-per-client"]),
    },
    log: {
      level: str(g["log.level"], "info") as LogLevel,
      format: str(g["log.format"], "text") as LogFormat,
      color: bool(g["log.color"]),
    },
    metrics: { enabled: bool(g["metrics.enabled"]), addr: str(g["metrics.addr"]), port: num(g["metrics.port"]) },
    pprof: { enabled: bool(g["pprof.enabled"]), addr: str(g["pprof.addr"]), port: num(g["pprof.port"]) },
    chainConfigs,
    options: Object.freeze({ ...g }),
  };
  return { config, issues, warnings };
}
