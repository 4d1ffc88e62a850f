import { type AddressInfo, createServer, type Server, type Socket } from "node:net";

/**
 * A small HTTP/1.1 server for the simulated EL's JSON-RPC ports, lean per request (the Engine API sees thousands
 * of calls a second in catch-up; node:http's server costs several times the JSON-RPC work itself): keep-alive,
 * requests handled one at a time per connection in arrival order (pipelined requests queue), bodies by
 * `content-length` or `transfer-encoding: chunked`, `expect: 100-continue`, one socket write per response.
 */

export interface Http1Request {
  readonly method: string;
  readonly path: string;
  /** Lower-cased header names; repeated headers keep the last value. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface Http1Response {
  readonly status: number;
  readonly contentType?: string;
  /** Further response headers (e.g. CORS). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

export type Http1Handler = (req: Http1Request) => Http1Response | Promise<Http1Response>;

const MAX_HEAD = 64 * 1024;
const IDLE_MS = 72_000;
const CRLFCRLF = Buffer.from("\r\n\r\n");
const REASONS: Record<number, string> = {
  200: "OK",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
};

interface Pending {
  method: string;
  path: string;
  headers: Record<string, string>;
  keepAlive: boolean;
  phase: "fixed" | "chunk-size" | "chunk-data" | "chunk-crlf" | "trailers";
  remaining: number;
  body: Buffer[];
  size: number;
}

class Conn {
  private buf: Buffer | undefined;
  private req: Pending | undefined;
  private readonly ready: { req: Http1Request; keepAlive: boolean }[] = [];
  private busy = false;
  private closing = false;

  constructor(
    private readonly sock: Socket,
    private readonly handler: Http1Handler,
    private readonly bodyLimit: number,
  ) {
    sock.setNoDelay(true);
    sock.setTimeout(IDLE_MS, () => sock.destroy());
    sock.on("data", (d: Buffer) => this.onData(d));
    sock.on("error", () => sock.destroy());
  }

  private reply(res: Http1Response, keepAlive: boolean): void {
    if (this.sock.destroyed) return;
    const len = Buffer.byteLength(res.body, "utf8");
    const type = res.contentType === undefined ? "" : `Content-Type: ${res.contentType}\r\n`;
    const conn = keepAlive ? "" : "Connection: close\r\n";
    let extra = "";
    if (res.headers !== undefined) for (const [k, v] of Object.entries(res.headers)) extra += `${k}: ${v}\r\n`;
    this.sock.write(
      `HTTP/1.1 ${res.status} ${REASONS[res.status] ?? "Status"}\r\n${type}${extra}Content-Length: ${len}\r\n${conn}\r\n${res.body}`,
      "utf8",
    );
    if (!keepAlive) this.sock.end();
  }

  /** Answers and closes (a request we cannot read further). */
  private refuse(status: number, text: string): void {
    this.closing = true;
    this.ready.length = 0;
    this.reply({ status, contentType: "text/plain; charset=utf-8", body: `${text}\n` }, false);
    this.sock.destroySoon();
  }

  private onData(d: Buffer): void {
    if (this.closing) return;
    const b = this.buf === undefined ? d : Buffer.concat([this.buf, d]);
    this.buf = undefined;
    let at = 0;
    while (at < b.length && !this.closing) {
      const r = this.req;
      if (r === undefined) {
        const end = b.indexOf(CRLFCRLF, at);
        if (end < 0) {
          if (b.length - at > MAX_HEAD) {
            this.refuse(431, "request header section too large");
            return;
          }
          break;
        }
        const ok = this.startRequest(b.toString("latin1", at, end));
        at = end + 4;
        if (!ok) return;
        continue;
      }
      if (r.phase === "fixed" || r.phase === "chunk-data") {
        const n = Math.min(r.remaining, b.length - at);
        r.body.push(b.subarray(at, at + n));
        r.size += n;
        at += n;
        r.remaining -= n;
        if (r.size > this.bodyLimit) {
          this.refuse(413, "request body too large");
          return;
        }
        if (r.remaining > 0) break;
        if (r.phase === "fixed") this.complete(r);
        else r.phase = "chunk-crlf";
        continue;
      }
      const eol = b.indexOf("\r\n", at, "latin1");
      if (eol < 0) {
        if (b.length - at > MAX_HEAD) {
          this.refuse(400, "chunk line too long");
          return;
        }
        break;
      }
      const line = b.toString("latin1", at, eol);
      at = eol + 2;
      if (r.phase === "chunk-crlf") {
        if (line !== "") {
          this.refuse(400, "missing CRLF after a chunk");
          return;
        }
        r.phase = "chunk-size";
      } else if (r.phase === "chunk-size") {
        const size = Number.parseInt(line.split(";")[0]!.trim(), 16);
        if (!Number.isSafeInteger(size) || size < 0) {
          this.refuse(400, "bad chunk size");
          return;
        }
        if (size === 0) r.phase = "trailers";
        else {
          r.phase = "chunk-data";
          r.remaining = size;
        }
      } else if (line === "") {
        this.complete(r);
      }
    }
    if (at < b.length && !this.closing) this.buf = b.subarray(at);
    this.pump();
  }

