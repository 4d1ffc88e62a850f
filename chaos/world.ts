/**
 * The chaos topology, every part in its own process: anvil (the devnet L1, packages/devnet/src/l1), a hostile proxy in front
 * of it for the verifier, two simulated execution clients per chain (`supernode-devnet el`, chain kept on disk), one
 * batcher process posting every chain's batches, a sequencing supernode and a verifying supernode (the real binary,
 * `bin/supernode.js`), each with fixed loopback ports so it can be killed and restarted alone.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { devnetBin } from "supernode-devnet";
import { writeJwtSecret, writeRollupConfig } from "supernode-devnet/config";
import { ANVIL_ACCOUNT_COUNT, batcherAccountIndex, devAccount } from "supernode-devnet/l1/dev-accounts";
import { DevnetL1 } from "supernode-devnet/l1/l1";
import type { Hash } from "supernode/core";
import { HostileProxy } from "./hostile-proxy.js";
import { type NodeView, rpc, waitFor } from "./probe.js";
import { freePort, type Proc, ProcSet } from "./procs.js";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "supernode.js");
const L1_CHAIN_ID = 900;

export const CHAINS = [
  { chainId: 901, variant: "a" as const },
  { chainId: 902, variant: "b" as const },
];
export type Role = "seq" | "ver";

export interface WorldOptions {
  readonly dir: string;
  /** L1 finality distance: anvil finalizes head − 2·slots. */
  readonly slotsInAnEpoch: number;
  readonly l1BlockTimeSec: number;
  readonly l2BlockTimeSec: number;
  readonly oversizedBytes: number;
  /** `--l1.max-response-size` of the verifier (the one behind the hostile proxy); undefined = the default. */
  readonly l1MaxResponseBytes?: number;
  readonly slowMs: number;
}

export interface ElHandle {
  readonly key: string;
  readonly chainId: number;
  readonly variant: "a" | "b";
  readonly httpUrl: string;
  readonly authUrl: string;
  readonly datadir: string;
  readonly args: readonly string[];
  proc: Proc | undefined;
}

export interface NodeHandle extends NodeView {
  readonly role: Role;
  readonly dataDir: string;
  readonly args: readonly string[];
  proc: Proc | undefined;
}

export class World {
  readonly els = new Map<string, ElHandle>();
  readonly nodes = new Map<Role, NodeHandle>();
  private batcher: Proc | undefined;

  private constructor(
    readonly opts: WorldOptions,
    readonly procs: ProcSet,
    readonly l1: DevnetL1,
    readonly proxy: HostileProxy,
  ) {}

  static async start(opts: WorldOptions): Promise<World> {
    mkdirSync(opts.dir, { recursive: true });
    const l1 = await DevnetL1.start({
      chainId: L1_CHAIN_ID,
      blockTimeSec: opts.l1BlockTimeSec,
      slotsInAnEpoch: opts.slotsInAnEpoch,
      chainIds: CHAINS.map((c) => BigInt(c.chainId)),
    });
    let proxy: HostileProxy | undefined;
    const procs = new ProcSet(opts.dir);
    try {
      proxy = await HostileProxy.start(l1.rpcUrl, { oversizedBytes: opts.oversizedBytes, slowMs: opts.slowMs });
      const w = new World(opts, procs, l1, proxy);
      await w.build();
      return w;
    } catch (err) {
      await procs.stopAll();
      await proxy?.stop();
      await l1.anvil.stop();
      throw err;
    }
  }

