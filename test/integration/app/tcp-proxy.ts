import { createServer, type Server, type Socket, connect } from "node:net";

/**
 * A loopback TCP proxy in front of an execution client's Engine API port. `down()` cuts every connection and
 * refuses new ones (the client looks dead); `up()` lets traffic through again.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #up = true;
  readonly port: number;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(targetUrl: string): Promise<TcpProxy> {
    const target = new URL(targetUrl);
    let self: TcpProxy | undefined;
    const server = createServer((client) => {
      if (self === undefined || !self.#up) {
        client.destroy();
        return;
      }
      const upstream = connect(Number(target.port), target.hostname);
      const sockets = self.#sockets;
      sockets.add(client);
      sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    self = new TcpProxy(server, (server.address() as { port: number }).port);
    return self;
  }

  down(): void {
    this.#up = false;
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  up(): void {
    this.#up = true;
  }

  async close(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
