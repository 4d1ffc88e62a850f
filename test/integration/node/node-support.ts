/**
 * Wiring for node integration tests on the devnet: real L1 client, Engine API client, SafeDB and simulated ELs;
 * `NodePair` starts a one-chain devnet with a sequencing node (on the devnet's EL) and a verifying node (on its
 * own EL), and the waits and comparisons the tests share.
 *
 * Debugging a failing run: `NODE_TEST_LOG=/tmp/trace.jsonl npx vitest run test/integration/node/<file>` appends
 * every log line of the devnet, the L1 client and both nodes (all levels) to that file as JSON.
 */
import { appendFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Logger, silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { BatchType } from "supernode-devnet/batcher/channel-builder";
import type { DataMode } from "supernode-devnet/batcher/batcher";
import { type Devnet, type DevnetChain, startDevnet } from "supernode-devnet";
import { forksFromRollupConfig, SimulatedExecutionClient } from "supernode-devnet/el";
import { ANVIL_ACCOUNT_COUNT, devAccount } from "supernode-devnet/l1/dev-accounts";
import { warmUpAnvilKzg } from "supernode-devnet/l1/kzg-warm-up";
import { devnetKzg } from "supernode-devnet/l1/l1-client";
import { BeaconClient } from "../../../src/io/beacon/beacon-client.js";
import { SafeDB } from "../../../src/io/db/safe-db.js";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import { L1Client } from "../../../src/io/l1/l1-client.js";
import type { ChainNode, ChainNodeConfig } from "../../../src/node/chain-node.js";
import { createChainNode } from "../../../src/node/create.js";
import type { BlobSource } from "../../../src/node/ports.js";
import { fileSequencerStateStore } from "../../../src/io/sequencer-state-file.js";

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
  readonly engine: EngineRpcClient;
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
  /** Health thresholds of the node (node/health.ts). */
  health?: ChainNodeConfig["health"];
  /** Engine API request timeout (default the client's 10 s). */
  engineTimeoutMs?: number;
}): Promise<TestNode> {
  const cfg: ChainNodeConfig = {
    rollup: opts.chain.rollupConfig,
    engineKind: opts.chain.variant === "a" ? "variant_a" : "variant_b",
    syncMode: "consensus-layer",
    sequencer: { enabled: opts.sequencer, stopped: false, l1Confs: 0, maxSafeLag: 0, recoverMode: false },
    verifierL1Confs: 0,
    idlePollMs: 100,
    ...(opts.health === undefined ? {} : { health: opts.health }),
  };
  const logger = opts.logger ?? silentLogger;
  const engine = EngineRpcClient.create(
    {
      url: opts.authUrl,
      jwtSecret: opts.chain.jwtSecret,
      kind: cfg.engineKind,
      rollupConfig: cfg.rollup,
      ...(opts.engineTimeoutMs === undefined ? {} : { timeoutMs: opts.engineTimeoutMs }),
    },
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

// ------------------------------------------------------------------------------------------------------------
// Waiting and logs

/** Polls `cond` every 100 ms until it holds; throws after `timeoutMs` naming `what`. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what = "condition",
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One line recorded by `recordingLogger` (ms since the logger was made). */
export interface LogLine {
  readonly msg: string;
  readonly obj: Record<string, unknown>;
  readonly t: number;
}

/** A logger that keeps every line (all levels, child loggers included) in `lines`. */
export function recordingLogger(lines: LogLine[]): Logger {
  const t0 = Date.now();
  const fn = (a: object | string, b?: string): void => {
    if (typeof a === "string") lines.push({ msg: a, obj: {}, t: Date.now() - t0 });
    else lines.push({ msg: b ?? "", obj: a as Record<string, unknown>, t: Date.now() - t0 });
  };
  const logger: Logger = { trace: fn, debug: fn, info: fn, warn: fn, error: fn, child: () => logger };
  return logger;
}

/** The block number of a logged head (logged either as a number or as `{ number, hash }`). */
export function loggedNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "object" && v !== null && typeof (v as { number?: unknown }).number === "number") {
    return (v as { number: number }).number;
  }
  throw new Error(`not a logged block number: ${JSON.stringify(v)}`);
}

type Level = "trace" | "debug" | "info" | "warn" | "error";

/**
 * With NODE_TEST_LOG=<file>, a logger that appends every line (all levels) to that file as JSON, tagged `name`,
 * and passes it on to `also`; without it, `also` (or a silent logger).
 */
