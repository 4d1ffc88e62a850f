/**
 * Derivation catch-up speed of one virtual node from L1 data, with the simulated execution client over the real
 * JWT-authenticated Engine API (EngineClient) on loopback.
 *
 * Setup: a sequencing node builds N L2 blocks on an in-memory L1 (origins every 12 s), each with 12 user
 * transactions of every signed type (bench/derivation/user-txs.ts, OP Mainnet density) sent to its EL's pool
 * before the block is due; their batches (singular, zlib channels, ≤120 kB frames, signed batcher transactions to
 * the inbox) are appended to that L1. Then:
 * - `build_blocks_per_s`: a verifying node with a fresh simulated EL derives all N blocks (attributes → build →
 *   insert) from L1; its safe head must be the sequencer's block N (same hash);
 * - `consolidate_blocks_per_s`: a node on the sequencer's EL (which already has the blocks, unsafe) derives them
 *   again, consolidating each against the existing block: same hash at N and no block built (no getPayload call).
 *
 * CPU figures: CPU time (`process.cpuUsage`: every thread of the bench process — the node's main thread and V8's
 * background threads for GC and the optimizing compiler; the EL runs in its own process and is reported apart)
 * per block while the node's safe head moves from block N/3 to block N, both bounds taken in the SafeDB callback
 * (the first time the safe head reaches them). The node is the compiled `dist/` by default (as operators run it;
 * DERIVATION_BENCH_CODE=src runs the sources through tsx; bench/derivation/node-code.ts).
 * - `cpu_us_per_built_block` (goal ≤ 300 µs): one build run; `…_whole`: the whole phase, the restart's walk back
 *   from the unsafe head included.
 * - `cpu_us_per_consolidated_block` (goal ≤ 100 µs): warm code, as in a long-running supernode (whose chains are
 *   many instances of the same node code in one process). The consolidate phase runs DERIVATION_BENCH_WARMUP
 *   (default 12) + DERIVATION_BENCH_REPEAT (default 24) times in this process, a fresh node each time on the same EL.
 *   The warm-up runs are not counted: V8 keeps compiling, deoptimising ("wrong map", "wrong call target" as each new
 *   node brings new objects and closures) and recompiling the path for several runs (~5,000 blocks) before its code
 *   is stable; their figures are printed, and `…_cold` is the process's first run. The figure is the total CPU of the
 *   measured runs' windows divided by their total blocks (24 × 400 blocks, ≈ 1 s of CPU: one compilation or major
 *   GC does not swing it); the runs' spread (min / median / max), CPU per thread and Engine API calls per block in
 *   the windows are printed on stderr. `…_whole`: the measured runs' whole phases (restart walk included) over their
 *   N blocks each.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { privateKeyToAccount } from "viem/accounts";
import { bytesToHex, hexToBytes } from "../src/core/codec/hex.js";
import { silentLogger } from "../src/core/logger.js";
import { systemClock, type Clock } from "../src/core/time/clock.js";
import type { BlockId, L1BlockRef } from "../src/core/types/block-ref.js";
import { type Hash, type Hex, ZERO_HASH } from "../src/core/types/primitives.js";
import { forksFromRollupConfig, SimulatedExecutionClient } from "../src/devnet/el/index.js";
import type { EngineClient } from "../src/io/engine/engine-client.js";
import type { ChainNode, ChainNodeConfig } from "../src/node/chain-node.js";
import type { BlockLabel, L1BlockInfo, L1Source, L1Transaction, SafeDbPort } from "../src/node/ports.js";
import { SINGULAR_BATCH_TYPE } from "../src/protocol/derive/batch.js";
import { encodeChannel, splitIntoFrames } from "../src/protocol/derive/channel-out.js";
import { encodeFrames } from "../src/protocol/derive/frame.js";
import type { RollupConfig } from "../src/protocol/rollup-config.js";
import { loadNodeCode, type NodeCode } from "./derivation/node-code.js";
import { benchHash, benchRollupConfig, GENESIS_TIME } from "./derivation/rollup-config.js";
import { TXS_PER_BLOCK, UserTxSource, sendRawBatch, userTxAlloc, userTxAllocRecord } from "./derivation/user-txs.js";
import { type Bench, note } from "./harness.js";

// Blocks per run (env DERIVATION_BENCH_N); 12 user transactions each. 600 blocks (7,200 transactions) amortise
// the fresh EL process's JIT warm-up and keep the run near two minutes.
const N = Number(process.env.DERIVATION_BENCH_N ?? 600);
const L1_BLOCK_TIME = 12;
const SECRET = new Uint8Array(32).fill(7);
const BATCHER = privateKeyToAccount(`0x${"ab".repeat(32)}`);

const h = benchHash;

/** The node under test: dist/ or the sources (set first thing in `run`). */
let code: NodeCode;

