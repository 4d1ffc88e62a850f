import type { SupernodeConfig } from "../config/types.js";
import type { Logger } from "../core/logger.js";
import { lockDataDir } from "../io/db/instance-lock.js";
import { buildChainRuntimes } from "./chain-factory.js";
import { protocolHashing } from "./hashing.js";
import { Supernode } from "./supernode.js";

/**
 * Runs the supernode until `deps.signal` aborts (the CLI aborts it on SIGINT/SIGTERM and forces the exit on a
 * second signal), then shuts it down in order. Rejects if it cannot start (e.g. a port is taken).
 */
export async function runSupernode(
  config: SupernodeConfig,
  deps: { logger: Logger; signal: AbortSignal },
): Promise<void> {
  if (deps.signal.aborted) return;
  const lock = await lockDataDir(config.dataDir); // a second supernode on the same data dir refuses to start
  try {
    const node = await Supernode.start(config, {
      logger: deps.logger,
      buildChains: buildChainRuntimes,
      hashing: protocolHashing,
    });
    await new Promise<void>((resolve) => deps.signal.addEventListener("abort", () => resolve(), { once: true }));
    await node.stop();
  } finally {
    await lock.release();
  }
}
