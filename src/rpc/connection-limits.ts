import type { Server } from "node:http";
import type { Socket } from "node:net";

/** Connections past the global bound that still serve `/healthz` and `/readyz` (at most this, or the bound). */
export const HEALTH_RESERVE = 32;
export const DEFAULT_MAX_CONNECTIONS = 1024;
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 128;

export interface ConnectionLimits {
  /** Open connections at most that serve everything (0 = no bound). */
  readonly max: number;
  /** Open connections from one client address at most (0 = no bound). */
  readonly perClient: number;
}

/** An IPv4 client seen through a dual-stack socket (`::ffff:a.b.c.d`) counts as `a.b.c.d`. */
function clientOf(socket: Socket): string {
  const a = socket.remoteAddress ?? "";
  return a.startsWith("::ffff:") ? a.slice(7) : a;
}

/**
 * Counts the server's open connections, in all and per client address, as they are accepted. A client at its own
 * bound has further connections closed at once, so one address cannot take every slot; past the global bound a
 * few more (`HEALTH_RESERVE`) are accepted that serve only the health endpoints, so probes still get an answer
 * while the slots are full; beyond those, connections are closed at once. Returns whether a connection is one of
 * the reserve.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): (socket: Socket) => boolean {
  const reserveOnly = new WeakSet<Socket>();
  const byClient = new Map<string, number>();
  const reserve = Math.min(HEALTH_RESERVE, limits.max);
  let open = 0;
  server.on("connection", (socket: Socket) => {
    const who = clientOf(socket);
    const mine = byClient.get(who) ?? 0;
    if ((limits.perClient > 0 && mine >= limits.perClient) || (limits.max > 0 && open >= limits.max + reserve)) {
      socket.destroy();
      return;
    }
    if (limits.max > 0 && open >= limits.max) reserveOnly.add(socket);
    open++;
    byClient.set(who, mine + 1);
    socket.once("close", () => {
      open--;
      const left = (byClient.get(who) ?? 1) - 1;
      if (left === 0) byClient.delete(who);
      else byClient.set(who, left);
    });
  });
  return (socket) => reserveOnly.has(socket);
}

/** Whether a request target is one of the health endpoints (served on reserve connections too). */
export function isHealthPath(url: string): boolean {
  const path = url.split("?")[0] ?? "";
  return path === "/healthz" || path === "/readyz" || path === "/healthz/" || path === "/readyz/";
}