interface MemBlock {
  ref: L1BlockRef;
  info: L1BlockInfo;
  txs: L1Transaction[];
}

class MemL1 implements L1Source {
  readonly blocks: MemBlock[] = [];
  private readonly byHash = new Map<Hash, MemBlock>();

  constructor() {
    this.push([]);
  }

  push(txs: L1Transaction[]): L1BlockRef {
    const parent = this.blocks[this.blocks.length - 1];
    const number = parent === undefined ? 0 : parent.ref.number + 1;
    const ref: L1BlockRef = {
      hash: h(`l1-${number}`),
      number,
      parentHash: parent?.ref.hash ?? ZERO_HASH,
      timestamp: GENESIS_TIME + number * L1_BLOCK_TIME,
    };
    // Headers are immutable: computed once and handed out as the same object, as the L1 client's cache does.
    const info = { ...ref, baseFeePerGas: 1_000_000_000n, mixHash: h(`mix-${number}`), excessBlobGas: 0n };
    const b = { ref, info, txs };
    this.blocks.push(b);
    this.byHash.set(ref.hash, b);
    return ref;
  }

  private info(b: MemBlock): L1BlockInfo {
    return b.info;
  }
  private get(hash: Hash): MemBlock {
    const b = this.byHash.get(hash);
    if (b === undefined) throw new code.TemporaryError("NOT_FOUND", "no such L1 block");
    return b;
  }
  getLabel(label: BlockLabel): L1BlockRef | undefined {
    const head = this.blocks[this.blocks.length - 1]!.ref;
    return label === "latest" ? head : this.blocks[0]!.ref;
  }
  async l1BlockRefByLabel(label: BlockLabel) {
    return this.getLabel(label)!;
  }
  async l1BlockRefByNumber(n: number) {
    const b = this.blocks[n];
    if (b === undefined) throw new code.TemporaryError("NOT_FOUND", "no such L1 block");
    return b.ref;
  }
  async l1BlockRefByHash(hash: Hash) {
    return this.get(hash).ref;
  }
  async infoByHash(hash: Hash) {
    return this.info(this.get(hash));
  }
  async infoAndTxsByHash(hash: Hash) {
    const b = this.get(hash);
    return { info: this.info(b), txs: b.txs };
  }
  async fetchReceipts(hash: Hash) {
    return { info: this.info(this.get(hash)), receipts: [] };
  }
}

/** What the process had used when the safe head first reached a block: the bounds of a CPU window. */
interface Mark {
  readonly cpu: number;
  readonly threads: Map<string, number>;
  readonly calls: Map<string, number>;
}

/**
 * A window bound. Reading the threads' CPU from /proc costs the bench a fraction of a millisecond: a window's start
 * reads this process's CPU time last and its end reads it first, so that cost stays outside every window.
 */
const mark = (end: boolean): Mark => {
  if (end) return { cpu: cpuNow(), threads: threadCpuSec(), calls: new Map(calls) };
  const threads = threadCpuSec();
  const c = new Map(calls);
  return { threads, calls: c, cpu: cpuNow() };
};

