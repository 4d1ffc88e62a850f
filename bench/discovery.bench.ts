/**
 * Discovery (discv5) benchmark, 16 chains in one process on 127.0.0.1, op-node's pacing (lookups and connect ticks
 * every 5 s while a chain has fewer than `p2p.peers.lo` peers, which is always the case here):
 * - `discovery_start_ms_per_chain` / `discovery_start_cpu_ms_per_chain`: wall and CPU time of starting a chain's
 *   host with discovery minus the same without discovery (control: `host_start_ms_per_chain`, a host without it).
 * - `idle_cpu_pct_16_nodisc`: process CPU (% of one core) of 16 idle hosts without discovery (the control), and
 *   `idle_cpu_pct_16_disc`: the same 16 chains with discovery, every chain's table seeded from the others (16
 *   different chain IDs, so lookups keep running and nothing is dialled). `idle_cpu_ratio` = disc / nodisc.
 *   Measured after a warm-up whose CPU is `warmup_cpu_pct_16_*` (240 discv5 sessions forming, tables filling).
 * - `discovery_dropped_packets`: inbound packets the rate limit dropped over all 16 chains (ADR 0076); the 15 peers
 *   of each chain share 127.0.0.1, so this shows the limit leaves ordinary traffic alone (expected 0).
 * - `load_avg_1m`: the machine's load at the end (other sessions share it).
 * Environment: `DISCOVERY_BENCH_WARMUP_S` (default 30), `DISCOVERY_BENCH_WINDOW_S` (default 20).
 */
import { loadavg } from "node:os";
import { P2PRig, type RigHost } from "../test/integration/p2p/rig.js";
import { type Bench, note } from "./harness.js";

const CHAINS = 16;
const windowS = Number(process.env.DISCOVERY_BENCH_WINDOW_S ?? 20);
const warmupS = Number(process.env.DISCOVERY_BENCH_WARMUP_S ?? 30);
const signer = () => undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startAll(rig: P2PRig, discovery: boolean): Promise<{ hosts: RigHost[]; wallMs: number; cpuMs: number }> {
  const hosts: RigHost[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let first: string | undefined;
  for (let i = 0; i < CHAINS; i++) {
    const h = await rig.host(BigInt(901 + i), {
      signer,
      noDiscovery: !discovery,
      bootnodes: first === undefined ? [] : [first],
    });
    first ??= h.p2p.discovery?.enrText();
    hosts.push(h);
  }
  const wallMs = performance.now() - t0;
  const d = process.cpuUsage(cpu0);
  return { hosts, wallMs, cpuMs: (d.user + d.system) / 1000 };
}

/** CPU (% of one core) during the warm-up (sessions and tables forming) and then while idle. */
async function cpuPct(): Promise<{ warmup: number; idle: number }> {
  const pct = async (s: number): Promise<number> => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(s * 1000);
    const d = process.cpuUsage(cpu0);
    return ((d.user + d.system) / 1000 / (performance.now() - t0)) * 100;
  };
  const warmup = await pct(warmupS);
  return { warmup, idle: await pct(windowS) };
}

const bench: Bench = {
  name: "discovery",
  async run(report) {
    const round = (x: number) => Math.round(x * 100) / 100;
    const plain = new P2PRig();
    const a = await startAll(plain, false);
    note(`16 hosts without discovery started in ${a.wallMs.toFixed(0)} ms`);
    const nodisc = await cpuPct();
    await plain.closeAll();

    const disc = new P2PRig();
    const b = await startAll(disc, true);
    note(`16 hosts with discovery started in ${b.wallMs.toFixed(0)} ms`);
    const withDisc = await cpuPct();
    const table = b.hosts.map((h) => h.p2p.discovery?.table().length ?? 0);
    const dropped = b.hosts.reduce((sum, h) => sum + (h.p2p.discovery?.limiter?.dropped ?? 0), 0);
    note(`table sizes: ${table.join(",")}`);
    await disc.closeAll();

    report({ figure: "host_start_ms_per_chain", value: round(a.wallMs / CHAINS), unit: "ms" });
    report({ figure: "discovery_start_ms_per_chain", value: round((b.wallMs - a.wallMs) / CHAINS), unit: "ms" });
    report({ figure: "discovery_start_cpu_ms_per_chain", value: round((b.cpuMs - a.cpuMs) / CHAINS), unit: "ms" });
    report({ figure: "warmup_cpu_pct_16_nodisc", value: round(nodisc.warmup), unit: "%" });
    report({ figure: "warmup_cpu_pct_16_disc", value: round(withDisc.warmup), unit: "%" });
    report({ figure: "idle_cpu_pct_16_nodisc", value: round(nodisc.idle), unit: "%" });
    report({ figure: "idle_cpu_pct_16_disc", value: round(withDisc.idle), unit: "%" });
    report({ figure: "idle_cpu_ratio", value: round(withDisc.idle / nodisc.idle), unit: "x" });
    report({ figure: "discovery_table_min", value: Math.min(...table), unit: "records" });
    report({ figure: "discovery_dropped_packets", value: dropped, unit: "packets" });
    report({ figure: "load_avg_1m", value: round(loadavg()[0] ?? 0), unit: "" });
  },
};
export default bench;
