/** Wiring for node integration tests on the devnet: real L1 client, Engine API client, SafeDB and simulated ELs. */
import { join } from "node:path";
import { silentLogger, type Logger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Devnet, DevnetChain } from "../../../src/devnet/devnet.js";
import { forksFromRollupConfig, SimulatedExecutionClient } from "../../../src/devnet/el/index.js";
import { ANVIL_ACCOUNT_COUNT, devAccount } from "../../../src/devnet/l1/dev-accounts.js";
import { SafeDB } from "../../../src/io/db/safe-db.js";
import { EngineClient } from "../../../src/io/engine/engine-client.js";
import { L1Client } from "../../../src/io/l1/l1-client.js";
import type { ChainNode, ChainNodeConfig } from "../../../src/node/chain-node.js";
import { createChainNode } from "../../../src/node/create.js";
import type { BlobSource } from "../../../src/node/ports.js";
import { fileSequencerStateStore } from "../../../src/node/sequencer/state-file.js";

export function sharedL1(devnet: Devnet, logger: Logger = silentLogger): L1Client {
  const l1 = L1Client.create(
    { url: devnet.l1.rpcUrl, pollIntervalMs: 250, maxConcurrency: 8, cacheSize: 512 },
    { clock: systemClock, logger },
  );
  l1.start();
  return l1;
}

/** A second simulated EL of the same chain (same genesis), for a verifying node. */
export async function startVerifierEl(devnet: Devnet, chain: DevnetChain): Promise<SimulatedExecutionClient> {
  const alloc: Record<string, bigint> = {};
  for (let i = 0; i < ANVIL_ACCOUNT_COUNT; i++) alloc[devAccount(i).address] = 10n ** 22n;
  const el = await SimulatedExecutionClient.start(
    {
      variant: chain.variant === "a" ? "b" : "a",
      chainId: chain.chainId,
      genesis: {
        timestamp: chain.rollupConfig.genesis.l2_time,
        gasLimit: chain.rollupConfig.genesis.system_config.gasLimit,
        forks: forksFromRollupConfig(chain.rollupConfig),
        alloc,
      },
      http: { port: 0, api: ["eth", "net", "web3"] },
      authrpc: { port: 0, jwtSecret: chain.jwtSecret },
    },
    { logger: silentLogger, clock: systemClock },
  );
  if (el.genesisHash !== chain.rollupConfig.genesis.l2.hash) throw new Error("verifier EL genesis differs");
  void devnet;
  return el;
}

export interface TestNode {
  readonly node: ChainNode;
  readonly engine: EngineClient;
  readonly safeDb: SafeDB;
  close(): Promise<void>;
}

export async function startNode(opts: {
  chain: DevnetChain;
  l1: L1Client;
  authUrl: string;
  dataDir: string;
  sequencer: boolean;
  blobs?: BlobSource;
  logger?: Logger;
}): Promise<TestNode> {
  const cfg: ChainNodeConfig = {
    rollup: opts.chain.rollupConfig,
    engineKind: opts.chain.variant === "a" ? "variant_a" : "variant_b",
    syncMode: "consensus-layer",
    sequencer: { enabled: opts.sequencer, stopped: false, l1Confs: 0, maxSafeLag: 0, recoverMode: false },
    verifierL1Confs: 0,
    idlePollMs: 100,
  };
  const logger = opts.logger ?? silentLogger;
  const engine = EngineClient.create(
    { url: opts.authUrl, jwtSecret: opts.chain.jwtSecret, kind: cfg.engineKind, rollupConfig: cfg.rollup },
    { clock: systemClock, logger },
  );
  const safeDb = await SafeDB.open(join(opts.dataDir, "safedb"), { logger });
  const node = await createChainNode(cfg, {
    l1: opts.l1,
    blobs: opts.blobs,
    engine,
    safeDb,
    sequencerStore: fileSequencerStateStore(join(opts.dataDir, "sequencer.json")),
    clock: systemClock,
    logger,
  });
  await node.start();
  return {
    node,
    engine,
    safeDb,
    async close() {
      await node.stop();
      await safeDb.close();
    },
  };
}
