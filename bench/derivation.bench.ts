/**
 * Derivation catch-up speed of one virtual node from L1 data, with the simulated execution client over the real
 * JWT-authenticated Engine API (EngineRpcClient) on loopback.
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
 * - `cpu_us_per_built_block` (goal ≤ 500 µs as docs/performance.md says; a stretch line at ≤ 300 µs): warm code
 *   too. The build phase runs DERIVATION_BENCH_BUILD_WARMUP (default 3) + DERIVATION_BENCH_BUILD_REPEAT (default 4)
 *   times in this process, a fresh node on a fresh EL process each time; the figure is Σ CPU / Σ blocks over the
 *   measured runs' windows, `…_cold` the first run, `…_whole` the measured runs' whole phases (restart walk
 *   included).
 * - `cpu_us_per_consolidated_block` (goal ≤ 100 µs): warm code, as in a long-running supernode (whose chains are
 *   many instances of the same node code in one process). The consolidate phase runs DERIVATION_BENCH_WARMUP
 *   (default 12) + DERIVATION_BENCH_REPEAT (default 48) times in this process, a fresh node each time on the same EL.
 *   The warm-up runs are not counted: V8 keeps compiling, deoptimising ("wrong map", "wrong call target" as each new
 *   node brings new objects and closures) and recompiling the path for several runs (~5,000 blocks) before its code
 *   is stable; their figures are printed, and `…_cold` is the process's first run. The figure is the total CPU of the
 *   measured runs' windows divided by their total blocks (48 × 400 blocks, ≈ 2 s of CPU: one compilation or major
 *   GC does not swing it); the runs' spread (min / median / max), CPU per thread and Engine API calls per block in
 *   the windows are printed on stderr. `…_whole`: the measured runs' whole phases (restart walk included) over their
 *   N blocks each.
 * - `cpu_us_per_block_floor` (a control, bench/derivation/floor.ts): after each measured build run, as many round
 *   trips as the run's window had blocks, each of a built block's bytes (the EL's reads and writes per block, from
 *   /proc/<pid>/io) to a peer process that burns the EL's CPU per block before answering; no node logic. It is what
 *   this machine charges at that moment for the sleep, the wake-up and the kernel's copies of one built block, which
 *   no client goes under; `cpu_us_per_built_block_above_floor` = built − floor, the node's own work (docs/performance.md).
 * - `build_major_gc_per_1000_blocks`, `consolidate_major_gc_per_1000_blocks`: mark-compact GCs of this process (PerformanceObserver 'gc' entries) over the
 *   measured runs' whole phases per 1,000 blocks, a figure that does not depend on the machine's load (docs/performance.md
 *   addendum); stderr adds scavenges and GC pause time per 1,000 blocks, and marks with `*` the runs during which a
 *   mark-compact happened.
 * - `build_promoted_bytes_per_block`, `consolidate_promoted_bytes_per_block`: bytes the scavenges moved into the old
 *   generation (v8.GCProfiler) over the measured runs' whole phases per block: what fills the old generation and
 *   so paces the mark-compacts; load-independent too (docs/performance.md). DERIVATION_BENCH_HEAP_PROFILE=<file> writes a
 *   sampling heap profile of the objects that survived the scavenges over the measured runs (where they are made).
 *   DERIVATION_BENCH_ALLOC_PROFILE=<file>: the same over every allocation (what fills the young generation).
 * Parts: bench/derivation/el.ts (the simulated EL), mem-chain.ts (in-memory L1 and SafeDB), metering.ts (CPU,
 * threads, calls, window bounds, profiles), runs.ts (measured runs and their figures), floor.ts with
 * floor-client.mjs, floor-peer.mjs and floor-http.mjs (the floor control), node-code.ts (dist/ or sources),
 * user-txs.ts, rollup-config.ts.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { privateKeyToAccount } from "viem/accounts";
import { bytesToHex, type Clock, type Hash, type Hex, hexToBytes, ZERO_HASH } from "supernode/core";
import type { ChainNode, ChainNodeConfig, EngineRpcClient, L1Source, L1Transaction } from "supernode/node";
import {
  encodeChannel,
  encodeFrames,
  type RollupConfig,
  SINGULAR_BATCH_TYPE,
  splitIntoFrames,
} from "supernode/protocol";
import { type ElHandle, startEl } from "./derivation/el.js";
import { L1_BLOCK_TIME, MemL1, MemSafeDb } from "./derivation/mem-chain.js";
import { calls, diff, mainThreadSleeps, mark, perBlock, startProfile } from "./derivation/metering.js";
import { loadNodeCode, type NodeCode } from "./derivation/node-code.js";
import { measuredRuns, type Phase, runsFromEnv } from "./derivation/runs.js";
import { benchRollupConfig, GENESIS_TIME } from "./derivation/rollup-config.js";
import { TXS_PER_BLOCK, UserTxSource, sendRawBatch } from "./derivation/user-txs.js";
import { type Bench, note } from "./harness.js";

// Blocks per run (env DERIVATION_BENCH_N); 12 user transactions each. 600 blocks (7,200 transactions) amortise
// the fresh EL process's JIT warm-up and keep the run near two minutes.
const N = Number(process.env.DERIVATION_BENCH_N ?? 600);
const SECRET = new Uint8Array(32).fill(7);
const BATCHER = privateKeyToAccount(`0x${"ab".repeat(32)}`);

/** The node under test: dist/ or the sources (set first thing in `run`). */
let code: NodeCode;

