/**
 * Identifies a chain's execution client: `web3_clientVersion`, plus `rpc_modules` (variant B answers it, variant A
 * returns -32601), against the configured `l2.enginekind`; and variant B's end of support.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import { type HttpRpcClient, isMethodNotFound, RpcError } from "../json-rpc/http-client.js";

export type EngineKind = "variant_a" | "variant_b";

/** Variant B (the legacy execution client) reaches end of support on this date (UTC). */
export const VARIANT_B_END_OF_SUPPORT_MS = Date.UTC(2026, 4, 31);

export interface EngineIdentity {
  readonly clientVersion: string | undefined;
  /** From `rpc_modules` (answered only by variant B) and the version string; undefined when undecidable. */
  readonly detectedKind: EngineKind | undefined;
  readonly warnings: readonly string[];
}

export async function readClientVersion(rpc: HttpRpcClient): Promise<string> {
  const v = await rpc.call("web3_clientVersion", []);
  if (typeof v !== "string") throw new DecodeError("web3_clientVersion: not a string");
  return v;
}

/**
 * Identifies the execution client: `web3_clientVersion`, plus `rpc_modules` (variant B answers it, variant A
 * returns -32601). Logs a warning when the detected kind differs from `l2.enginekind`, and when the chain runs
 * variant B, which reaches end of support on 2026-05-31 (past it, per the injected clock). Never throws.
 */
export async function identifyEngine(
  rpc: HttpRpcClient,
  configured: EngineKind,
  deps: { readonly clock: Clock; readonly logger: Logger },
): Promise<EngineIdentity> {
  const warnings: string[] = [];
  const log = deps.logger;
  let clientVersion: string | undefined;
  try {
    clientVersion = await readClientVersion(rpc);
  } catch (err) {
    log.debug({ err: String(err) }, "web3_clientVersion unavailable");
  }
  let byModules: EngineKind | undefined;
  let reached = clientVersion !== undefined;
  try {
    await rpc.call("rpc_modules", []);
    byModules = "variant_b";
    reached = true;
  } catch (err) {
    if (isMethodNotFound(err)) byModules = "variant_a";
    if (err instanceof RpcError) reached = true;
    else log.debug({ err: String(err) }, "rpc_modules probe failed");
  }
  const byVersion = kindFromVersion(clientVersion);
  const detectedKind = byVersion ?? byModules;
  if (detectedKind !== undefined && detectedKind !== configured) {
    const msg = `execution client looks like ${detectedKind} but l2.enginekind is ${configured}`;
    warnings.push(msg);
    log.warn({ clientVersion, detected: detectedKind, configured }, msg);
  }
  if (configured === "variant_b" || detectedKind === "variant_b") {
    const past = deps.clock.nowMs() >= VARIANT_B_END_OF_SUPPORT_MS;
    const msg = past
      ? "variant B execution client is past its end of support (2026-05-31); migrate to variant A"
      : "variant B execution client reaches end of support on 2026-05-31; plan a migration to variant A";
    warnings.push(msg);
    log.warn({ clientVersion, engineKind: configured }, msg);
  }
  if (reached) log.info({ clientVersion, detected: detectedKind, configured }, "execution client identified");
  else log.info({ configured }, "execution client not reached; not identified");
  return { clientVersion, detectedKind, warnings };
}

/** Version strings: variant A clients report `reth/...`, variant B `Geth/...` (case-insensitive). */
function kindFromVersion(v: string | undefined): EngineKind | undefined {
  if (v === undefined) return undefined;
  if (/(^|[^a-z])(op-)?reth\//i.test(v)) return "variant_a";
  if (/(^|[^a-z])(op-)?geth\//i.test(v)) return "variant_b";
  return undefined;
}
