/**
 * Node CPU of the Engine API build path alone, per built block: derived attributes (the L1-info deposit and 12 user
 * transactions of every signed type, OP Mainnet density) → `EngineController.buildAndInsert` (forkchoiceUpdated with
 * attributes, getPayload, newPayload; speculative, as derivation runs it) against a replaying execution client in
 * its own process (bench/engine-build/replay-el.mjs: no execution, so the EL answers at once and the figure is the
 * node's transport, codec and controller cost). The derivation pipeline is not involved (bench `derivation` has it).
 *
 * Figures: `engine_cpu_us_per_built_block` (this process, process.cpuUsage, all threads) and, as a control measured
 * in the same run on the same connection, `engine_cpu_us_per_round_trip` (a bare `eth_chainId` call): the ratio
 * `engine_round_trips_per_built_block` = built-block CPU / round-trip CPU is robust to machine load.
 *
 * REPLAY_EL_BUILD_MS=<ms> delays only requests holding a build start (op-geth builds a derived payload inside
 * forkchoiceUpdated; getPayload and newPayload then answer at once); REPLAY_EL_IDS=counter gives payload ids the node
 * cannot predict (getPayload then goes on its own, docs/performance.md). REPLAY_EL_DELAY_MS=<ms> makes the EL answer every
 * request that late, as a real EL that executes the block does:
 * the node's thread then sleeps during each round trip, which on a virtualised 2-core machine costs far more CPU
 * than the work itself (docs/performance.md: 5 ms → ~700 µs per built block against ~300 µs at once). The replaying EL prints
 * how many requests it got, and how many of them were batches, when it stops.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GCProfiler } from "node:v8";
import { type Hash, type Hex, hexToBytes, silentLogger, systemClock } from "supernode/core";
import { EngineController, EngineRpcClient, type L2BlockRef, type PayloadAttributes } from "supernode/node";
import type { RollupConfig } from "supernode/protocol";
import { benchHash, benchRollupConfig, GENESIS_TIME } from "./derivation/rollup-config.js";
import { UserTxSource } from "./derivation/user-txs.js";
import { abRun } from "./engine-build/ab.js";
import { l1InfoDeposit, startReplayEl } from "./engine-build/replay.js";
import { type Bench, note } from "./harness.js";

const WARMUP = 200;
const N = Number(process.env.ENGINE_BUILD_BENCH_N ?? 3000);
if (!(N > WARMUP)) throw new Error(`ENGINE_BUILD_BENCH_N must be above the ${WARMUP} warm-up blocks (got ${N})`);
const SECRET = new Uint8Array(32).fill(7);
const h = benchHash;

const cfg = (genesis: Hash): RollupConfig => benchRollupConfig(genesis, `0x${"ab".repeat(20)}`);

interface GcRecord {
  readonly gcType: string;
  readonly beforeGC: { readonly heapSpaceStatistics: readonly { spaceName: string; spaceUsedSize: number }[] };
  readonly afterGC: { readonly heapSpaceStatistics: readonly { spaceName: string; spaceUsedSize: number }[] };
}

/** Bytes the scavenges among `v8.GCProfiler` records moved into old space (its used size after − before each). */
function promotedBy(data: unknown): number {
  const old = (r: GcRecord["afterGC"]) =>
    r.heapSpaceStatistics.find((x) => x.spaceName === "old_space")?.spaceUsedSize ?? 0;
  let bytes = 0;
  for (const g of (data as { statistics?: readonly GcRecord[] } | undefined)?.statistics ?? [])
    if (g.gcType === "Scavenge") bytes += Math.max(0, old(g.afterGC) - old(g.beforeGC));
  return bytes;
}

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** One node's engine path against its own replaying EL. */
interface Chain {
  readonly engine: EngineRpcClient;
  buildOne(n: number): Promise<void>;
  finish(): Promise<void>;
}

