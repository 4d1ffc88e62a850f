/**
 * The chaos run's batcher process: one devnet batcher per chain (packages/devnet/src/batcher), reading the sequencer's
 * execution clients and posting to the L1, until SIGTERM. Usage: `node --import tsx chaos/batcher-proc.ts <json>`
 * with `{ l1: { rpcUrl, chainId }, chains: [{ rollupConfigPath, l2RpcUrl, accountIndex }] }`.
 */
import { readFileSync } from "node:fs";
import { createLogger, endWithParent } from "supernode";
import { parseRollupConfig } from "supernode/protocol";
import { Batcher } from "supernode-devnet/batcher/batcher";
import { L1Client } from "supernode-devnet/l1/l1-client";

// ends with the chaos harness, however it ends (its IPC channel closes)
endWithParent(() => process.exit(0));

interface BatcherProcConfig {
  readonly l1: { readonly rpcUrl: string; readonly chainId: number };
  readonly chains: readonly { rollupConfigPath: string; l2RpcUrl: string; accountIndex: number }[];
}

const cfg = JSON.parse(process.argv[2] ?? "{}") as BatcherProcConfig;
const logger = createLogger({ level: "info", format: "text", color: false, destination: process.stderr });
const l1 = new L1Client(cfg.l1.rpcUrl, cfg.l1.chainId);
const batchers = cfg.chains.map(
  (c) =>
    new Batcher({
      rollupConfig: parseRollupConfig(readFileSync(c.rollupConfigPath, "utf8")),
      l2RpcUrl: c.l2RpcUrl,
      l1,
      accountIndex: c.accountIndex,
      mode: "calldata",
      batchType: "singular",
      pollIntervalMs: 500,
      pendingTimeoutMs: 6_000,
      logger,
    }),
);
for (const b of batchers) b.start();
process.stdout.write(`${JSON.stringify({ batchers: batchers.length })}\n`);
const stop = async () => {
  for (const b of batchers) await b.stop().catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
