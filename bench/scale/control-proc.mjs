// The control of the `scale` benchmark: a bare node:http server answering a fixed JSON-RPC reply of the same size
// class as stack_syncStatus, in its own process (machine noise shows here as well). Prints "READY <port>".
import { createServer } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";

const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
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
    process.send({ p99: h.percentile(99) / 1e6, max: h.max / 1e6 });
    h.reset();
  });
}
process.on("SIGTERM", () => server.close(() => process.exit(0)));