  private async build(): Promise<void> {
    const { dir } = this.opts;
    const head = await this.l1.anvil.getBlock("latest");
    const l1Genesis = { hash: head.hash, number: Number(BigInt(head.number)) };
    const l2Time = Number(BigInt(head.timestamp));
    const alloc: string[] = [];
    for (let i = 0; i < ANVIL_ACCOUNT_COUNT; i++) alloc.push("--alloc", `${devAccount(i).address}=${10n ** 22n}`);
    const batcherChains: { rollupConfigPath: string; l2RpcUrl: string; accountIndex: number }[] = [];
    const genesisOf: Promise<Hash[]>[] = [];
    for (const c of CHAINS) {
      const chainDir = join(dir, `chain-${c.chainId}`);
      mkdirSync(chainDir, { recursive: true });
      const jwtPath = await writeJwtSecret(chainDir);
      const started: Promise<Hash>[] = [];
      for (const role of ["seq", "ver"] as const) {
        const [http, auth] = [await freePort(), await freePort()];
        const key = `${role}-${c.chainId}`;
        const datadir = join(dir, `el-${key}`);
        const args = [
          devnetBin(),
          "el",
          "--variant",
          c.variant,
          "--chain-id",
          String(c.chainId),
          "--datadir",
          datadir,
          "--http.port",
          String(http),
          "--http.api",
          "eth,net,web3,txpool,debug",
          "--authrpc.port",
          String(auth),
          "--authrpc.jwtsecret",
          jwtPath,
          "--genesis.time",
          String(l2Time),
          ...alloc,
        ];
        const el: ElHandle = {
          key,
          chainId: c.chainId,
          variant: c.variant,
          httpUrl: `http://127.0.0.1:${http}`,
          authUrl: `http://127.0.0.1:${auth}`,
          datadir,
          args,
          proc: undefined,
        };
        this.els.set(key, el);
        started.push(this.startEl(el));
      }
      genesisOf.push(Promise.all(started));
    }
    const genesisHashes = await Promise.all(genesisOf);
    for (const [i, c] of CHAINS.entries()) {
      const [g1, g2] = genesisHashes[i] ?? [];
      if (g1 === undefined || g1 !== g2) throw new Error(`chain ${c.chainId}: the execution clients' genesis differs`);
      const genesisHash = g1;
      const chainDir = join(dir, `chain-${c.chainId}`);
      const rollupConfigPath = join(chainDir, "rollup.json");
      await writeRollupConfig(rollupConfigPath, {
        l2ChainId: c.chainId,
        l1ChainId: L1_CHAIN_ID,
        l1Genesis,
        l2Genesis: { hash: genesisHash, timestamp: l2Time },
        batcher: devAccount(batcherAccountIndex(i)).address,
        blockTimeSec: this.opts.l2BlockTimeSec,
      });
      batcherChains.push({
        rollupConfigPath,
        l2RpcUrl: this.el("seq", c.chainId).httpUrl,
        accountIndex: batcherAccountIndex(i),
      });
    }
    for (const role of ["seq", "ver"] as const) {
      const [rpcPort, metricsPort] = [await freePort(), await freePort()];
      const dataDir = join(dir, `supernode-${role}`);
      const args = [
        BIN,
        "--chains",
        CHAINS.map((c) => c.chainId).join(","),
        "--l1",
        role === "ver" ? this.proxy.url : this.l1.rpcUrl,
        "--l1.beacon",
        role === "ver" ? this.proxy.url : this.l1.beaconUrl,
        "--l1.http-poll-interval",
        "500ms",
        "--data-dir",
        dataDir,
        "--disable-p2p",
        "--rpc.addr",
        "127.0.0.1",
        "--rpc.port",
        String(rpcPort),
        "--rpc.enable-admin",
        "--metrics.enabled",
        "--metrics.addr",
        "127.0.0.1",
        "--metrics.port",
        String(metricsPort),
        "--log.level",
        "info",
        ...(role === "seq" ? ["--vn.all.sequencer.enabled"] : []),
        ...(role === "ver" && this.opts.l1MaxResponseBytes !== undefined
          ? ["--l1.max-response-size", String(this.opts.l1MaxResponseBytes)]
          : []),
      ];
      for (const c of CHAINS) {
        const el = this.el(role, c.chainId);
        args.push(
          `--vn.${c.chainId}.l2`,
          el.authUrl,
          `--vn.${c.chainId}.l2.jwt-secret`,
          join(dir, `chain-${c.chainId}`, "jwt.hex"),
          `--vn.${c.chainId}.rollup.config`,
          join(dir, `chain-${c.chainId}`, "rollup.json"),
          `--vn.${c.chainId}.l2.enginekind`,
          c.variant === "a" ? "variant_a" : "variant_b",
        );
      }
      this.nodes.set(role, { role, rpcUrl: `http://127.0.0.1:${rpcPort}`, dataDir, args, proc: undefined });
    }
    this.batcher = this.procs.start("batcher", [
      "--conditions=supernode-source",
      "--import",
      "tsx",
      join(ROOT, "chaos", "batcher-proc.ts"),
      JSON.stringify({ l1: { rpcUrl: this.l1.rpcUrl, chainId: L1_CHAIN_ID }, chains: batcherChains }),
    ]);
    await Promise.all([this.batcher.firstLine, this.startNode("seq"), this.startNode("ver")]);
  }

  el(role: Role, chainId: number): ElHandle {
    const e = this.els.get(`${role}-${chainId}`);
    if (e === undefined) throw new Error(`no EL ${role}-${chainId}`);
    return e;
  }

  node(role: Role): NodeHandle {
    const n = this.nodes.get(role);
    if (n === undefined) throw new Error(`no node ${role}`);
    return n;
  }

  /** Starts (or restarts) an execution client; `wipe` deletes its chain first. Resolves with its genesis hash. */
  async startEl(el: ElHandle, opts: { wipe?: boolean } = {}): Promise<Hash> {
    if (opts.wipe === true) rmSync(el.datadir, { recursive: true, force: true });
    el.proc = this.procs.start(`el-${el.key}`, el.args);
    const line = await Promise.race([
      el.proc.firstLine,
      el.proc.exit.then(() => {
        throw new Error(`EL ${el.key} exited at start`);
      }),
    ]);
    return (JSON.parse(line) as { genesis: { hash: Hash } }).genesis.hash;
  }

  async kill9El(el: ElHandle): Promise<void> {
    if (el.proc !== undefined) await this.procs.kill9(el.proc);
  }

  /** Starts a supernode; resolves once its RPC server answers (not once its chains run). */
  async startNode(role: Role): Promise<NodeHandle> {
    const n = this.node(role);
    n.proc = this.procs.start(`supernode-${role}`, n.args);
    const proc = n.proc;
    const up = await waitFor(async () => {
      if (proc.exited) return "exited";
      return (await fetch(`${n.rpcUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok;
    }, 60_000);
    if (up === "exited") throw new Error(`supernode ${role} exited at start (see ${role}'s log)`);
    if (up === undefined) throw new Error(`supernode ${role} did not serve within 60 s`);
    return n;
  }

  async kill9Node(role: Role): Promise<void> {
    const p = this.node(role).proc;
    if (p !== undefined) await this.procs.kill9(p);
  }

  /** Starts the sequencer of every chain if it is not active. */
  async ensureSequencing(): Promise<void> {
    const n = this.node("seq");
    for (const c of CHAINS) {
      const active = await rpc<boolean>(`${n.rpcUrl}/${c.chainId}/`, "admin_sequencerActive").catch(() => true);
      if (!active) await rpc(`${n.rpcUrl}/${c.chainId}/`, "admin_startSequencer").catch(() => {});
    }
  }

  async stop(): Promise<void> {
    await this.procs.stopAll();
    await this.proxy.stop();
    await this.l1.anvil.stop();
  }
}
