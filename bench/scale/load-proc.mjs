// The load client of the `scale` benchmark, in its own process: keep-alive HTTP, one request every `intervalMs`
// alternating over the targets (stack_syncStatus of every chain, round robin) and the control server, for
// `durationMs`. Prints one JSON line: latencies (ms) of both, and the failures (HTTP errors and JSON-RPC errors).
// Usage: node load-proc.mjs <json {targets: string[], control: string, durationMs, intervalMs}>
import { Agent, request } from "node:http";

const cfg = JSON.parse(process.argv[2]);
// Ends with the bench however it ends (the bench holds the IPC channel's other end); never kept alive by it.
process.channel?.unref();
process.on("disconnect", () => process.exit(0));
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "stack_syncStatus", params: [] });

function post(url) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": body.length } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          let ok = res.statusCode === 200;
          try {
            const j = JSON.parse(Buffer.concat(chunks).toString());
            if (j.error !== undefined || j.result === undefined) ok = false;
          } catch {
            ok = false;
          }
          resolve({ ms, ok });
        });
      },
    );
    req.on("error", () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, ok: false }));
    req.end(body);
  });
}

const sn = [];
const control = [];
// cfg.trace: also the send time (the machine's monotonic clock, ms) of every request, to match slow ones against
// the supernode's loop stalls and GC pauses (probe.mjs, SCALE_TRACE)
const snAt = [];
const controlAt = [];
const mono = () => Number(process.hrtime.bigint()) / 1e6;
let failures = 0;
let i = 0;
const end = Date.now() + cfg.durationMs;
while (Date.now() < end) {
  const next = Date.now() + cfg.intervalMs;
  const t = mono();
  const r = await post(cfg.targets[i++ % cfg.targets.length]);
  if (r.ok) {
    sn.push(r.ms);
    if (cfg.trace) snAt.push(t);
  } else failures++;
  const tc = mono();
  control.push((await post(cfg.control)).ms);
  if (cfg.trace) controlAt.push(tc);
  const wait = next - Date.now();
  if (wait > 0) await new Promise((res) => setTimeout(res, wait));
}
process.stdout.write(
  `${JSON.stringify(cfg.trace ? { sn, control, failures, snAt, controlAt } : { sn, control, failures })}\n`,
);
agent.destroy();