export function traceLogger(name: string, also?: Logger): Logger {
  const file = process.env.NODE_TEST_LOG;
  if (file === undefined || file === "") return also ?? silentLogger;
  const json = (v: unknown): string => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
  const mk = (bindings: Record<string, unknown>, inner: Logger | undefined): Logger => {
    const at =
      (level: Level) =>
      (a: object | string, b?: string): void => {
        const line = typeof a === "string" ? { msg: a } : { ...a, msg: b ?? "" };
        appendFileSync(file, `${json({ t: Date.now(), n: name, level, ...bindings, ...line })}\n`);
        if (inner === undefined) return;
        if (typeof a === "string") inner[level](a);
        else inner[level](a, b);
      };
    return {
      trace: at("trace"),
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      child: (more) => mk({ ...bindings, ...more }, inner?.child(more)),
    };
  };
  return mk({}, also);
}

// ------------------------------------------------------------------------------------------------------------
// A sequencing and a verifying node of a devnet chain

export interface NodePairSpec {
  readonly chainId: number;
  readonly variant: "a" | "b";
  readonly dataMode: DataMode;
  readonly batchType: BatchType;
  /** Extra logger of the verifying node (e.g. a `recordingLogger`). */
  readonly verifierLogger?: Logger;
}

export interface NodeDevnetOptions {
  /** Anvil slots per epoch (L1 finalized = head − 2·slots); default 2. */
  readonly l1SlotsInAnEpoch?: number;
  /** Start the devnet's batchers (default true). */
  readonly startBatchers?: boolean;
}

/** What the pairs of one devnet share; the last pair closed stops it. */
interface Shared {
  readonly dir: string;
  readonly devnet: Devnet;
  readonly l1: L1Client;
  readonly beacon: BeaconClient;
  open: number;
}

/**
 * Loads the KZG trusted setup in anvil and in this process (for the batcher's blob transactions), both at once,
 * before anything runs: each load takes seconds (tens on a loaded machine), anvil answers nothing meanwhile and
 * this process's load blocks its event loop.
 */
async function loadKzg(devnet: Devnet): Promise<void> {
  const anvil = warmUpAnvilKzg(devnet.l1Node.anvil);
  await new Promise((r) => setTimeout(r, 20)); // let the request go out before the event loop blocks
  devnetKzg();
  await anvil;
}

export class NodePair {
  private constructor(
    private readonly shared: Shared,
    readonly chain: DevnetChain,
    readonly verifierEl: SimulatedExecutionClient,
    public seq: TestNode,
    public ver: TestNode,
    private readonly verifierDir: string,
  ) {}

  get devnet(): Devnet {
    return this.shared.devnet;
  }

  get l1(): L1Client {
    return this.shared.l1;
  }

  get beacon(): BeaconClient {
    return this.shared.beacon;
  }

  /** Starts a one-chain devnet (1 s L1 and L2 blocks, 200 ms batcher poll) and both nodes. */
  static async start(spec: NodePairSpec & NodeDevnetOptions): Promise<NodePair> {
    const [pair] = await NodePair.startAll([spec], spec);
    return pair as NodePair;
  }