  /** Parses a request head; false when the connection was refused. */
  private startRequest(head: string): boolean {
    const lines = head.split("\r\n");
    const m = /^([A-Z]+) (\S+) HTTP\/1\.([01])$/.exec(lines[0] ?? "");
    if (m === null) {
      this.refuse(400, "bad request line");
      return false;
    }
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i]!;
      const c = l.indexOf(":");
      if (c <= 0) continue;
      headers[l.slice(0, c).trim().toLowerCase()] = l.slice(c + 1).trim();
    }
    const connection = (headers.connection ?? "").toLowerCase();
    const keepAlive = m[3] === "1" ? !connection.includes("close") : connection.includes("keep-alive");
    const te = headers["transfer-encoding"];
    const chunked = te !== undefined && te.toLowerCase().split(",").pop()?.trim() === "chunked";
    if (te !== undefined && !chunked) {
      this.refuse(501, "unsupported transfer-encoding");
      return false;
    }
    const length = headers["content-length"] === undefined ? 0 : Number(headers["content-length"]);
    if (!Number.isSafeInteger(length) || length < 0) {
      this.refuse(400, "bad content-length");
      return false;
    }
    if (length > this.bodyLimit) {
      this.refuse(413, "request body too large");
      return false;
    }
    if ((headers.expect ?? "").toLowerCase() === "100-continue") this.sock.write("HTTP/1.1 100 Continue\r\n\r\n");
    const r: Pending = {
      method: m[1]!,
      path: m[2]!,
      headers,
      keepAlive,
      phase: chunked ? "chunk-size" : "fixed",
      remaining: length,
      body: [],
      size: 0,
    };
    if (!chunked && length === 0) this.complete(r);
    else this.req = r;
    return true;
  }

  private complete(r: Pending): void {
    this.req = undefined;
    const body = r.body.length === 1 ? r.body[0]!.toString("utf8") : Buffer.concat(r.body).toString("utf8");
    this.ready.push({ req: { method: r.method, path: r.path, headers: r.headers, body }, keepAlive: r.keepAlive });
    if (!r.keepAlive) this.closing = true;
  }

  /** Handles queued requests one at a time, answering in order. */
  private pump(): void {
    if (this.busy) return;
    const next = this.ready.shift();
    if (next === undefined) return;
    this.busy = true;
    const { req, keepAlive } = next;
    const done = (res: Http1Response) => {
      this.reply(res, keepAlive);
      this.busy = false;
      this.pump();
    };
    let out: Http1Response | Promise<Http1Response>;
    try {
      out = this.handler(req);
    } catch (err) {
      done(internalError(err));
      return;
    }
    if (out instanceof Promise) out.then(done, (err: unknown) => done(internalError(err)));
    else done(out);
  }
}

function internalError(err: unknown): Http1Response {
  return {
    status: 500,
    contentType: "text/plain; charset=utf-8",
    body: `${err instanceof Error ? err.message : String(err)}\n`,
  };
}

/** Listens on `addr:port` (0: any free port); `close` destroys open connections. */
export async function listenHttp1(
  addr: string,
  port: number,
  handler: Http1Handler,
  bodyLimit: number,
): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    new Conn(sock, handler, bodyLimit);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, addr, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      }),
  };
}
