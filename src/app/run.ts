import type { Logger } from "../core/logger.js";
import type { SupernodeConfig } from "../config/types.js";

/**
 * Runs the supernode until `deps.signal` aborts: builds the chain containers, the RPC server, metrics and pprof
 * servers, and shuts them down in order. (Thin first version; the full composition follows.)
 */
export async function runSupernode(
  config: SupernodeConfig,
  deps: { logger: Logger; signal: AbortSignal },
): Promise<void> {
  deps.logger.info({ chains: Object.keys(config).length }, "supernode starting");
  if (deps.signal.aborted) return;
  await new Promise<void>((resolve) => deps.signal.addEventListener("abort", () => resolve(), { once: true }));
  deps.logger.info({}, "supernode stopped");
}
