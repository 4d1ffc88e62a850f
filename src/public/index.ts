/**
 * `supernode`: run the supernode inside another program (the devnet package and the benches do; see
 * docs/devnet.md). The arguments are the command line's (`supernode --help`), loaded and validated exactly as the
 * CLI does (`loadConfig`, or in one step `startSupernode`). Importing this module first also installs the
 * `Promise.withResolvers` polyfill that libp2p needs on Node 20.
 */
// First: libp2p needs Promise.withResolvers (Node 22+); the polyfill must run before libp2p loads.
import "../core/polyfill.js";
import { buildChainRuntimes } from "../app/chain-factory.js";
import { protocolHashing } from "../app/hashing.js";
import { Supernode } from "../app/supernode.js";
import { formatIssues } from "../config/issues.js";
import { loadConfig } from "../config/load.js";
import type { Logger } from "../core/logger.js";
import type { SupernodeConfig } from "../config/types.js";

export { Supernode } from "../app/supernode.js";
export { installSignalHandlers } from "../cli/signals.js";
export { endWithParent, terminateSelf } from "../cli/parent-watch.js";
export { type LoadResult, loadConfig } from "../config/load.js";
export { formatIssues } from "../config/issues.js";
export { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel, type SupernodeConfig } from "../config/types.js";
export { type AppLogger, createLogger } from "../observability/logger.js";
export {
  type CreateMetricsOptions,
  createSupernodeMetrics,
  type SupernodeMetrics,
} from "../observability/metrics-registry.js";

/**
 * Starts a supernode from command-line arguments and environment variables (`SUPERNODE_*`, as the CLI reads
 * them). Rejects with every configuration problem in one message, or when a chain cannot start; stop it with
 * `supernode.stop()`.
 */
export async function startSupernode(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  deps: { readonly logger: Logger },
): Promise<Supernode> {
  const res = loadConfig(args, env);
  if (!res.ok) throw new Error(`supernode configuration: ${formatIssues(res.issues)}`);
  return startSupernodeFromConfig(res.config, deps);
}

/**
 * Starts a supernode from a configuration already loaded (`loadConfig`), with the chains and hashing the CLI uses.
 * Rejects when a chain cannot start; stop it with `supernode.stop()`.
 */
export async function startSupernodeFromConfig(
  config: SupernodeConfig,
  deps: { readonly logger: Logger },
): Promise<Supernode> {
  return Supernode.start(config, {
    logger: deps.logger,
    buildChains: buildChainRuntimes,
    hashing: protocolHashing,
  });
}
