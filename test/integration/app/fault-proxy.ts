import { createServer, type Server, type Socket, connect } from "node:net";

/**
 * A loopback TCP proxy in front of an execution client's Engine API port, for fault injection:
 * - `refuse()`: cuts every connection and refuses new ones (connection refused / reset);
 * - `freeze()`: accepts connections and never answers (a hung client);
 * - `retarget(url)`: sends new connections to another client (e.g. one that came back wiped);
 * - `pass()`: normal forwarding again.
 */
export class FaultProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #mode: "pass" | "refuse" | "freeze" = "pass";
  #target: URL;
  readonly port: number;

  private constructor(server: Server, port: number, target: URL) {
    this.#server = server;
    this.port = port;
    this.#target = target;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(targetUrl: string): Promise<FaultProxy> {
    let self: FaultProxy | undefined;
    const server = createServer((client) => {
      if (self === undefined || self.#mode === "refuse") {
        client.destroy();
        return;
      }
      const sockets = self.#sockets;
      sockets.add(client);
      client.on("error", () => client.destroy()).on("close", () => sockets.delete(client));
      if (self.#mode === "freeze") return; // read nothing, answer nothing
      const upstream = connect(Number(self.#target.port), self.#target.hostname);
      sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on("close", drop);
      upstream.on("error", drop).on("close", drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    self = new FaultProxy(server, (server.address() as { port: number }).port, new URL(targetUrl));
    return self;
  }

  #cut(): void {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  refuse(): void {
    this.#mode = "refuse";
    this.#cut();
  }

  freeze(): void {
    this.#mode = "freeze";
    this.#cut();
  }

  retarget(url: string): void {
    this.#target = new URL(url);
    this.#cut();
  }

  pass(): void {
    this.#mode = "pass";
    this.#cut();
  }

  async close(): Promise<void> {
    this.refuse();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
