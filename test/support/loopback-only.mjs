// Preloaded into third-party test peers (node --import) so that every socket they open binds to 127.0.0.1
// instead of a wildcard address (tests are loopback-only).
import dgram from "node:dgram";
import net from "node:net";

const WILDCARD = new Set(["0.0.0.0", "::", "", undefined]);
const origListen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "object" && args[0] !== null && WILDCARD.has(args[0].host)) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  } else if (typeof args[0] === "number" && (typeof args[1] !== "string" || WILDCARD.has(args[1]))) {
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  }
  return origListen.apply(this, args);
};
const origBind = dgram.Socket.prototype.bind;
dgram.Socket.prototype.bind = function (...args) {
  if (typeof args[0] === "number" && (typeof args[1] !== "string" || WILDCARD.has(args[1]))) {
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  } else if (typeof args[0] === "object" && args[0] !== null && WILDCARD.has(args[0].address)) {
    args[0] = { ...args[0], address: "127.0.0.1" };
  }
  return origBind.apply(this, args);
};