class MemSafeDb implements SafeDbPort {
  last: { l1Block: BlockId; safeHead: BlockId } | undefined;
  /** Taken when the safe head first reached each wanted block: exact window bounds. */
  readonly marks = new Map<number, Mark>();
  wanted: readonly number[] = [];
  /** Called on every safe-head entry (the bench waits on it instead of polling). */
  onUpdate: ((safe: number) => void) | undefined;
  async safeHeadUpdated(safeHead: BlockId, l1Block: BlockId) {
    this.last = { safeHead, l1Block };
    for (const n of this.wanted) {
      if (safeHead.number >= n && !this.marks.has(n))
        this.marks.set(n, mark(n === this.wanted[this.wanted.length - 1]));
    }
    this.onUpdate?.(safeHead.number);
  }
  async safeHeadAtL1Block() {
    return this.last;
  }
  async truncate() {}
}

function rollupConfig(genesisHash: Hash): RollupConfig {
  return benchRollupConfig(genesisHash, BATCHER.address.toLowerCase() as Hex);
}

async function startEl(cfg: RollupConfig | undefined): Promise<SimulatedExecutionClient> {
  return SimulatedExecutionClient.start(
    {
      variant: "a",
      chainId: 901n,
      genesis: {
        timestamp: GENESIS_TIME,
        gasLimit: 30_000_000n,
        alloc: userTxAllocRecord(),
        forks: cfg === undefined ? forksFromRollupConfig(rollupConfig(ZERO_HASH)) : forksFromRollupConfig(cfg),
      },
      http: { port: 0, api: ["eth"] },
      authrpc: { port: 0, jwtSecret: SECRET },
    },
    { logger: silentLogger, clock: systemClock },
  );
}

interface ElHandle {
  readonly authUrl: string;
  readonly httpUrl: string;
  readonly genesisHash: Hash;
  /** CPU seconds the EL's own process has used (undefined when it runs in this process). */
  cpuSec(): number | undefined;
  stop(): Promise<void>;
}

const inProcess = (el: SimulatedExecutionClient): ElHandle => ({
  authUrl: el.authUrl,
  httpUrl: el.httpUrl,
  genesisHash: el.genesisHash,
  cpuSec: () => undefined,
  stop: () => el.stop(),
});

/** utime + stime of a Linux process from /proc (clock ticks at the usual 100 Hz); undefined elsewhere. */
function procCpuSec(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds per thread of this process by thread name (Linux /proc; empty elsewhere). */
function threadCpuSec(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync("/proc/self/task")) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const key = tid === String(process.pid) ? "main" : name;
      out.set(key, (out.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
    }
  } catch {
    // not Linux
  }
  return out;
}

