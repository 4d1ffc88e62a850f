import type { Server } from "node:http";

/** Binds `server` to `addr:port` (port 0 = any free port) and resolves to the port it got. */
export async function listenHttp(server: Server, port: number, addr: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, addr, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address();
  return typeof bound === "object" && bound !== null ? bound.port : port;
}

/** `http://host:port` with an IPv6 host in brackets. */
export function httpOrigin(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * Stops accepting connections and resolves once the server is closed: idle connections are closed at once, busy
 * ones after `forceAfterMs` (0 = at once).
 */
export async function closeHttp(server: Server, forceAfterMs: number): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    if (forceAfterMs <= 0) {
      server.closeAllConnections();
      return;
    }
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), forceAfterMs).unref();
  });
}

/** A listening `node:http` server: where it is bound, the URL of its endpoint, and how it closes. */
export class HttpEndpoint {
  readonly #server: Server;
  readonly #path: string;
  readonly #forceCloseAfterMs: number;

  /** `path`: the endpoint's path in `url`; `forceCloseAfterMs`: see {@link closeHttp}. */
  protected constructor(
    server: Server,
    readonly host: string,
    readonly port: number,
    path: string,
    forceCloseAfterMs: number,
  ) {
    this.#server = server;
    this.#path = path;
    this.#forceCloseAfterMs = forceCloseAfterMs;
  }

  get url(): string {
    return `${httpOrigin(this.host, this.port)}${this.#path}`;
  }

  async close(): Promise<void> {
    await closeHttp(this.#server, this.#forceCloseAfterMs);
  }
}
