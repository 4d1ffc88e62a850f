// The control of the `scale` benchmark: a bare node:http server answering a fixed JSON-RPC reply of the same size
// class as stack_syncStatus, in its own process (machine noise shows here as well). Prints "READY <port>".
import { createServer } from "node:http";
import { createHistogram, monitorEventLoopDelay } from "node:perf_hooks";

// Ends with the bench however it ends: the bench holds the IPC channel's other end.
process.on("disconnect", () => process.exit(0));

const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
// process CPU (µs) between two ticks of a 1-ms timer, as in probe.mjs
const cpuHist = createHistogram();
let lastCpu = process.cpuUsage();
const tick = () => {
  const c = process.cpuUsage();
  cpuHist.record(Math.max(1, c.user + c.system - lastCpu.user - lastCpu.system));
  lastCpu = c;
  setTimeout(tick, 1).unref();
};
setTimeout(tick, 1).unref();
const reply = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { padding: "x".repeat(1500) } });
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) });
    res.end(reply);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`READY ${server.address().port}\n`));
if (typeof process.send === "function") {
  process.on("message", (msg) => {
    if (msg !== "stats") return;
    process.send({ p99: h.percentile(99) / 1e6, max: h.max / 1e6, cpuP99: cpuHist.percentile(99) / 1000 });
    h.reset();
    cpuHist.reset();
  });
}
process.on("SIGTERM", () => server.close(() => process.exit(0)));
