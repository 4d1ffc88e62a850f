import { Agent, request } from "node:http";
import Fastify from "fastify";
import { type ChainRpcView, type SyncStatus, ZERO_SYNC_STATUS } from "supernode/node";
import { silentLogger } from "supernode/core";
import { createMethodTable, createStackMethods, RpcServer, syncStatusJson } from "supernode/json-rpc";
import { createSupernodeMetrics } from "supernode";
import { type Bench, note } from "./harness.js";

/**
 * `stack_syncStatus` through the supernode's router (`POST /901/`: body parse, JSON-RPC dispatch, method table,
 * the production metrics observer) against a bare Fastify route returning the same JSON. Figure `mux_vs_bare` = the median over
 * alternating short rounds of mux req/s ÷ bare req/s (goal ≥ 0.8); the median of pairs resists load spikes from
 * other processes on a shared machine. Also `mux_vs_bare_cpu`: bare CPU time per request ÷ mux CPU time per request
 * (client and server share the process, so this counts both sides). Keep-alive HTTP/1.1 on loopback, a fixed
 * number of concurrent clients, fixed durations.
 */
const CONCURRENCY = 32;
const ROUND_MS = 750;
const ROUNDS = 10;

const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as const;
const ref = (n: number) => ({ hash: h(n), number: n, parentHash: h(n - 1), timestamp: 1_700_000_000 + n * 2 });
const l2 = (n: number) => ({ ...ref(n), l1origin: { hash: h(9000 + n), number: 9000 + n }, sequenceNumber: 1 });
const STATUS: SyncStatus = {
  ...ZERO_SYNC_STATUS,
  current_l1: ref(9100),
  head_l1: ref(9105),
  safe_l1: ref(9090),
  finalized_l1: ref(9080),
  unsafe_l2: l2(123_456),
  safe_l2: l2(123_400),
  local_safe_l2: l2(123_400),
  finalized_l2: l2(123_300),
  pending_safe_l2: l2(123_400),
};

const view = { syncStatus: () => STATUS } as unknown as ChainRpcView;
/** Requests answered with a JSON-RPC error (the benchmark fails on any). */
let failures = 0;
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "stack_syncStatus", params: [] });

async function load(port: number, path: string, ms: number): Promise<{ rate: number; cpuUsPerReq: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const deadline = performance.now() + ms;
  let done = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port, path, method: "POST", agent, headers: { "content-type": "application/json" } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
            // a JSON-RPC error (or no result) is a failure too, not a fast answer
            const body = JSON.parse(Buffer.concat(chunks).toString()) as { result?: unknown; error?: unknown };
            if (body.error !== undefined || body.result === undefined) {
              failures++;
              return reject(new Error(`JSON-RPC error: ${JSON.stringify(body.error)}`));
            }
            resolve();
          });
        },
      );
      req.on("error", reject);
      req.end(BODY);
    });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        await one();
        done++;
      }
    }),
  );
  const rate = done / ((performance.now() - t0) / 1000);
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return { rate, cpuUsPerReq: (cpu.user + cpu.system) / Math.max(1, done) };
}

const bench: Bench = {
  name: "rpc",
  async run(report) {
    const table = createStackMethods(view, { version: "bench" });
    const metrics = createSupernodeMetrics({ version: "bench", processMetrics: false });
    const mux = await RpcServer.listen(
      { addr: "127.0.0.1", port: 0, enableAdmin: false },
      {
        root: createMethodTable({}),
        chains: { tableOf: (id) => (id === "901" ? table : undefined), chainIds: () => ["901"] },
        readiness: () => ({ ready: true }),
        logger: silentLogger,
        // the production metrics observer (prom-client histogram + counter per call), as the supernode wires it
        observerFor: (chain) => metrics.rpcObserverFor(chain),
      },
    );
    const bare = Fastify({ logger: false });
    bare.post("/", async (req) => ({
      jsonrpc: "2.0",
      id: (req.body as { id: number }).id,
      result: syncStatusJson(STATUS),
    }));
    await bare.listen({ host: "127.0.0.1", port: 0 });
    const barePort = (bare.server.address() as { port: number }).port;
    try {
      await load(mux.port, "/901/", 300);
      await load(barePort, "/", 300);
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      let muxTotal = 0;
      let bareTotal = 0;
      for (let r = 0; r < ROUNDS; r++) {
        // alternate the order so neither side always runs second
        const first = r % 2 === 0;
        const m1 = first ? await load(mux.port, "/901/", ROUND_MS) : undefined;
        const b = await load(barePort, "/", ROUND_MS);
        const m = m1 ?? (await load(mux.port, "/901/", ROUND_MS));
        note(`round ${r + 1}: mux ${m.rate.toFixed(0)} req/s, bare ${b.rate.toFixed(0)} req/s`);
        ratios.push(m.rate / b.rate);
        cpuRatios.push(b.cpuUsPerReq / m.cpuUsPerReq);
        muxTotal += m.rate;
        bareTotal += b.rate;
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      report({ figure: "mux_req_per_s", value: Math.round(muxTotal / ROUNDS), unit: "req/s" });
      report({ figure: "bare_req_per_s", value: Math.round(bareTotal / ROUNDS), unit: "req/s" });
      report({ figure: "mux_vs_bare", value: Number(median(ratios).toFixed(3)), unit: "ratio" });
      report({ figure: "mux_vs_bare_cpu", value: Number(median(cpuRatios).toFixed(3)), unit: "ratio" });
      report({ figure: "json_rpc_failures", value: failures, unit: "calls" });
    } finally {
      await mux.close(500);
      await bare.close();
    }
  },
};
export default bench;