/** Voluntary context switches of this process's main thread (each a sleep of the event loop, then a wake-up). */
function mainThreadSleeps(): number {
  try {
    const m = /voluntary_ctxt_switches:\s*(\d+)/.exec(readFileSync(`/proc/self/task/${process.pid}/status`, "utf8"));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * The simulated EL as its own process (`supernode devnet el`), as an execution client runs in production: the
 * node and the EL then use separate cores. Set DERIVATION_BENCH_INPROCESS=1 to run it in this process instead.
 */
async function startElProcess(): Promise<ElHandle> {
  const dir = mkdtempSync(join(tmpdir(), "derivation-bench-"));
  const secretPath = join(dir, "jwt.hex");
  writeFileSync(secretPath, `0x${Buffer.from(SECRET).toString("hex")}\n`, { mode: 0o600 });
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  // DERIVATION_BENCH_EL_NODE_ARGS: extra node flags for the EL process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
  const nodeArgs = (process.env.DERIVATION_BENCH_EL_NODE_ARGS ?? "").split(" ").filter((a) => a !== "");
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      join(root, "bin", "supernode.js"),
      "devnet",
      "el",
      "--variant",
      "a",
      "--chain-id",
      "901",
      "--http.port",
      "0",
      "--authrpc.port",
      "0",
      "--authrpc.jwtsecret",
      secretPath,
      "--genesis.time",
      String(GENESIS_TIME),
      "--forks",
      "regolith=0,canyon=0,delta=0,ecotone=0,fjord=0,granite=0,holocene=0,isthmus=0",
      ...userTxAlloc().flatMap((a) => ["--alloc", a]),
    ],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`devnet el exited (${code})`)));
  });
  const info = JSON.parse(line) as { authrpc: string; http: string; genesis: { hash: Hash } };
  return {
    authUrl: info.authrpc,
    httpUrl: info.http,
    genesisHash: info.genesis.hash,
    cpuSec: () => procCpuSec(child.pid),
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startEl2(cfg: RollupConfig | undefined): Promise<ElHandle> {
  if (process.env.DERIVATION_BENCH_INPROCESS === "1") return inProcess(await startEl(cfg));
  return startElProcess();
}

function nodeConfig(cfg: RollupConfig, sequencer: boolean): ChainNodeConfig {
  // The sequencer is paced block by block (below): poll often so that pacing costs little wall time.
  return {
    rollup: cfg,
    engineKind: "variant_a",
    syncMode: "consensus-layer",
    sequencer: { enabled: sequencer, stopped: false, l1Confs: 0, maxSafeLag: 0, recoverMode: false },
    verifierL1Confs: 0,
    idlePollMs: sequencer ? 2 : 20,
    maxStepsPerTick: 4096,
  };
}

async function startNode(cfg: RollupConfig, l1: L1Source, el: ElHandle, sequencer: boolean, clock: Clock) {
  const safeDb = new MemSafeDb();
  safeDb.wanted = [1, Math.floor(N / 3), N];
  const engine = code.EngineClient.create(
    { url: el.authUrl, jwtSecret: SECRET, kind: "variant_a", rollupConfig: cfg },
    {
      clock: code.systemClock,
      logger: code.silentLogger,
      onRequest: (e) => calls.set(e.method, (calls.get(e.method) ?? 0) + 1),
    },
  );
  const node = await code.createChainNode(nodeConfig(cfg, sequencer), {
    l1,
    engine,
    safeDb,
    clock,
    logger: code.silentLogger,
  });
  await node.start();
  return { node, engine, safeDb };
}

async function until(cond: () => boolean, timeoutMs: number, pollMs = 5): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("derivation bench: timed out");
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** One timed phase: its wall time, and CPU of this process over the whole phase and over the steady window. */
interface Phase {
  readonly sec: number;
  /** CPU seconds of this process, the whole phase (the restart's walk back from the unsafe head included). */
  readonly wholeSec: number;
  /** CPU seconds from the safe head's first reaching block n/3 to its reaching n, and that window's blocks. */
  readonly steadySec: number;
  readonly steadyBlocks: number;
  /** CPU seconds per thread (main, V8's background threads by name) and engine calls in the steady window. */
  readonly steadyThreads: Map<string, number>;
  readonly steadyCalls: Map<string, number>;
  /** One line for stderr. */
  readonly line: string;
}

const diff = (a: Map<string, number>, b: Map<string, number>): Map<string, number> =>
  new Map([...a].map(([k, v]) => [k, v - (b.get(k) ?? 0)] as const).filter(([, v]) => v > 0));

/** Adds `b` into `a`. */
const addInto = (a: Map<string, number>, b: Map<string, number>): void => {
  for (const [k, v] of b) a.set(k, (a.get(k) ?? 0) + v);
};

const perBlock = (m: Map<string, number>, blocks: number, scale: number, unit: string): string =>
  [...m].map(([k, v]) => `${k} ${Math.round((v * scale) / blocks)}${unit}`).join(", ");

/**
 * Runs until the node's safe head reaches `n` and measures this process's CPU (the node; plus the EL when it runs
 * in process) and the EL process's. The steady window is bounded in the SafeDB callback: exact blocks, no poll
 * (a timer in this process would wake the node's thread during the window too, and each wake-up costs CPU).
 */
async function timeToSafe(node: ChainNode, n: number, el: ElHandle, safeDb: MemSafeDb): Promise<Phase> {
  const prof = await startProfile();
  calls.clear();
  const t0 = performance.now();
  const start = mark(false);
  const u0 = process.cpuUsage();
  const s0 = mainThreadSleeps();
  const e0 = el.cpuSec();
  let sleeps = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("derivation bench: timed out")), 300_000);
    safeDb.onUpdate = (safe) => {
      if (safe < n) return;
      sleeps = (mainThreadSleeps() - s0) / n;
      safeDb.onUpdate = undefined;
      clearTimeout(timer);
      resolve();
    };
  });
  const sec = (performance.now() - t0) / 1000;
  const end = mark(true);
  const u1 = process.cpuUsage(u0);
  const e1 = el.cpuSec();
  // The reported head (the forkchoice state the EL acknowledged) follows once the node has flushed it.
  await until(() => node.syncStatus().safe_l2.number >= n, 60_000, 20);
  await prof?.();
  const from = Math.floor(n / 3);
  const first = safeDb.marks.get(1);
  const lo = safeDb.marks.get(from) ?? start;
  const hi = safeDb.marks.get(n) ?? end;
  const steadyBlocks = n - (safeDb.marks.has(from) ? from : 0);
  const steadySec = hi.cpu - lo.cpu;
  const wholeSec = end.cpu - start.cpu;
  const us = (sec: number, blocks = n) => `${Math.round((sec * 1e6) / blocks)} µs`;
  const elCpu = e0 === undefined || e1 === undefined ? "in process" : us(e1 - e0);
  const fromFirst = first === undefined ? "" : `; ${us(hi.cpu - first.cpu, n - 1)} from block 1`;
  const steadyThreads = diff(hi.threads, lo.threads);
  const line =
    `node ${us(steadySec, steadyBlocks)} from block ${from} to ${n} (threads: ${perBlock(steadyThreads, steadyBlocks, 1e6, " µs")}), ` +
    `${us(wholeSec)} whole phase (user ${us(u1.user / 1e6)}, system ${us(u1.system / 1e6)}${fromFirst}; ` +
    `main-thread sleeps ${sleeps.toFixed(1)}), EL ${elCpu}; engine calls whole phase: ` +
    `${[...calls].map(([m, k]) => `${m} ${k}`).join(", ")}`;
  return {
    sec,
    wholeSec,
    steadySec,
    steadyBlocks,
    steadyThreads,
    steadyCalls: diff(hi.calls, lo.calls),
    line,
  };
}

