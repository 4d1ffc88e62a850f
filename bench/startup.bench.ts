import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildChainRuntimes } from "../src/app/chain-factory.js";
import { protocolHashing } from "../src/app/hashing.js";
import { Supernode } from "../src/app/supernode.js";
import { supernodeArgsFor } from "../src/cli/commands/devnet-supernode.js";
import { loadConfig } from "../src/config/load.js";
import { silentLogger } from "../src/core/logger.js";
import { startDevnet } from "../src/devnet/devnet.js";
import { type Bench, note } from "./harness.js";

/**
 * Time from `Supernode.start` (configuration already loaded) until every one of `STARTUP_CHAINS` (default 100) chains answers
 * `stack_syncStatus` through the RPC server (figure `seconds_to_rpc_<N>_chains`, goal < 1 s at N = 100). A real N-chain devnet
 * (one anvil L1 with every chain's contracts, N execution clients, batchers running) is set up before the clock
 * starts. Three runs; median reported.
 */
const CHAINS = Number(process.env.STARTUP_CHAINS ?? 100);
const RUNS = 3;

async function allServing(url: string, ids: readonly bigint[]): Promise<boolean> {
  const replies = await Promise.all(
    ids.map(async (id) => {
      const res = await fetch(`${url}/${id}/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "stack_syncStatus" }),
      });
      return ((await res.json()) as { result?: unknown }).result !== undefined;
    }),
  );
  return replies.every(Boolean);
}

const bench: Bench = {
  name: "startup",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "sn-bench-startup-"));
    const ids = Array.from({ length: CHAINS }, (_, i) => BigInt(901 + i));
    note(`starting execution clients for ${CHAINS} chains …`);
    const devnet = await startDevnet({
      dir: join(dir, "devnet"),
      chains: ids.map((chainId, i) => ({ chainId, variant: i % 2 === 0 ? "a" : "b" })),
      l1BlockTimeSec: 2,
      l2BlockTimeSec: 2,
    });
    devnet.startBatchers();
    try {
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const args = supernodeArgsFor(devnet, { dir: join(dir, `run-${run}`), chains: [], rpcPort: 0, metricsPort: 0 });
        const loaded = loadConfig(args, {});
        if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
        const t0 = performance.now();
        const sn = await Supernode.start(loaded.config, {
          logger: silentLogger,
          buildChains: buildChainRuntimes,
          hashing: protocolHashing,
        });
        while (!(await allServing(sn.rpc.url, ids))) await new Promise((r) => setTimeout(r, 10));
        const seconds = (performance.now() - t0) / 1000;
        times.push(seconds);
        note(`run ${run + 1}: ${seconds.toFixed(3)} s`);
        await sn.stop();
      }
      times.sort((a, b) => a - b);
      report({
        figure: `seconds_to_rpc_${CHAINS}_chains`,
        value: Number(times[Math.floor(RUNS / 2)]!.toFixed(3)),
        unit: "s",
      });
    } finally {
      await devnet.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
