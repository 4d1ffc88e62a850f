import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadConfig, startSupernodeFromConfig } from "supernode";
import { silentLogger } from "supernode/core";
import { type Bench, note } from "./harness.js";

/**
 * Time from `startSupernodeFromConfig` (configuration already loaded) until every one of `STARTUP_CHAINS` (default 100)
 * chains answers `stack_syncStatus` through the RPC server (figure `seconds_to_rpc_<N>_chains`, goal < 1 s at
 * N = 100). A real N-chain devnet (anvil with every chain's contracts, N execution clients, batchers running) runs
 * in a process of its own (bench/scale/devnet-proc.ts), set up and left to settle for `SETTLE_MS` before the clock
 * starts, so its work does not count. The probe is cheap, so that it does not slow down what it measures: one
 * keep-alive node:http agent, and each round asks only the chains that have not answered yet (a chain that served
 * once keeps serving). Three runs, each with a fresh data directory; median reported (`seconds_to_rpc_first_run`:
 * the first, whose process also loads the modules the start needs lazily).
 */
const CHAINS = Number(process.env.STARTUP_CHAINS ?? 100);
const RUNS = 3;
const SETTLE_MS = 5_000;
const GOAL_S = 1;
const here = dirname(fileURLToPath(import.meta.url));
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "stack_syncStatus" });

/** Whether `url` answers stack_syncStatus with a result (a JSON-RPC error, e.g. "not running", is a no). */
function serves(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": BODY.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          try {
            resolve((JSON.parse(Buffer.concat(chunks).toString()) as { result?: unknown }).result !== undefined);
          } catch {
            resolve(false);
          }
        });
      },
    );
    req.on("error", () => resolve(false));
    req.end(BODY);
  });
}

/** Resolves when every chain has answered once. */
async function allServing(url: string, ids: readonly number[]): Promise<void> {
  let pending = [...ids];
  while (pending.length > 0) {
    const ok = await Promise.all(pending.map((id) => serves(`${url}/${id}/`)));
    pending = pending.filter((_, i) => !ok[i]);
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 10));
  }
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
      [
        "--conditions=supernode-source",
        "--import",
        "tsx",
        join(here, "scale", "devnet-proc.ts"),
        String(CHAINS),
        dir,
        "0",
        "0",
      ],
      { cwd: join(here, ".."), stdio: ["ignore", "pipe", "inherit", "ipc"] }, // ends with this bench, however it ends
    );
    try {
      const info = await new Promise<{ args: string[]; chains: number[] }>((resolve, reject) => {
        createInterface({ input: devnet.stdout! }).on("line", (line) => {
          if (line.startsWith("READY ")) resolve(JSON.parse(line.slice(6)));
        });
        devnet.once("exit", (code) => reject(new Error(`devnet exited (${code})`)));
      });
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const loaded = loadConfig(withRunDir(info.args, join(dir, `run-${run}`)), {});
        if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
        const t0 = performance.now();
        const cpu0 = process.cpuUsage();
        const sn = await startSupernodeFromConfig(loaded.config, { logger: silentLogger });
        await allServing(sn.rpc.url, info.chains);
        const seconds = (performance.now() - t0) / 1000;
        const cpu = process.cpuUsage(cpu0);
        times.push(seconds);
        note(
          `run ${run + 1}: ${seconds.toFixed(3)} s, process CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms ` +
            `(load ${loadavg()[0]?.toFixed(1)})`,
        );
        await sn.stop();
      }
      agent.destroy();
      const first = times[0] as number;
      times.sort((a, b) => a - b);
      const median = times[Math.floor(RUNS / 2)] as number;
      report({ figure: `seconds_to_rpc_${CHAINS}_chains`, value: Number(median.toFixed(3)), unit: "s" });
      report({ figure: "seconds_to_rpc_first_run", value: Number(first.toFixed(3)), unit: "s" });
      report({ figure: "load_1m", value: Number((loadavg()[0] ?? 0).toFixed(2)), unit: "load" });
      note(
        `seconds_to_rpc_${CHAINS}_chains ${median.toFixed(3)} s (goal < ${GOAL_S} s: ${median < GOAL_S ? "met" : "NOT met"})`,
      );
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