  /** One devnet (one anvil) with a chain per spec, and a sequencing and a verifying node for each chain. */
  static async startAll(specs: readonly NodePairSpec[], opts: NodeDevnetOptions = {}): Promise<NodePair[]> {
    const dir = await mkdtemp(join(tmpdir(), `supernode-node-${specs.map((s) => s.chainId).join("-")}-`));
    const started: { close(): Promise<void> }[] = [];
    try {
      const devnet = await startDevnet(
        {
          dir,
          l1BlockTimeSec: 1,
          l2BlockTimeSec: 1,
          batcherPollIntervalMs: 200,
          ...(opts.l1SlotsInAnEpoch === undefined ? {} : { l1SlotsInAnEpoch: opts.l1SlotsInAnEpoch }),
          chains: specs.map((s) => ({
            chainId: s.chainId,
            variant: s.variant,
            dataMode: s.dataMode,
            batchType: s.batchType,
          })),
        },
        { logger: traceLogger("devnet") },
      );
      started.push({ close: () => devnet.stop() });
      if (specs.some((s) => s.dataMode === "blobs")) await loadKzg(devnet);
      const l1 = sharedL1(devnet, traceLogger("l1"));
      started.push({ close: () => l1.stop() });
      const beacon = BeaconClient.create(
        { url: devnet.l1.beaconUrl, blockIdMode: "el" },
        { clock: systemClock, logger: traceLogger("beacon") },
      );
      const shared: Shared = { dir, devnet, l1, beacon, open: specs.length };
      const pairs: NodePair[] = [];
      for (const spec of specs) {
        const chain = devnet.chain(spec.chainId);
        const verifierEl = await startVerifierEl(devnet, chain);
        started.push({ close: () => verifierEl.stop() });
        const seq = await startNode({
          chain,
          l1,
          blobs: beacon,
          authUrl: chain.el.authUrl,
          dataDir: join(dir, `${spec.chainId}`, "seq"),
          sequencer: true,
          logger: traceLogger(`seq-${spec.chainId}`),
        });
        started.push(seq);
        const verifierDir = join(dir, `${spec.chainId}`, "ver");
        const ver = await startNode({
          chain,
          l1,
          blobs: beacon,
          authUrl: verifierEl.authUrl,
          dataDir: verifierDir,
          sequencer: false,
          logger: traceLogger(`ver-${spec.chainId}`, spec.verifierLogger),
        });
        started.push(ver);
        pairs.push(new NodePair(shared, chain, verifierEl, seq, ver, verifierDir));
      }
      if (opts.startBatchers !== false) devnet.startBatchers();
      return pairs;
    } catch (err) {
      for (const s of started.reverse()) await s.close().catch(() => {});
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Stops the verifying node and starts it again on the same EL and data directory. */
  async restartVerifier(logger?: Logger): Promise<TestNode> {
    await this.ver.close();
    this.ver = await startNode({
      chain: this.chain,
      l1: this.l1,
      blobs: this.beacon,
      authUrl: this.verifierEl.authUrl,
      dataDir: this.verifierDir,
      sequencer: false,
      logger: traceLogger(`ver-${this.chain.chainId}`, logger),
    });
    return this.ver;
  }

  /** The verifier's EL serves block `n` with the sequencer's hash. */
  async sameAsSequencer(n: number): Promise<boolean> {
    const a = await this.ver.engine.l2BlockRefByNumber(n);
    const b = await this.seq.engine.l2BlockRefByNumber(n);
    return a !== undefined && a.hash === b?.hash;
  }

  /** The numbers in 0..n at which the verifier's EL does not serve the sequencer's block. */
  async differingBlocks(n: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i <= n; i++) if (!(await this.sameAsSequencer(i))) out.push(i);
    return out;
  }

  /**
   * Waits until the verifier's safe head is at least `min` and the verifier's EL serves that block by number with
   * the sequencer's hash (a node reports a safe head just before its forkchoice update reaches the EL); returns
   * that block number.
   */
  async safeMatchingSequencer(min: number, timeoutMs: number): Promise<number> {
    let n = -1;
    await waitFor(
      async () => {
        const safe = this.ver.node.syncStatus().safe_l2;
        if (safe.number < min || !(await this.sameAsSequencer(safe.number))) return false;
        n = safe.number;
        return true;
      },
      timeoutMs,
      `the verifier's safe head ≥ ${min} on the sequencer's chain (chain ${this.chain.chainId})`,
    );
    return n;
  }

  /** Waits until the sequencer's own safe head (consolidated against L1) is at least `min`. */
  async sequencerSafe(min: number, timeoutMs: number): Promise<void> {
    await waitFor(
      () => this.seq.node.syncStatus().safe_l2.number >= min,
      timeoutMs,
      `the sequencer's safe head ≥ ${min} (chain ${this.chain.chainId})`,
    );
  }

  /** Stops both nodes and the verifier's EL; the last pair of a devnet also stops the devnet. */
  async close(): Promise<void> {
    traceLogger("test").info(
      {
        chain: this.chain.chainId,
        seq: this.seq.node.syncStatus(),
        ver: this.ver.node.syncStatus(),
        batcher: this.chain.batcher.stats(),
        txs: this.chain.batcher.submitted,
      },
      "closing",
    );
    await this.seq.close().catch(() => {});
    await this.ver.close().catch(() => {});
    await this.verifierEl.stop().catch(() => {});
    if (--this.shared.open > 0) return;
    await this.shared.l1.stop();
    await this.shared.devnet.stop();
    await rm(this.shared.dir, { recursive: true, force: true });
  }
}