function chainOn(url: string, blocks: (n: number) => PayloadAttributes): Chain {
  const rollup = cfg(h("genesis"));
  const engine = EngineRpcClient.create(
    { url, jwtSecret: SECRET, kind: "variant_a", rollupConfig: rollup },
    { clock: systemClock, logger: silentLogger },
  );
  let refs = 0;
  const controller = new EngineController({
    engine,
    cfg: rollup,
    logger: silentLogger,
    refFromPayload: () => {
      refs++;
      throw new Error("engine-build bench: refFromPayload is not on the build path");
    },
  });
  let parent: L2BlockRef = controller.heads.unsafe;
  const meta = { l1origin: { hash: h("l1-1"), number: 1 }, sequenceNumber: 0 };
  return {
    engine,
    async buildOne(n) {
      const built = await controller.buildAndInsert(blocks(n), parent, meta, { speculative: true });
      if (built === undefined) throw new Error(`engine-build bench: block ${n} was not built`);
      if (built.ref.number !== n) throw new Error(`engine-build bench: built ${built.ref.number}, expected ${n}`);
      parent = built.ref;
    },
    async finish() {
      await controller.flushForkchoice();
      if (refs !== 0) throw new Error("engine-build bench: the build path decoded a payload's L1-info deposit");
    },
  };
}

