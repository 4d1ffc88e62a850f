// The floor control's peer (bench/derivation/floor.ts): a minimal HTTP/1.1 keep-alive server in its own process.
// For each request (read by its content-length) it keeps its CPU busy for --busy-us microseconds, as the execution
// client is while it executes a block, then answers with --response-bytes bytes in all (head and body). No JSON.
// Prints its port on stdout. Plain JavaScript: it runs without tsx.
import net from "node:net";
import { messageOf, numberArg } from "./floor-http.mjs";

// Ends with the bench however it ends (the bench holds the IPC channel's other end); never kept alive by it.
process.channel?.unref();
process.on("disconnect", () => process.exit(0));

const busyMs = numberArg("floor-peer", "--busy-us") / 1000;
const response = messageOf(
  "floor-peer",
  "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ",
  numberArg("floor-peer", "--response-bytes"),
  0x61,
);
const HEAD_END = Buffer.from("\r\n\r\n", "latin1");

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  let pending = Buffer.alloc(0);
  socket.on("data", (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const end = pending.indexOf(HEAD_END);
      if (end < 0) return;
      const m = /content-length:\s*(\d+)/i.exec(pending.toString("latin1", 0, end));
      const total = end + 4 + (m === null ? 0 : Number(m[1]));
      if (pending.length < total) return;
      pending = pending.subarray(total);
      const until = performance.now() + busyMs;
      while (performance.now() < until);
      socket.write(response);
    }
  });
  socket.on("error", () => socket.destroy());
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.on("SIGTERM", () => process.exit(0));
