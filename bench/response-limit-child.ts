/**
 * Child process of response-limit.bench.ts: a loopback HTTP server streams BODY_MB of JSON-RPC text and the L1
 * client transport reads it with the given limit (or none); prints the peak RSS as JSON on stdout.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { postText } from "supernode/json-rpc";

const bodyMb = Number(process.argv[2] ?? 400);
const limit = process.argv[3] === "none" ? Number.POSITIVE_INFINITY : Number(process.argv[3]);
const chunk = Buffer.alloc(64 * 1024, 0x61);
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    let sent = 0;
    const total = bodyMb * 1024 * 1024;
    const pump = () => {
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  });
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
let outcome = "ok";
try {
  const r = await postText(url, "{}", {}, undefined, 600_000, limit);
  outcome = `ok ${r.text.length}`;
} catch (err) {
  outcome = (err as Error).name;
}
server.closeAllConnections();
server.close();
process.stdout.write(`${JSON.stringify({ outcome, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
process.exit(0);
