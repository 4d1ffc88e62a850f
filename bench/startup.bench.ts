import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { buildChainRuntimes } from "../src/app/chain-factory.js";
import { protocolHashing } from "../src/app/hashing.js";
import { Supernode } from "../src/app/supernode.js";
import { loadConfig } from "../src/config/load.js";
import { silentLogger } from "../src/core/logger.js";
import { type Bench, note } from "./harness.js";

/**
 * Time from `Supernode.start` (configuration already loaded) until every one of `STARTUP_CHAINS` (default 100)
 * chains answers `stack_syncStatus` through the RPC server (figure `seconds_to_rpc_<N>_chains`, goal < 1 s at
 * N = 100). A real N-chain devnet (anvil with every chain's contracts, N execution clients, batchers running) runs
 * in a process of its own (bench/scale/devnet-proc.ts), set up before the clock starts, so its work does not count.
 * Three runs, each with a fresh data directory; median reported.
 */
const CHAINS = Number(process.env.STARTUP_CHAINS ?? 100);
const RUNS = 3;
const here = dirname(fileURLToPath(import.meta.url));

async function allServing(url: string, ids: readonly number[]): Promise<boolean> {
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

/** The generated supernode arguments with another data directory and ephemeral ports. */
function withRunDir(args: readonly string[], dir: string): string[] {
  const out = [...args];
  for (const [flag, value] of [
    ["--data-dir", dir],
    ["--rpc.port", "0"],
    ["--metrics.port", "0"],
  ] as const) {
    const i = out.indexOf(flag);
    if (i >= 0) out[i + 1] = value;
  }
  return out;
}

const bench: Bench = {
  name: "startup",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "sn-bench-startup-"));
    note(`starting a ${CHAINS}-chain devnet in its own process …`);
    const devnet = spawn(
      process.execPath,
      ["--import", "tsx", join(here, "scale", "devnet-proc.ts"), String(CHAINS), dir, "0", "0"],
      { cwd: join(here, ".."), stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      const info = await new Promise<{ args: string[]; chains: number[] }>((resolve, reject) => {
        createInterface({ input: devnet.stdout }).on("line", (line) => {
          if (line.startsWith("READY ")) resolve(JSON.parse(line.slice(6)));
        });
        devnet.once("exit", (code) => reject(new Error(`devnet exited (${code})`)));
      });
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const loaded = loadConfig(withRunDir(info.args, join(dir, `run-${run}`)), {});
        if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
        const t0 = performance.now();
        const sn = await Supernode.start(loaded.config, {
          logger: silentLogger,
          buildChains: buildChainRuntimes,
          hashing: protocolHashing,
        });
        while (!(await allServing(sn.rpc.url, info.chains))) await new Promise((r) => setTimeout(r, 10));
        const seconds = (performance.now() - t0) / 1000;
        times.push(seconds);
        note(`run ${run + 1}: ${seconds.toFixed(3)} s`);
        await sn.stop();
      }
      times.sort((a, b) => a - b);
      report({
        figure: `seconds_to_rpc_${CHAINS}_chains`,
        value: Number(times[Math.floor(RUNS / 2)]?.toFixed(3)),
        unit: "s",
      });
    } finally {
      if (devnet.exitCode === null) {
        const exited = new Promise<void>((r) => devnet.once("exit", () => r()));
        devnet.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
