/**
 * Derivation oracle: op-node (the Go reference) in verifier mode and the supernode follow the same devnet L1, each
 * driving its own op-geth started from the devnet's L2 genesis. The supernode sequences on its op-geth, the devnet's
 * batcher posts its blocks to L1, op-node derives them. Every block up to op-node's safe head must have the same
 * hash on both execution clients and the same output root on both rollup nodes (`optimism_outputAtBlock`).
 *
 * Blocks: REFERENCE_BLOCKS (default 20; `npm run reference` asks for 200). Figures: blocks_compared,
 * block_mismatches, outputs_compared.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildChainRuntimes } from "../../src/app/chain-factory.js";
import { protocolHashing } from "../../src/app/hashing.js";
import { Supernode } from "../../src/app/supernode.js";
import { type Devnet, devnetProcessArgs, startDevnet } from "supernode-devnet";
import { formatIssues } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import { createLogger } from "../../src/observability/logger.js";
import type { Hash } from "../../src/core/types/primitives.js";
import { Batcher } from "supernode-devnet/batcher/batcher";
import { rollupConfigJson } from "supernode-devnet/config";
import { batcherAccountIndex } from "supernode-devnet/l1/dev-accounts";
import type { RollupConfig } from "../../src/protocol/rollup-config.js";
import {
  freePort,
  jsonRpc,
  type OpGeth,
  printReferenceFigure,
  type RefProcess,
  referenceBinary,
  referenceLog,
  referenceSkipReason,
  startOpGeth,
  startReference,
  until,
} from "../support/reference.js";

const BLOCKS = Number(process.env.REFERENCE_BLOCKS ?? 20);
const CHAIN = 901n;
const skip = referenceSkipReason("derivation oracle", ["geth", "op-node"]);

const procs: RefProcess[] = [];
let devnet: Devnet | undefined;
let supernode: Supernode | undefined;
let batcher: Batcher | undefined;
let dir: string | undefined;
afterAll(async () => {
  await batcher?.stop();
  await supernode?.stop();
  for (const p of procs.reverse()) await p.stop();
  await devnet?.stop();
  if (dir !== undefined && process.env.REFERENCE_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
}, 60_000);

type Ref = { hash: Hash; number: number };
type Output = { outputRoot: Hash; blockRef: Ref };

async function startOpNode(o: { rollupPath: string; el: OpGeth; jwtPath: string; dev: Devnet; dir: string }) {
  const port = await freePort();
  const p = startReference(
    referenceBinary("op-node") as string,
    [
      "--l1",
      o.dev.l1.rpcUrl,
      "--l1.beacon",
      o.dev.l1.beaconUrl,
      "--l1.rpckind",
      "basic",
      "--l1.trustrpc",
      "--l1.http-poll-interval",
      "1s",
      "--l2",
      o.el.authUrl,
      "--l2.jwt-secret",
      o.jwtPath,
      "--rollup.config",
      o.rollupPath,
      "--rollup.l1-chain-config",
      o.dev.l1.chainConfigPath,
      "--rpc.addr",
      "127.0.0.1",
      "--rpc.port",
      String(port),
      "--p2p.disable",
      "--syncmode",
      "consensus-layer",
      "--l2.enginekind",
      "geth",
      "--safedb.path",
      join(o.dir, "op-node-safedb"),
      "--log.level",
      "info",
    ],
    referenceLog(o.dir, "op-node"),
  );
  procs.push(p);
  const url = `http://127.0.0.1:${port}`;
  await until("op-node's RPC", () => jsonRpc(url, "optimism_version"), 60_000);
  return url;
}

describe.skipIf(skip !== undefined)("derivation oracle: op-node and the supernode on one devnet L1", () => {
  it(`agree on every block hash and output root up to ${BLOCKS} safe blocks`, async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-ref-oracle-"));
    const geth = referenceBinary("geth") as string;
    devnet = await startDevnet({
      dir,
      chains: [{ chainId: CHAIN, variant: "b" }],
      l1BlockTimeSec: 1,
      l2BlockTimeSec: 1,
    });
    const chain = devnet.chain(CHAIN);
    const jwtPath = chain.jwtSecretPath;
    const ours = await startOpGeth({
      geth,
      datadir: join(dir, "geth-ours"),
      genesisPath: chain.l2GenesisPath,
      jwtPath,
      logDir: dir,
      name: "geth-ours",
    });
    procs.push(ours);
    const theirs = await startOpGeth({
      geth,
      datadir: join(dir, "geth-op-node"),
      genesisPath: chain.l2GenesisPath,
      jwtPath,
      logDir: dir,
      name: "geth-op-node",
    });
    procs.push(theirs);
    // op-geth computes the genesis hash of the devnet's genesis.json; both rollup nodes get a rollup config with it.
    const g0 = await jsonRpc<Ref>(ours.httpUrl, "eth_getBlockByNumber", ["0x0", false]);
    const g1 = await jsonRpc<Ref>(theirs.httpUrl, "eth_getBlockByNumber", ["0x0", false]);
    expect(g1.hash).toBe(g0.hash);
    const cfg: RollupConfig = {
      ...chain.rollupConfig,
      genesis: { ...chain.rollupConfig.genesis, l2: { hash: g0.hash, number: 0 } },
    };
    const rollupPath = join(dir, "rollup-op-geth.json");
    writeFileSync(rollupPath, rollupConfigJson(cfg));

    const args = [
      ...devnetProcessArgs(devnet, {
        dir,
        dataDir: join(dir, "supernode"),
        rpcPort: 0,
        metricsPort: 0,
        logLevel: "warn",
      }),
      "--disable-p2p",
      "--rpc.enable-admin",
      "--vn.all.sequencer.enabled",
      `--vn.${CHAIN}.l2`,
      ours.authUrl,
      `--vn.${CHAIN}.l2.jwt-secret`,
      jwtPath,
      `--vn.${CHAIN}.rollup.config`,
      rollupPath,
      `--vn.${CHAIN}.l2.enginekind`,
      "variant_b",
    ];
    const loaded = loadConfig(args, {});
    if (!loaded.ok) throw new Error(formatIssues(loaded.issues));
    supernode = await Supernode.start(loaded.config, {
      logger: createLogger({
        level: "info",
        format: "logfmt",
        color: false,
        destination: { write: (line: string) => appendFileSync(join(dir as string, "supernode.log"), line) },
      }),
      buildChains: buildChainRuntimes,
      hashing: protocolHashing,
    });
    batcher = new Batcher({
      rollupConfig: cfg,
      l2RpcUrl: ours.httpUrl,
      l1: devnet.l1Node.client,
      accountIndex: batcherAccountIndex(0),
      mode: "calldata",
      pollIntervalMs: 1000,
    });
    batcher.start();
    const opNode = await startOpNode({ rollupPath, el: theirs, jwtPath, dev: devnet, dir });
    const ourRpc = `${supernode.rpc.url}/${CHAIN}/`;

    const safeOf = async (url: string) => (await jsonRpc<{ safe_l2: Ref }>(url, "optimism_syncStatus")).safe_l2.number;
    await until(
      `op-node's safe head at ${BLOCKS} (logs in ${dir})`,
      async () => ((await safeOf(opNode)) >= BLOCKS && (await safeOf(ourRpc)) >= BLOCKS ? true : undefined),
      BLOCKS * 4_000 + 120_000,
    );

    let blockMismatches = 0;
    let outputs = 0;
    const firstMismatch: string[] = [];
    for (let n = 1; n <= BLOCKS; n++) {
      const q = `0x${n.toString(16)}`;
      const a = await jsonRpc<Ref>(ours.httpUrl, "eth_getBlockByNumber", [q, false]);
      const b = await jsonRpc<Ref>(theirs.httpUrl, "eth_getBlockByNumber", [q, false]);
      if (a.hash !== b.hash) {
        blockMismatches++;
        if (firstMismatch.length === 0) firstMismatch.push(`block ${n}: supernode ${a.hash}, op-node ${b.hash}`);
      }
      const oa = await jsonRpc<Output>(ourRpc, "optimism_outputAtBlock", [q]);
      const ob = await jsonRpc<Output>(opNode, "optimism_outputAtBlock", [q]);
      outputs++;
      if (oa.outputRoot !== ob.outputRoot && firstMismatch.length === 0)
        firstMismatch.push(`output at ${n}: supernode ${oa.outputRoot}, op-node ${ob.outputRoot}`);
    }
    printReferenceFigure("blocks_compared", BLOCKS, "blocks");
    printReferenceFigure("block_mismatches", blockMismatches, "blocks");
    printReferenceFigure("outputs_compared", outputs, "outputs");
    expect(firstMismatch).toEqual([]);
  }, 900_000);
});
