// The floor control's client (bench/derivation/floor.ts), in a process of its own so that its sockets and buffers do
// not change the feedback V8 keeps for the node's own code in the bench process. Over one keep-alive loopback
// connection to floor-peer.mjs it sends a prebuilt request of --request-bytes bytes in all and waits for the whole
// answer (its head, then its content-length), --warmup times unmeasured, then --trips times; prints one JSON line with
// the CPU microseconds (user + system, every thread of this process) the measured trips used and the bytes they
// sent and received. No JSON per trip.
import net from "node:net";
import { messageOf, numberArg } from "./floor-http.mjs";

const arg = (name) => numberArg("floor-client", name);
const port = arg("--port");
const request = messageOf(
  "floor-client",
  "POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ",
  arg("--request-bytes"),
  0x62,
);

const socket = net.connect(port, "127.0.0.1");
socket.setNoDelay(true);
await new Promise((resolve, reject) => {
  socket.once("connect", resolve);
  socket.once("error", reject);
});
let need = -1;
let got = 0;
let received = 0;
let done;
socket.on("error", (e) => {
  console.error(`floor-client: ${e.message}`);
  process.exit(1);
});
socket.on("data", (chunk) => {
  got += chunk.length;
  received += chunk.length;
  if (need < 0) {
    const end = chunk.indexOf("\r\n\r\n");
    if (end < 0) throw new Error("floor-client: the answer's head came in pieces");
    const m = /content-length: (\d+)/.exec(chunk.toString("latin1", 0, end));
    if (m === null) throw new Error("floor-client: no content-length");
    need = end + 4 + Number(m[1]);
  }
  if (got < need) return;
  if (got > need) throw new Error("floor-client: more bytes than one answer");
  need = -1;
  got = 0;
  done();
});
const trips = async (n) => {
  for (let i = 0; i < n; i++) {
    await new Promise((resolve) => {
      done = resolve;
      socket.write(request);
    });
  }
};
await trips(arg("--warmup"));
const n = arg("--trips");
received = 0;
const u0 = process.cpuUsage();
await trips(n);
const u = process.cpuUsage(u0);
console.log(JSON.stringify({ cpuUs: u.user + u.system, sent: n * request.length, received }));
socket.destroy();