let profiles = 0;
/** JSON-RPC calls to the EL by method during a timed phase (a batch counts each of its calls). */
const calls = new Map<string, number>();

/**
 * DERIVATION_BENCH_PROFILE=<dir>: a V8 CPU profile of this process for each timed phase alone (without the setup),
 * written to <dir>/derivation-<k>.cpuprofile.
 */
async function startProfile(): Promise<(() => Promise<void>) | undefined> {
  const dir = process.env.DERIVATION_BENCH_PROFILE;
  if (dir === undefined || dir === "") return undefined;
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  // 100 µs between samples (V8's default is 1 ms): a phase of a few hundred ms needs the finer grain.
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `derivation-${profiles++}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

const bench: Bench = {
  name: "derivation",
  async run(report) {
    code = await loadNodeCode();
    note(`node under test: ${code.kind === "dist" ? "compiled dist/" : "sources through tsx"} (DERIVATION_BENCH_CODE)`);
    const probe = await startEl2(undefined);
    const cfg = rollupConfig(probe.genesisHash);
    await probe.stop();
    const l1 = new MemL1();
    const epochs = Math.ceil((N * cfg.block_time) / L1_BLOCK_TIME) + 2;
    for (let i = 0; i < epochs; i++) l1.push([]);

    // 1. Sequence N blocks, one at a time: the block's 12 user transactions enter the EL's pool, then the clock
    //    moves to the block's time and the sequencer seals it.
    const seqEl = await startEl2(cfg);
    let allowed = 0;
    const paced: Clock = {
      nowMs: () => (GENESIS_TIME + cfg.block_time * allowed) * 1000,
      sleep: code.systemClock.sleep,
    };
    const seq = await startNode(cfg, l1, seqEl, true, paced);
    const tSeq = performance.now();
    const userTxs = new UserTxSource();
    for (let n = 1; n <= N; n++) {
      await sendRawBatch(seqEl.httpUrl, await userTxs.nextBlock());
      allowed = n;
      await until(() => seq.node.syncStatus().unsafe_l2.number >= n, 60_000);
    }
    await seq.node.stop();
    note(`sequenced ${N} blocks in ${((performance.now() - tSeq) / 1000).toFixed(2)} s`);

    // 2. Batches → channels → frames → signed batcher transactions in new L1 blocks.
    const PER_CHANNEL = 200;
    let nonce = 0;
    let userTxCount = 0;
    for (let start = 1; start <= N; start += PER_CHANNEL) {
      const batches = [];
      for (let n = start; n < Math.min(N + 1, start + PER_CHANNEL); n++) {
        const env = (await seq.engine.payloadByNumber(n))!;
        const ref = (await seq.engine.l2BlockRefByNumber(n))!;
        const p = env.executionPayload;
        const user = p.transactions.filter((t) => !t.startsWith("0x7e"));
        if (user.length !== TXS_PER_BLOCK)
          throw new Error(`derivation bench: block ${n} holds ${user.length} user transactions, not ${TXS_PER_BLOCK}`);
        userTxCount += user.length;
        batches.push({
          type: SINGULAR_BATCH_TYPE,
          batch: {
            parentHash: p.parentHash,
            epochNum: ref.l1origin.number,
            epochHash: ref.l1origin.hash,
            timestamp: p.timestamp,
            transactions: user.map((t) => hexToBytes(t)),
          },
        } as const);
      }
      const data = encodeChannel(batches, { compression: "zlib" });
      const id = bytesToHex(keccak_256(new TextEncoder().encode(`ch-${start}`)).subarray(0, 16));
      const txs: L1Transaction[] = [];
      for (const frame of splitIntoFrames(id, data, 120_000)) {
        const input = bytesToHex(encodeFrames([frame]));
        const raw = await BATCHER.signTransaction({
          chainId: 900,
          type: "eip1559",
          nonce: nonce++,
          to: cfg.batch_inbox_address,
          data: input,
          gas: 1_000_000n,
          maxFeePerGas: 2_000_000_000n,
          maxPriorityFeePerGas: 1n,
        });
        txs.push({
          hash: bytesToHex(keccak_256(hexToBytes(raw))),
          type: 2,
          from: BATCHER.address.toLowerCase() as Hex,
          to: cfg.batch_inbox_address,
          input,
          raw,
        });
      }
      l1.push(txs);
    }
    note(`L1: ${l1.blocks.length} blocks, ${userTxCount} user transactions in ${N} L2 blocks (${nonce} batcher txs)`);
    report({ figure: "user_txs_per_block", value: userTxCount / N, unit: "txs" });

    // DERIVATION_BENCH_PHASES: "build", "consolidate" or both (default), e.g. to profile one path alone.
    const phases = (process.env.DERIVATION_BENCH_PHASES ?? "build,consolidate").split(",");

    // 3. Build path: a verifier with a fresh EL.
    if (phases.includes("build")) await buildPhase(cfg, l1, seq.engine, report);

    // 4. Consolidation path: re-derive on the sequencer's EL, which already has every block.
    if (phases.includes("consolidate")) await consolidatePhases(cfg, l1, seqEl, seq.engine, report);
    await seqEl.stop();
  },
};

type Report = Parameters<Bench["run"]>[0];

/**
 * The consolidate phase, warm-up runs then measured runs, a fresh node each time on the same EL (see the header):
 * the figure is Σ CPU / Σ blocks over the measured runs' steady windows.
 */
async function consolidatePhases(
  cfg: RollupConfig,
  l1: MemL1,
  seqEl: ElHandle,
  seqEngine: EngineClient,
  report: Report,
) {
  const warmup = Math.max(0, Number(process.env.DERIVATION_BENCH_WARMUP ?? 12));
  const repeat = Math.max(1, Number(process.env.DERIVATION_BENCH_REPEAT ?? 24));
  const usOf = (r: Phase) => (r.steadySec * 1e6) / r.steadyBlocks;
  const cold: Phase[] = [];
  for (let k = 0; k < warmup; k++) {
    const r = await consolidatePhase(cfg, l1, seqEl, seqEngine);
    if (k === 0) note(`consolidate, first run (cold JIT): ${r.line}`);
    cold.push(r);
  }
  if (cold.length > 0)
    note(`consolidate warm-up runs, µs per block: ${cold.map((r) => Math.round(usOf(r))).join(" ")}`);
  const runs: Phase[] = [];
  for (let k = 0; k < repeat; k++) {
    const r = await consolidatePhase(cfg, l1, seqEl, seqEngine);
    if (k === repeat - 1) note(`consolidate, last run: ${r.line}`);
    runs.push(r);
  }
  const sum = (f: (r: Phase) => number) => runs.reduce((a, r) => a + f(r), 0);
  const blocks = sum((r) => r.steadyBlocks);
  const cpu = sum((r) => r.steadySec);
  const threads = new Map<string, number>();
  const engineCalls = new Map<string, number>();
  for (const r of runs) {
    addInto(threads, r.steadyThreads);
    addInto(engineCalls, r.steadyCalls);
  }
  const each = runs.map(usOf).sort((a, b) => a - b);
  const q = (p: number) => Math.round(each[Math.round(p * (each.length - 1))]!);
  const order = runs.map((r) => Math.round(usOf(r))).join(" ");
  note(
    `consolidate, ${repeat} measured runs (${blocks} blocks, ${cpu.toFixed(2)} s CPU): µs per block by run ${order}; min ${q(0)} / median ` +
      `${q(0.5)} / max ${q(1)} µs per block; threads ${perBlock(threads, blocks, 1e6, " µs")}; engine calls per ` +
      `block ${perBlock(engineCalls, blocks, 1, "")}`,
  );
  report({ figure: "consolidate_blocks_per_s", value: Math.round((N * repeat) / sum((r) => r.sec)), unit: "blocks/s" });
  reportCpu(report, "cpu_us_per_consolidated_block", (cpu * 1e6) / blocks, 100);
  report({
    figure: "cpu_us_per_consolidated_block_whole",
    value: Math.round((sum((r) => r.wholeSec) * 1e6) / (N * repeat)),
    unit: "µs",
  });
  const first = cold[0] ?? runs[0]!;
  report({ figure: "cpu_us_per_consolidated_block_cold", value: Math.round(usOf(first)), unit: "µs" });
}

/** Re-derives on the sequencer's EL, which already has every block: each must consolidate, none be built. */
async function consolidatePhase(cfg: RollupConfig, l1: MemL1, seqEl: ElHandle, seqEngine: EngineClient) {
  const con = await startNode(cfg, l1, seqEl, false, code.systemClock);
  const phase = await timeToSafe(con.node, N, seqEl, con.safeDb);
  const built = [...calls].filter(([m]) => m.startsWith("engine_getPayload")).reduce((a, [, k]) => a + k, 0);
  const conHash = con.node.syncStatus().safe_l2.hash;
  await con.node.stop();
  const seqHash = (await seqEngine.l2BlockRefByNumber(N))?.hash;
  if (conHash !== seqHash) throw new Error("derivation bench: consolidation derived a different chain");
  if (built !== 0) throw new Error(`derivation bench: consolidation built ${built} blocks instead of consolidating`);
  return phase;
}

async function buildPhase(cfg: RollupConfig, l1: MemL1, seqEngine: EngineClient, report: Report) {
  const verEl = await startEl2(cfg);
  const ver = await startNode(cfg, l1, verEl, false, code.systemClock);
  const build = await timeToSafe(ver.node, N, verEl, ver.safeDb);
  note(`build: ${build.line}`);
  const verHash = ver.node.syncStatus().safe_l2.hash;
  await ver.node.stop();
  await verEl.stop();
  const seqHash = (await seqEngine.l2BlockRefByNumber(N))?.hash;
  if (verHash !== seqHash) throw new Error("derivation bench: verifier derived a different chain");
  report({ figure: "build_blocks_per_s", value: Math.round(N / build.sec), unit: "blocks/s" });
  reportCpu(report, "cpu_us_per_built_block", (build.steadySec * 1e6) / build.steadyBlocks, 300);
  report({ figure: "cpu_us_per_built_block_whole", value: Math.round((build.wholeSec * 1e6) / N), unit: "µs" });
}

function reportCpu(report: Report, figure: string, us: number, goal: number): void {
  note(`${figure}: ${Math.round(us)} µs (goal ≤ ${goal} µs: ${us <= goal ? "met" : "NOT met"})`);
  report({ figure, value: Math.round(us), unit: "µs" });
}

export default bench;
