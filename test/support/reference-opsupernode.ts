/**
 * op-supernode beside ours: one devnet L1 (anvil), chains 901 and 902 with Interop (Lagoon) at genesis, and three
 * supernodes, each driving op-geth execution clients of its own (a consensus client needs an EL to itself):
 * - our sequencer (in this process): sequences both chains, runs the interop activity (so it replaces the blocks
 *   carrying invalid messages and goes on from the replacements); the devnet's batchers post its blocks as calldata,
 *   and the devnet's interop traffic sends valid and invalid executing messages to its execution clients;
 * - our verifier (a child process, `bin/supernode.js`) and op-supernode (the Go reference) both derive the two
 *   chains from L1 alone (no P2P) and verify them with their interop activities.
 * The comparison (`compareSupernodes`) is between the two verifiers; `usage` samples both processes from /proc.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildChainRuntimes } from "../../src/app/chain-factory.js";
import { protocolHashing } from "../../src/app/hashing.js";
import { Supernode } from "../../src/app/supernode.js";
import { formatIssues } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import type { Hash } from "../../src/core/types/primitives.js";
import { type Devnet, devnetChainArgs, devnetProcessArgs, startDevnet } from "supernode-devnet";
import { Batcher } from "supernode-devnet/batcher/batcher";
import { supernodeBin } from "supernode-devnet/cli/child";
import { devnetForkOffsets, rollupConfigJson } from "supernode-devnet/config";
import { DEVNET_MESSAGE_EXPIRY_WINDOW, writeDependencySet } from "supernode-devnet/interop-devnet";
import { InteropTraffic } from "supernode-devnet/interop-traffic";
import { batcherAccountIndex, devAccount } from "supernode-devnet/l1/dev-accounts";
import { createLogger } from "../../src/observability/logger.js";
import type { RollupConfig } from "../../src/protocol/rollup-config.js";
import {
  freePort,
  jsonRpc,
  type OpGeth,
  referenceBinary,
  referenceLog,
  type RefProcess,
  startOpGeth,
  startReference,
  startReferenceBinary,
  until,
} from "./reference.js";

export const CHAINS = [901n, 902n] as const;
type Ref = { hash: Hash; number: number; timestamp: number };

/** One verifier: its process, its RPC and metrics URLs, and its execution client per chain. */
export interface Verifier extends RefProcess {
  readonly name: "supernode" | "op-supernode";
  readonly rpcUrl: string;
  readonly metricsUrl: string;
  readonly els: ReadonlyMap<bigint, OpGeth>;
}

export interface SupernodesRig {
  readonly dir: string;
  readonly devnet: Devnet;
  readonly traffic: InteropTraffic;
  readonly ours: Verifier;
  readonly theirs: Verifier;
  /** The interop activation (= the L2 genesis time). */
  readonly activation: number;
  readonly dependencySetPath: string;
}

