/**
 * Benchmark `config`: start-up configuration cost and logging throughput.
 * - `load_16_chains_ms`: loadConfig for 16 chains (argv expansion, env, rollup.json files, JWT files, validation).
 * - `load_network_ms`: loadConfig for one chain from a built-in network.
 * - `log_<format>_lines_per_s`: logger throughput (child logger with a chain binding, 3 fields) per format,
 *   written to a discarding destination.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, loadConfig, LOG_FORMATS } from "supernode";
import { type Bench, note } from "./harness.js";

function rollup(id: number): string {
  const h = (n: number, b: number) => `0x${n.toString(16).padStart(b * 2, "0")}`;
  return JSON.stringify({
    genesis: {
      l1: { hash: h(id * 2 + 1, 32), number: 1 },
      l2: { hash: h(id * 2 + 2, 32), number: 0 },
      l2_time: 1_700_000_000,
      system_config: { batcherAddr: h(1, 20), overhead: h(0, 32), scalar: h(1, 32), gasLimit: 30_000_000 },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 3600,
    channel_timeout: 300,
    l1_chain_id: 900,
    l2_chain_id: id,
    regolith_time: 0,
    batch_inbox_address: h(0xff00 + id, 20),
    deposit_contract_address: h(2, 20),
    l1_system_config_address: h(3, 20),
  });
}

function timeMs(iterations: number, fn: () => void): number {
  fn();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return (performance.now() - t0) / iterations;
}

const bench: Bench = {
  name: "config",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "supernode-bench-config-"));
    try {
      const jwt = join(dir, "jwt.hex");
      writeFileSync(jwt, "ab".repeat(32));
      const ids = Array.from({ length: 16 }, (_, i) => 1000 + i);
      const argv = ["--chains", ids.join(","), "--l1", "http://127.0.0.1:8545", "--vn.all.l2.jwt-secret", jwt];
      for (const id of ids) {
        const p = join(dir, `rollup-${id}.json`);
        writeFileSync(p, rollup(id));
        argv.push(`--vn.${id}.rollup.config`, p, `--vn.${id}.l2`, `http://127.0.0.1:${20000 + id}`);
      }
      const res = loadConfig(argv, {});
      if (!res.ok) throw new Error(`bench config invalid: ${JSON.stringify(res.issues)}`);
      report({
        figure: "load_16_chains_ms",
        value: Number(timeMs(50, () => loadConfig(argv, {})).toFixed(3)),
        unit: "ms",
      });
      const net = ["--chains", "10", "--l1", "http://127.0.0.1:8545", "--l1.beacon", "http://127.0.0.1:5052"];
      net.push("--vn.10.network", "op-mainnet", "--vn.10.l2", "http://127.0.0.1:8551", "--vn.10.l2.jwt-secret", jwt);
      report({
        figure: "load_network_ms",
        value: Number(timeMs(50, () => loadConfig(net, {})).toFixed(3)),
        unit: "ms",
      });
      for (const format of LOG_FORMATS) {
        let bytes = 0;
        const log = createLogger({
          level: "info",
          format,
          color: false,
          destination: {
            write: (s: string) => {
              bytes += s.length;
            },
          },
        }).child({ chain: "10" });
        const n = 50_000;
        const t0 = performance.now();
        for (let i = 0; i < n; i++) log.info({ number: i, hash: "0xabcdef", safe: true }, "derived block");
        const s = (performance.now() - t0) / 1000;
        note(`${format}: ${bytes} bytes`);
        report({ figure: `log_${format}_lines_per_s`, value: Math.round(n / s), unit: "lines/s" });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
