import { rollupConfigToJson } from "../protocol/rollup-config-json.js";
import { REDACTED, isSecretKey, looksLikeSecret } from "../observability/log-redact.js";
import type { ChainConfig, SupernodeConfig } from "./types.js";

/** Hides a password in a URL's user-info (`https://user:pass@host` → `https://user:[redacted]@host`). */
export function redactUrl(s: string): string {
  try {
    const u = new URL(s);
    if (u.password === "") return s;
    u.password = "redacted";
    return u.toString().replace(":redacted@", `:${REDACTED}@`);
  } catch {
    return s;
  }
}

function redactOptions(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined) continue;
    const secretValue = (isSecretKey(k) && k !== "l2.jwt-secret") || k === "p2p.sequencer.key" || k === "p2p.priv.raw";
    const secretLike = typeof v === "string" && looksLikeSecret(v);
    if (k === "signer.header" && Array.isArray(v)) {
      // Header values often carry credentials (`Authorization=Bearer …`): only the names are shown.
      out[k] = v.map((h) => `${String(h).split("=")[0]}=${REDACTED}`);
      continue;
    }
    out[k] = (secretValue && v !== "") || secretLike ? REDACTED : typeof v === "string" ? redactUrl(v) : v;
  }
  return out;
}

function chainJson(c: ChainConfig): Record<string, unknown> {
  const { p2p } = c;
  return {
    chainId: c.chainId.toString(10),
    ...(c.network !== undefined ? { network: c.network } : {}),
    ...(c.rollupConfigPath !== undefined ? { rollupConfigPath: c.rollupConfigPath } : {}),
    l2: redactUrl(c.l2),
    jwtSecret: REDACTED,
    jwtSecretPath: looksLikeSecret(c.jwtSecretPath) ? REDACTED : c.jwtSecretPath,
    engineKind: c.engineKind,
    l2EngineRpcTimeoutMs: c.l2EngineRpcTimeoutMs,
    dataDir: c.dataDir,
    safedbPath: c.safedbPath,
    syncMode: c.syncMode,
    syncModeReqResp: c.syncModeReqResp,
    syncOffsetElSafeMs: c.syncOffsetElSafeMs,
    verifierL1Confs: c.verifierL1Confs,
    finalityLookback: c.finalityLookback,
    finalityDelay: c.finalityDelay,
    sequencer: c.sequencer,
    p2p: {
      ...p2p,
      ...(p2p.privRaw !== undefined ? { privRaw: REDACTED } : {}),
      ...(p2p.sequencerKey !== undefined ? { sequencerKey: REDACTED } : {}),
      ...(p2p.remoteSigner !== undefined
        ? {
            remoteSigner: {
              ...p2p.remoteSigner,
              endpoint: redactUrl(p2p.remoteSigner.endpoint),
              headers: Object.fromEntries(Object.keys(p2p.remoteSigner.headers).map((h) => [h, REDACTED])),
            },
          }
        : {}),
    },
    metrics: c.metrics,
    ...(c.interopDependencySetPath !== undefined ? { interopDependencySetPath: c.interopDependencySetPath } : {}),
    explicitOptions: [...c.explicitOptions].sort(),
    options: redactOptions(c.options),
    rollup: rollupConfigToJson(c.rollup),
  };
}

/** The effective configuration as a JSON value (what `supernode config` prints); secrets are redacted. */
export function effectiveConfigJson(config: SupernodeConfig): Record<string, unknown> {
  return {
    chains: config.chains.map((c) => c.toString(10)),
    dataDir: config.dataDir,
    l1: redactUrl(config.l1),
    ...(config.l1Beacon !== undefined ? { l1Beacon: redactUrl(config.l1Beacon) } : {}),
    l1BeaconFallbacks: config.l1BeaconFallbacks.map(redactUrl),
    l1HttpPollIntervalMs: config.l1HttpPollIntervalMs,
    disableP2p: config.disableP2p,
    interopActivationTimestamp: config.interopActivationTimestamp ?? null,
    interopLogBackfillDepthMs: config.interopLogBackfillDepthMs,
    ...(config.dependencySet !== undefined
      ? {
          dependencySet: {
            chains: config.dependencySet.chainIds.map((c) => c.toString(10)),
            messageExpiryWindow: config.dependencySet.messageExpiryWindow,
          },
        }
      : {}),
    rpc: config.rpc,
    log: config.log,
    metrics: config.metrics,
    pprof: config.pprof,
    chainConfigs: config.chainConfigs.map(chainJson),
  };
}
