/**
 * A hostile L1 and beacon: an HTTP proxy in front of anvil (JSON-RPC and the beacon endpoints share its port) that
 * forwards faithfully in mode `pass` and otherwise answers garbage, an oversized body (streamed, never held in
 * memory), a slow answer, or HTTP 500.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type HostileMode = "pass" | "garbage" | "oversized" | "slow" | "http500";

export class HostileProxy {
  mode: HostileMode = "pass";
  /** Requests answered in a hostile way. */
  hostile = 0;
  private readonly sockets = new Set<import("node:net").Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly oversizedBytes: number,
    private readonly slowMs: number,
  ) {
    server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  static async start(target: string, opts: { oversizedBytes: number; slowMs: number }): Promise<HostileProxy> {
    let self: HostileProxy | undefined;
    const server = createServer((req, res) => {
      void self?.handle(target, req, res).catch(() => res.destroy());
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as AddressInfo).port;
    self = new HostileProxy(server, `http://127.0.0.1:${port}`, opts.oversizedBytes, opts.slowMs);
    return self;
  }

  private async handle(target: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const mode = this.mode;
    if (mode !== "pass") this.hostile++;
    switch (mode) {
      case "garbage": {
        const junk = ['{"jsonrpc":"2.0","id":1,"result":{"number":"0xzz"}}', "<html>oops</html>", "{", "[]", "null"];
        res.writeHead(200, { "content-type": "application/json" });
        res.end(junk[this.hostile % junk.length]);
        return;
      }
      case "http500":
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("internal server error");
        return;
      case "oversized": {
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = Buffer.alloc(1 << 20, 0x61);
        res.write('{"jsonrpc":"2.0","id":1,"result":"');
        let sent = 0;
        const pump = () => {
          while (sent < this.oversizedBytes) {
            sent += chunk.length;
            if (!res.write(chunk)) {
              res.once("drain", pump);
              return;
            }
          }
          res.end('"}');
        };
        res.on("close", () => {
          sent = Number.POSITIVE_INFINITY;
        });
        pump();
        return;
      }
      case "slow":
        await new Promise((r) => setTimeout(r, this.slowMs));
        break;
      case "pass":
        break;
    }
    const headers: Record<string, string> = {};
    const ct = req.headers["content-type"];
    if (typeof ct === "string") headers["content-type"] = ct;
    const accept = req.headers.accept;
    if (typeof accept === "string") headers.accept = accept;
    try {
      const up = await fetch(`${target}${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        ...(req.method === "GET" || req.method === "HEAD" ? {} : { body }),
        signal: AbortSignal.timeout(30_000),
      });
      const buf = Buffer.from(await up.arrayBuffer());
      res.writeHead(up.status, { "content-type": up.headers.get("content-type") ?? "application/json" });
      res.end(buf);
    } catch {
      res.writeHead(502);
      res.end();
    }
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
