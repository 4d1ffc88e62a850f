// Preloaded into third-party test peers (node --import) so that every socket they open binds to 127.0.0.1
// instead of a wildcard address (tests are loopback-only).
//
// `LOOPBACK_ANY_PORTS=<p>,<q>,…`: a listen or bind on one of these port numbers takes port 0 instead, a free port
// the kernel picks, and once bound, the actual port is written to standard error as
// `loopback-only: port <p> bound <actual>` (TCP) or `loopback-only: udp port <p> bound <actual>`. A test passes
// placeholder numbers on the peer's command line and reads the real ports back: no port is chosen free, closed
// and handed over (another process could take it meanwhile).
import dgram from "node:dgram";
import net from "node:net";

const WILDCARD = new Set(["0.0.0.0", "::", "", undefined]);
const ANY = new Set(
  (process.env.LOOPBACK_ANY_PORTS ?? "")
    .split(",")
    .filter((p) => p !== "")
    .map(Number),
);

/** The port a listen/bind call asks for (a number or numeric string first, or an options object). */
function requestedPort(args, key) {
  const a = args[0];
  if (typeof a === "object" && a !== null) return Number(a[key]);
  return Number(a);
}

/** Replaces a placeholder port by 0 and reports the bound port once listening; returns the placeholder or NaN. */
function takeAnyPort(args, key) {
  const p = requestedPort(args, key);
  if (!ANY.has(p)) return Number.NaN;
  if (typeof args[0] === "object" && args[0] !== null) args[0] = { ...args[0], [key]: 0 };
  else args[0] = 0;
  return p;
}

const origListen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const placeholder = takeAnyPort(args, "port");
  if (typeof args[0] === "object" && args[0] !== null && WILDCARD.has(args[0].host)) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  } else if (typeof args[0] === "number" && (typeof args[1] !== "string" || WILDCARD.has(args[1]))) {
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  }
  if (!Number.isNaN(placeholder)) {
    this.once("listening", () => {
      process.stderr.write(`loopback-only: port ${placeholder} bound ${this.address().port}\n`);
    });
  }
  return origListen.apply(this, args);
};
const origBind = dgram.Socket.prototype.bind;
dgram.Socket.prototype.bind = function (...args) {
  const placeholder = takeAnyPort(args, "port");
  if (typeof args[0] === "number" && (typeof args[1] !== "string" || WILDCARD.has(args[1]))) {
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  } else if (typeof args[0] === "object" && args[0] !== null && WILDCARD.has(args[0].address)) {
    args[0] = { ...args[0], address: "127.0.0.1" };
  }
  if (!Number.isNaN(placeholder)) {
    this.once("listening", () => {
      process.stderr.write(`loopback-only: udp port ${placeholder} bound ${this.address().port}\n`);
    });
  }
  return origBind.apply(this, args);
};
