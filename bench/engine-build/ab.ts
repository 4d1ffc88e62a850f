/**
 * `ENGINE_BUILD_BENCH_AB=<root of another checkout>`: an in-process A/B of the Engine API build path of this tree
 * ("this") against another checkout's ("other", e.g. main before a change, with its own `node_modules` or one
 * reachable from it). Both trees' engine client and controller are imported into this one process (as sources,
 * through tsx), each builds on its own replaying EL, and they take turns in slices of 100 blocks (the order swapped
 * every slice) measured by process CPU: load, scavenges and the machine's state then hit both sides alike, which
 * separate bench runs cannot give (on this 2-core VM they differ by ±30 µs per built block; docs/performance.md resolved
 * 3–5 µs this way). Figures: the median µs per built block of each side's slices, how many slice pairs "this" was
 * the cheaper in, and the median over the pairs of what "this" saved (load-robust: both halves of a pair run
 * back to back). The attributes are made as in the main figures (hashes precomputed).
 */
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Hex } from "supernode/core";
import { benchHash, benchRollupConfig, GENESIS_TIME } from "../derivation/rollup-config.js";
import { UserTxSource } from "../derivation/user-txs.js";
import { type Figure, note } from "../harness.js";
import { l1InfoDeposit, startReplayEl } from "./replay.js";

const WARMUP = 400;
const SLICE = 100;
const SLICES = Number(process.env.ENGINE_BUILD_BENCH_AB_SLICES ?? 150);

interface Side {
  build(): Promise<void>;
  stop(): Promise<void>;
}

/** The build path of the checkout at `root`, on its own replaying EL; `hexes`: the blocks' transactions as hex. */
async function sideOf(root: string, hexes: (n: number) => readonly Hex[]): Promise<Side> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { EngineRpcClient } = await load("src/io/engine/engine-rpc-client.ts");
  const { EngineController } = await load("src/node/engine/engine-controller.ts");
  const { hexToBytes } = await load("src/core/codec/hex.ts");
  const { silentLogger } = await load("src/core/logger.ts");
  const { systemClock } = await load("src/core/time/clock.ts");
  const el = await startReplayEl();
  const cfg = benchRollupConfig(benchHash("genesis"), `0x${"ab".repeat(20)}`);
  const engine = EngineRpcClient.create(
    { url: el.url, jwtSecret: new Uint8Array(32).fill(7), kind: "variant_a", rollupConfig: cfg },
    { clock: systemClock, logger: silentLogger },
  );
  const controller = new EngineController({
    engine,
    cfg,
    logger: silentLogger,
    refFromPayload: () => {
      throw new Error("engine-build A/B: refFromPayload is not on the build path");
    },
  });
  // The user transactions' bytes decoded once per distinct block (derivation has them as views of the channel).
  const bytes = new Map<number, Uint8Array[]>();
  const meta = { l1origin: { hash: benchHash("l1-1"), number: 1 }, sequenceNumber: 0 };
  let parent = controller.heads.unsafe;
  let n = 0;
  return {
    async build() {
      n++;
      const k = n % 64;
      let user = bytes.get(k);
      if (user === undefined) {
        user = hexes(k).slice(1).map(hexToBytes);
        bytes.set(k, user);
      }
      const attrs = {
        fields: {
          timestamp: GENESIS_TIME + 2 * n,
          prevRandao: RANDAO[Math.floor(n / 6) % RANDAO.length]!,
          suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
          withdrawals: [],
          parentBeaconBlockRoot: BEACON[Math.floor(n / 6) % BEACON.length]!,
          noTxPool: true,
          gasLimit: 30_000_000n,
          eip1559Params: "0x000000fa00000006",
        },
        txBytes: [hexToBytes(hexes(k)[0]!), ...user],
      };
      const built = await controller.buildAndInsert(attrs, parent, meta, { speculative: true });
      if (built === undefined || built.ref.number !== n) throw new Error(`engine-build A/B: block ${n} not built`);
      parent = built.ref;
    },
    stop: () => el.stop(),
  };
}

const RANDAO = Array.from({ length: 1024 }, (_, i) => benchHash(`randao-${i}`));
const BEACON = Array.from({ length: 1024 }, (_, i) => benchHash(`beacon-${i}`));

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function abRun(otherRoot: string, report: (f: Figure) => void): Promise<void> {
  const src = new UserTxSource();
  const blocks: Hex[][] = [];
  for (let i = 0; i < 64; i++) blocks.push([l1InfoDeposit(i), ...(await src.nextBlock())]);
  const hexes = (k: number): readonly Hex[] => blocks[k]!;
  const here = fileURLToPath(new URL("../..", import.meta.url));
  const self = await sideOf(here, hexes);
  const other = await sideOf(otherRoot, hexes);
  try {
    for (let i = 0; i < WARMUP; i++) {
      await self.build();
      await other.build();
    }
    const us: { self: number[]; other: number[] } = { self: [], other: [] };
    for (let s = 0; s < SLICES; s++) {
      const order = s % 2 === 0 ? (["self", "other"] as const) : (["other", "self"] as const);
      for (const k of order) {
        const side = k === "self" ? self : other;
        const t = cpuUs();
        for (let i = 0; i < SLICE; i++) await side.build();
        us[k].push((cpuUs() - t) / SLICE);
      }
    }
    let wins = 0;
    const saved: number[] = [];
    for (let i = 0; i < SLICES; i++) {
      if (us.self[i]! < us.other[i]!) wins++;
      saved.push(us.other[i]! - us.self[i]!);
    }
    note(
      `engine-build A/B: this tree median ${median(us.self).toFixed(1)} / mean ${mean(us.self).toFixed(1)} µs per built block, ${otherRoot} median ${median(us.other).toFixed(1)} / mean ${mean(us.other).toFixed(1)}; this one cheaper in ${wins} of ${SLICES} slice pairs, by ${median(saved).toFixed(1)} µs (median of the pairs)`,
    );
    report({ figure: "engine_ab_us_per_built_block_this", value: Number(median(us.self).toFixed(1)), unit: "µs" });
    report({ figure: "engine_ab_us_per_built_block_other", value: Number(median(us.other).toFixed(1)), unit: "µs" });
    report({ figure: "engine_ab_slices_this_cheaper", value: Number((wins / SLICES).toFixed(2)), unit: "ratio" });
    report({ figure: "engine_ab_us_saved_per_built_block", value: Number(median(saved).toFixed(1)), unit: "µs" });
  } finally {
    await self.stop();
    await other.stop();
  }
}
