import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type Devnet, startDevnet, supernodeArgsFor } from "supernode-devnet";
import { type Bench, note } from "./harness.js";

/**
 * Resident memory per extra chain with the chains live (figure `rss_mb_per_chain`, goal ≤ 25): the `supernode`
 * binary runs as a child process against an N-chain devnet (`MEMORY_CHAINS`, default 100), once following 1 chain
 * and once all N; each run waits until every chain has a safe head, lets it run for a while, then samples the
 * child's RSS (/proc, Linux). Figure = (RSS_N − RSS₁) / (N − 1): with 99 extra chains live the baseline's noise
 * (tens of MB) is spread over 99, not 15.
 */
const BIN = join(import.meta.dirname, "..", "bin", "supernode.js");
const SETTLE_MS = 8_000;
const CHAINS = Number(process.env.MEMORY_CHAINS ?? 100);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? "0");
  return kb / 1024;
}

async function rpc(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }),
  });
  return ((await res.json()) as { result?: unknown }).result;
}

async function measure(devnet: Devnet, dir: string, count: number): Promise<number> {
  const sub = { ...devnet, chains: devnet.chains.slice(0, count) };
  const args = supernodeArgsFor(sub, { dir, chains: [], rpcPort: 0, metricsPort: 0 }).filter(
    (a, i, all) => !(a === "--metrics.enabled" || all[i - 1] === "--log.level" || a === "--log.level"),
  );
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args, "--log.level", "info", "--log.format", "json"], {
    stdio: ["ignore", "pipe", "inherit", "ipc"], // the supernode ends with this bench, however it ends
  });
  try {
    const rpcUrl = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.on("line", (line) => {
        if (!line.includes("supernode started")) return;
        resolve((JSON.parse(line) as { rpc: string }).rpc);
      });
      child.once("exit", (code) => reject(new Error(`supernode exited early (${code})`)));
    });
    const t0 = Date.now();
    for (;;) {
      const st = (await rpc(`${rpcUrl}/`, "supernode_syncStatus").catch(() => undefined)) as
        | { chains: Record<string, { safe_l2: { number: number } }> }
        | undefined;
      if (st !== undefined && Object.values(st.chains).every((c) => c.safe_l2.number > 0)) break;
      if (Date.now() - t0 > 300_000) throw new Error("chains did not become safe");
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(rssMb(child.pid!));
      await new Promise((r) => setTimeout(r, 500));
    }
    const rss = samples.reduce((a, b) => a + b, 0) / samples.length;
    note(`${count} chain(s): RSS ${rss.toFixed(1)} MB`);
    return rss;
  } finally {
    child.kill("SIGTERM");
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
  }
}

const bench: Bench = {
  name: "memory",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "sn-bench-mem-"));
    const ids = Array.from({ length: CHAINS }, (_, i) => BigInt(901 + i));
    const devnet = await startDevnet({
      dir,
      chains: ids.map((chainId, i) => ({ chainId, variant: i % 2 === 0 ? "a" : "b" })),
      l1BlockTimeSec: 2,
      l2BlockTimeSec: 2,
    });
    devnet.startBatchers();
    try {
      const one = await measure(devnet, join(dir, "one"), 1);
      const all = await measure(devnet, join(dir, "all"), CHAINS);
      report({ figure: "rss_mb_one_chain", value: Number(one.toFixed(1)), unit: "MB" });
      report({ figure: `rss_mb_${CHAINS}_chains`, value: Number(all.toFixed(1)), unit: "MB" });
      report({ figure: "rss_mb_per_chain", value: Number(((all - one) / (CHAINS - 1)).toFixed(2)), unit: "MB" });
    } finally {
      await devnet.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