/** Starts the rig; `stops` collects what to end, in start order (the caller ends them in reverse). */
export async function startSupernodesRig(
  o: { invalidEveryBlocks: number },
  stops: Array<() => Promise<void>>,
): Promise<SupernodesRig> {
  const dir = mkdtempSync(join(tmpdir(), "sn-ref-opsupernode-"));
  stops.push(async () => {
    if (process.env.REFERENCE_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
  });
  // Every fork through Jovian at genesis (op-geth's last), and Lagoon (Interop) at genesis too: its activation
  // block is the genesis, so no Lagoon upgrade transactions; Karst stays off (op-geth does not run Osaka).
  const forkOffsets = { ...devnetForkOffsets(), lagoon: 0 };
  const devnet = await startDevnet({
    dir,
    chains: CHAINS.map((chainId) => ({ chainId, variant: "b" as const, forkOffsets })),
    l1BlockTimeSec: 1,
    l2BlockTimeSec: 1,
    dataMode: "calldata",
  });
  stops.push(() => devnet.stop());
  const dependencySetPath = join(dir, "dependency-set.json");
  await writeDependencySet(dependencySetPath, CHAINS, DEVNET_MESSAGE_EXPIRY_WINDOW);

  const geth = referenceBinary("geth") as string;
  const els = {
    sequencer: new Map<bigint, OpGeth>(),
    ours: new Map<bigint, OpGeth>(),
    theirs: new Map<bigint, OpGeth>(),
  };
  const rollupPaths = new Map<bigint, string>();
  const configs = new Map<bigint, RollupConfig>();
  for (const id of CHAINS) {
    const chain = devnet.chain(id);
    for (const role of ["sequencer", "ours", "theirs"] as const) {
      const name = `geth-${role}-${id}`;
      const p = await startOpGeth({
        geth,
        datadir: join(dir, name),
        genesisPath: chain.l2GenesisPath,
        jwtPath: chain.jwtSecretPath,
        logDir: dir,
        name,
      });
      stops.push(() => p.stop());
      els[role].set(id, p);
    }
    const g = await jsonRpc<Ref>(els.sequencer.get(id)!.httpUrl, "eth_getBlockByNumber", ["0x0", false]);
    const cfg: RollupConfig = {
      ...chain.rollupConfig,
      genesis: { ...chain.rollupConfig.genesis, l2: { hash: g.hash, number: 0 } },
    };
    const path = join(dir, `rollup-${id}-op-geth.json`);
    writeFileSync(path, rollupConfigJson(cfg));
    rollupPaths.set(id, path);
    configs.set(id, cfg);
  }
  const chainArgs = (role: "sequencer" | "ours") =>
    CHAINS.flatMap((id) => {
      const c = devnet.chain(id);
      return devnetChainArgs(
        { ...c, rollupConfigPath: rollupPaths.get(id)! },
        els[role].get(id)!.authUrl,
        c.jwtSecretPath,
      );
    });

  const sequencer = await startSequencer(devnet, dir, chainArgs("sequencer"));
  stops.push(() => sequencer.stop());
  CHAINS.forEach((id, i) => {
    const b = new Batcher({
      rollupConfig: configs.get(id)!,
      l2RpcUrl: els.sequencer.get(id)!.httpUrl,
      l1: devnet.l1Node.client,
      accountIndex: batcherAccountIndex(i),
      mode: "calldata",
      batchType: "span",
      pollIntervalMs: 1000,
    });
    b.start();
    stops.push(() => b.stop());
  });
  const activation = configs.get(CHAINS[0])!.genesis.l2_time;
  const traffic = new InteropTraffic(
    {
      chains: CHAINS.map((id) => ({
        chainId: id,
        rpcUrl: els.sequencer.get(id)!.httpUrl,
        blockTime: 1,
        genesis: { number: 0, timestamp: activation },
      })),
      activation,
      expiryWindow: DEVNET_MESSAGE_EXPIRY_WINDOW,
      everyBlocks: 2,
      invalidEveryBlocks: o.invalidEveryBlocks,
      // the sequencer runs well ahead of L1 derivation here: its replacement can come many blocks later
      quietBlocks: 300,
    },
    { logger: fileLogger(join(dir, "interop-traffic.log")) },
  );
  traffic.start();
  stops.push(() => traffic.stop());

  // op-node (inside op-supernode) reads each chain's unsafe-block signer from L1 with a storage proof at start and
  // fails the chain when the proof does not verify, which anvil's proof for the stand-in SystemConfig's empty
  // storage does not: set a signer (nobody signs: P2P is off everywhere).
  await Promise.all(devnet.chains.map((c) => c.contracts.setUnsafeBlockSigner(devAccount(0).address)));
  const ours = await startOurVerifier(devnet, dir, chainArgs("ours"), els.ours);
  stops.push(() => ours.stop());
  const theirs = await startOpSupernode(devnet, dir, dependencySetPath, rollupPaths, els.theirs);
  stops.push(() => theirs.stop());
  return { dir, devnet, traffic, ours, theirs, activation, dependencySetPath };
}

/** A logger writing logfmt lines to `path` (kept with REFERENCE_KEEP=1). */
function fileLogger(path: string) {
  const write = (line: string) => appendFileSync(path, line);
  return createLogger({ level: "info", format: "logfmt", color: false, destination: { write } });
}

async function startSequencer(devnet: Devnet, dir: string, chainArgs: string[]) {
  const args = [
    ...devnetProcessArgs(devnet, {
      dir,
      dataDir: join(dir, "sequencer"),
      rpcPort: 0,
      metricsPort: 0,
      logLevel: "warn",
    }),
    ...["--disable-p2p", "--rpc.enable-admin", "--vn.all.sequencer.enabled", "--l1.http-poll-interval", "500ms"],
    ...chainArgs,
  ];
  const loaded = loadConfig(args, {});
  if (!loaded.ok) throw new Error(formatIssues(loaded.issues));
  return Supernode.start(loaded.config, {
    logger: fileLogger(join(dir, "sequencer.log")),
    buildChains: buildChainRuntimes,
    hashing: protocolHashing,
  });
}

/** Our supernode as a verifier in a process of its own (the product's binary), so /proc measures it alone. */
async function startOurVerifier(
  devnet: Devnet,
  dir: string,
  chainArgs: string[],
  els: ReadonlyMap<bigint, OpGeth>,
): Promise<Verifier> {
  const [rpcPort, metricsPort] = [await freePort(), await freePort()];
  const args = [
    ...devnetProcessArgs(devnet, { dir, dataDir: join(dir, "ours"), rpcPort, metricsPort, logLevel: "info" }),
    "--disable-p2p",
    ...chainArgs,
  ];
  const p = startReference(process.execPath, [supernodeBin(), ...args], referenceLog(dir, "supernode-verifier"), true);
  const v: Verifier = {
    ...p,
    name: "supernode",
    rpcUrl: `http://127.0.0.1:${rpcPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    els,
  };
  await waitUp(v, 120_000);
  return v;
}

/** op-supernode (Go reference): the same L1, dependency set and rollup configs, its own op-geth per chain. */
async function startOpSupernode(
  devnet: Devnet,
  dir: string,
  dependencySetPath: string,
  rollupPaths: ReadonlyMap<bigint, string>,
  els: ReadonlyMap<bigint, OpGeth>,
): Promise<Verifier> {
  const [rpcPort, metricsPort] = [await freePort(), await freePort()];
  const { rpcUrl, beaconUrl, chainConfigPath } = devnet.l1;
  const args = [
    ...["--chains", CHAINS.join(","), "--l1", rpcUrl, "--l1.beacon", beaconUrl, "--l1.http-poll-interval", "1s"],
    ...["--data-dir", join(dir, "op-supernode"), "--dependency-set", dependencySetPath, "--disable-p2p"],
    // v0.1.1 checks each virtual node's config for a dependency set before it applies --dependency-set to them
    // ("the Lagoon upgrade is scheduled … but not dependency set is configured"): give it to the nodes as well
    ...["--vn.all.interop.dependency-set", dependencySetPath],
    ...["--rpc.addr", "127.0.0.1", "--rpc.port", String(rpcPort), "--interop.log-backfill-depth", "0s"],
    ...["--metrics.enabled", "--metrics.addr", "127.0.0.1", "--metrics.port", String(metricsPort)],
    ...["--vn.all.l1", rpcUrl, "--vn.all.l1.beacon", beaconUrl, "--vn.all.l1.rpckind", "basic", "--vn.all.l1.trustrpc"],
    ...["--vn.all.l2.enginekind", "geth", "--vn.all.rollup.l1-chain-config", chainConfigPath],
    ...["--vn.all.syncmode", "consensus-layer", "--log.level", "info"],
    ...CHAINS.flatMap((id) => [
      ...[`--vn.${id}.l2`, els.get(id)!.authUrl, `--vn.${id}.l2.jwt-secret`, devnet.chain(id).jwtSecretPath],
      ...[`--vn.${id}.rollup.config`, rollupPaths.get(id)!],
    ]),
  ];
  const p = startReferenceBinary("op-supernode", args, dir);
  const v: Verifier = {
    ...p,
    name: "op-supernode",
    rpcUrl: `http://127.0.0.1:${rpcPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    els,
  };
  await waitUp(v, 120_000);
  return v;
}

/** Waits until `v` answers `supernode_syncStatus`; ends it and throws (naming its log) when it does not or exits. */
async function waitUp(v: Verifier, timeoutMs: number): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    v.child.once("exit", (code) => reject(new Error(`${v.name} exited with ${code}`))),
  );
  exited.catch(() => {});
  try {
    await Promise.race([until(`${v.name}'s RPC`, () => jsonRpc(v.rpcUrl, "supernode_syncStatus"), timeoutMs), exited]);
  } catch (err) {
    await v.stop();
    throw new Error(`${(err as Error).message}; see ${v.logPath}`);
  }
}