const bench: Bench = {
  name: "engine-build",
  async run(report) {
    // ENGINE_BUILD_BENCH_AB=<another checkout's root>: an in-process A/B of this tree's build path against that one's
    // instead of the figures below (bench/engine-build/ab.ts).
    const other = process.env.ENGINE_BUILD_BENCH_AB;
    if (other !== undefined && other !== "") {
      await abRun(other, report);
      return;
    }
    // The chain under test gets op-geth's payload ids (getPayload rides with the build start, docs/performance.md); a control
    // chain, built in alternating slices in this process, gets ids from a counter (getPayload on its own).
    const el = await startReplayEl();
    const elCounter = await startReplayEl({ REPLAY_EL_IDS: "counter" });
    try {
      // 64 distinct blocks of user transactions, reused round robin (signing is not what is measured).
      const src = new UserTxSource();
      const userBlocks: Hex[][] = [];
      for (let i = 0; i < 64; i++) userBlocks.push(await src.nextBlock());
      // As derivation makes them: the transactions held as bytes (their hex is encoded once, for the request), one
      // object per block made when the block is built and dropped after it (holding every block's attributes for
      // the whole run kept them and their hex alive through the scavenges: a GC load derivation does not have). The
      // user transactions' bytes are decoded once (derivation has them as views of the channel's bytes).
      const userBytes = userBlocks.map((b) => b.map(hexToBytes));
      const attrsFor = (n: number): PayloadAttributes => ({
        fields: {
          timestamp: GENESIS_TIME + 2 * n,
          prevRandao: h(`randao-${Math.floor(n / 6)}`),
          suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
          withdrawals: [],
          parentBeaconBlockRoot: h(`beacon-${Math.floor(n / 6)}`),
          noTxPool: true,
          gasLimit: 30_000_000n,
          eip1559Params: "0x000000fa00000006",
        },
        txBytes: [hexToBytes(l1InfoDeposit(n)), ...userBytes[n % userBytes.length]!],
      });
      const chain = chainOn(el.url, attrsFor);
      const control = chainOn(elCounter.url, attrsFor);
      const roundTrip = async () => {
        if ((await chain.engine.chainId()) !== 901n) throw new Error("engine-build bench: wrong chain id");
      };
      // Warm-up (JIT), then alternate timed slices of all three so that load changes hit them alike.
      for (let n = 1; n <= WARMUP; n++) {
        await chain.buildOne(n);
        await control.buildOne(n);
      }
      for (let i = 0; i < 600; i++) await roundTrip();
      let next = WARMUP + 1;
      let buildUs = 0;
      let controlUs = 0;
      let tripUs = 0;
      let trips = 0;
      let promoted = 0;
      const SLICE = 100;
      const gc = new GCProfiler();
      while (next <= N) {
        const from = next;
        let t = cpuUs();
        gc.start();
        for (let k = 0; k < SLICE && next <= N; k++) await chain.buildOne(next++);
        buildUs += cpuUs() - t;
        promoted += promotedBy(gc.stop());
        t = cpuUs();
        for (let n = from; n < next; n++) await control.buildOne(n);
        controlUs += cpuUs() - t;
        t = cpuUs();
        for (let k = 0; k < 3 * SLICE; k++) await roundTrip();
        tripUs += cpuUs() - t;
        trips += 3 * SLICE;
      }
      // ENGINE_BUILD_BENCH_PROFILE=<dir>: after the figures, a V8 CPU profile (100 µs grain) of 2,000 more built
      // blocks alone (no control round trips mixed in), written to <dir>/engine-build.cpuprofile.
      const profileDir = process.env.ENGINE_BUILD_BENCH_PROFILE;
      if (profileDir !== undefined && profileDir !== "") {
        const { Session } = await import("node:inspector/promises");
        const session = new Session();
        session.connect();
        await session.post("Profiler.enable");
        await session.post("Profiler.setSamplingInterval", { interval: 100 });
        await session.post("Profiler.start");
        for (let k = 0; k < 2000; k++) await chain.buildOne(next++);
        const { profile } = await session.post("Profiler.stop");
        mkdirSync(profileDir, { recursive: true });
        writeFileSync(join(profileDir, "engine-build.cpuprofile"), JSON.stringify(profile));
        session.disconnect();
      }
      // ENGINE_BUILD_BENCH_HEAP=<dir>: a sampling heap profile of 1,000 more built blocks, counting objects already
      // collected too (allocation per block by function), written to <dir>/engine-build.heapprofile.
      const heapDir = process.env.ENGINE_BUILD_BENCH_HEAP;
      if (heapDir !== undefined && heapDir !== "") {
        const { Session } = await import("node:inspector/promises");
        const session = new Session();
        session.connect();
        await session.post("HeapProfiler.startSampling", {
          samplingInterval: 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        } as never);
        for (let k = 0; k < 1000; k++) await chain.buildOne(next++);
        const { profile } = await session.post("HeapProfiler.stopSampling");
        mkdirSync(heapDir, { recursive: true });
        writeFileSync(join(heapDir, "engine-build.heapprofile"), JSON.stringify(profile));
        session.disconnect();
      }
      await chain.finish();
      await control.finish();
      const built = N - WARMUP;
      const perBlock = buildUs / built;
      const perControl = controlUs / built;
      const perTrip = tripUs / trips;
      note(
        `engine-build: ${built} blocks, ${Math.round(perBlock)} µs node CPU per built block (getPayload in the build-start batch), ${Math.round(perControl)} µs with unpredictable ids (getPayload alone), ${Math.round(perTrip)} µs per bare round trip`,
      );
      report({ figure: "engine_cpu_us_per_built_block", value: Math.round(perBlock), unit: "µs" });
      report({ figure: "engine_cpu_us_per_built_block_unpredicted", value: Math.round(perControl), unit: "µs" });
      report({ figure: "engine_cpu_us_per_round_trip", value: Math.round(perTrip), unit: "µs" });
      // Bytes the scavenges moved to the old generation during the predicted chain's slices, per built block
      // (load-independent; docs/performance.md).
      report({ figure: "engine_promoted_bytes_per_built_block", value: Math.round(promoted / built), unit: "B" });
      report({
        figure: "engine_round_trips_per_built_block",
        value: Number((perBlock / perTrip).toFixed(2)),
        unit: "ratio",
      });
    } finally {
      await el.stop();
      await elCounter.stop();
    }
  },
};

export default bench;