function rollupConfig(genesisHash: Hash): RollupConfig {
  return benchRollupConfig(genesisHash, BATCHER.address.toLowerCase() as Hex);
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
  const engine = code.EngineRpcClient.create(
    {
      url: el.authUrl,
      jwtSecret: SECRET,
      kind: "variant_a",
      rollupConfig: cfg,
      // DERIVATION_BENCH_PREDICT=0: getPayload on its own after each build start (no local payload id, docs/performance.md).
      predictPayloadIds: process.env.DERIVATION_BENCH_PREDICT !== "0",
    },
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
  const io0 = el.ioBytes();
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
  const io1 = el.ioBytes();
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
    exchange:
      io0 === undefined || io1 === undefined || e0 === undefined || e1 === undefined
        ? undefined
        : {
            requestBytes: (io1.read - io0.read) / n,
            responseBytes: (io1.written - io0.written) / n,
            elBusyUs: ((e1 - e0) * 1e6) / n,
          },
    line,
  };
}

const bench: Bench = {
  name: "derivation",
  async run(report) {
    code = await loadNodeCode();
    const codeName = { dist: "compiled dist/", src: "sources through tsx" }[code.kind] ?? `compiled ${code.kind}`;
    note(`node under test: ${codeName} (DERIVATION_BENCH_CODE)`);
    const probe = await startEl(rollupConfig(ZERO_HASH), SECRET);
    const cfg = rollupConfig(probe.genesisHash);
    await probe.stop();
    const l1 = new MemL1(() => new code.TemporaryError("NOT_FOUND", "no such L1 block"));
    const epochs = Math.ceil((N * cfg.block_time) / L1_BLOCK_TIME) + 2;
    for (let i = 0; i < epochs; i++) l1.push([]);

    // 1. Sequence N blocks, one at a time: the block's 12 user transactions enter the EL's pool, then the clock
    //    moves to the block's time and the sequencer seals it.
    const seqEl = await startEl(cfg, SECRET);
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
    if (phases.includes("build")) {
      const warmup = runsFromEnv("DERIVATION_BENCH_BUILD_WARMUP", 3, 0);
      const repeat = runsFromEnv("DERIVATION_BENCH_BUILD_REPEAT", 4, 1);
      await measuredRuns("build", N, warmup, repeat, () => buildPhase(cfg, l1, seq.engine), report, {
        goal: 500,
        stretch: 300,
      });
    }

    // 4. Consolidation path: re-derive on the sequencer's EL, which already has every block.
    if (phases.includes("consolidate")) {
      const warmup = runsFromEnv("DERIVATION_BENCH_WARMUP", 12, 0);
      const repeat = runsFromEnv("DERIVATION_BENCH_REPEAT", 48, 1);
      const once = () => consolidatePhase(cfg, l1, seqEl, seq.engine);
      await measuredRuns("consolidate", N, warmup, repeat, once, report, { goal: 100 });
    }
    await seqEl.stop();
  },
};

/** Re-derives on the sequencer's EL, which already has every block: each must consolidate, none be built. */
async function consolidatePhase(cfg: RollupConfig, l1: MemL1, seqEl: ElHandle, seqEngine: EngineRpcClient) {
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

/** A verifier with a fresh EL derives all N blocks, building each: the same chain as the sequencer's. */
async function buildPhase(cfg: RollupConfig, l1: MemL1, seqEngine: EngineRpcClient): Promise<Phase> {
  const verEl = await startEl(cfg, SECRET);
  try {
    const ver = await startNode(cfg, l1, verEl, false, code.systemClock);
    const build = await timeToSafe(ver.node, N, verEl, ver.safeDb);
    const verHash = ver.node.syncStatus().safe_l2.hash;
    await ver.node.stop();
    const seqHash = (await seqEngine.l2BlockRefByNumber(N))?.hash;
    if (verHash !== seqHash) throw new Error("derivation bench: verifier derived a different chain");
    return build;
  } finally {
    await verEl.stop();
  }
}

export default bench;
