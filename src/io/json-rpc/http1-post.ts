import { connect, type Socket } from "node:net";
import { ResponseTooLargeError } from "../common/response-limit.js";
import { type PostResult, PostTimeoutError } from "./http-post.js";

/**
 * A lean HTTP/1.1 POST for plain `http:` JSON-RPC endpoints the node calls thousands of times a second (the
 * Engine API on the auth port during catch-up): keep-alive sockets of our own, the request written as one string
 * (request line, headers and body in one socket write), the response parsed here (status line, headers,
 * `content-length`, `transfer-encoding: chunked`, or a body up to the close). About half the CPU per request of
 * node:http's client on loopback. Same contract as `postText`: resolves with the status and body text; rejects
 * with the network error, the signal's reason when `signal` aborts, a PostTimeoutError after `timeoutMs`, or a
 * ResponseTooLargeError (connection destroyed) once the body, announced or received, exceeds `maxBytes`.
 * Not for `https:` (callers use `postText` there).
 */

const MAX_SOCKETS = 16;
const MAX_HEAD = 64 * 1024;
const CRLFCRLF = Buffer.from("\r\n\r\n");

interface Target {
  readonly host: string;
  readonly port: number;
  /** `POST <path> HTTP/1.1\r\nHost: <host>\r\n` */
  readonly prefix: string;
  readonly idle: Conn[];
  open: number;
  readonly waiting: (() => void)[];
}

const targets = new Map<string, Target>();

function targetOf(url: string): Target {
  let t = targets.get(url);
  if (t === undefined) {
    const u = new URL(url);
    if (u.protocol !== "http:") throw new Error(`lean HTTP/1.1 POST supports http: only, got ${u.protocol}`);
    const host = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
    const auth =
      u.username === ""
        ? ""
        : `Authorization: Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}\r\n`;
    t = {
      host,
      port: u.port === "" ? 80 : Number(u.port),
      prefix: `POST ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n${auth}`,
      idle: [],
      open: 0,
      waiting: [],
    };
    if (targets.size > 256) targets.clear();
    targets.set(url, t);
  }
  return t;
}

type Phase = "head" | "fixed" | "chunk-size" | "chunk-data" | "chunk-crlf" | "trailers" | "until-close";

interface Exchange {
  readonly resolve: (r: PostResult) => void;
  readonly reject: (e: Error) => void;
  phase: Phase;
  status: number;
  keepAlive: boolean;
  /** Bytes still expected in the current fixed body or chunk. */
  remaining: number;
  readonly body: Buffer[];
  /** Body bytes received so far, and the bound on them. */
  size: number;
  readonly maxBytes: number;
}

class Conn {
  readonly sock: Socket;
  private buf: Buffer | undefined;
  private ex: Exchange | undefined;
  private dead = false;

  constructor(private readonly t: Target) {
    this.sock = connect({ host: t.host, port: t.port });
    this.sock.setNoDelay(true);
    t.open++;
    this.sock.on("data", (d: Buffer) => this.onData(d));
    this.sock.on("end", () => this.onClose());
    this.sock.on("close", () => this.onClose());
    this.sock.on("error", (err) => this.onClose(err));
  }

  get usable(): boolean {
    return !this.dead && !this.sock.destroyed;
  }

  send(head: string, body: string, ex: Exchange): void {
    this.ex = ex;
    this.buf = undefined;
    this.sock.ref();
    this.sock.write(`${head}${body}`, "utf8");
  }

  destroy(err: Error): void {
    this.sock.destroy();
    this.onClose(err);
  }

  private onClose(err?: Error): void {
    if (!this.dead) {
      this.dead = true;
      this.t.open--;
      const i = this.t.idle.indexOf(this);
      if (i >= 0) this.t.idle.splice(i, 1);
      if (!this.sock.destroyed) this.sock.destroy();
      this.t.waiting.shift()?.();
    }
    const ex = this.ex;
    if (ex === undefined) return;
    this.ex = undefined;
    if (ex.phase === "until-close" && err === undefined) {
      ex.resolve({ status: ex.status, text: Buffer.concat(ex.body).toString("utf8") });
      return;
    }
    ex.reject(
      err ?? Object.assign(new Error("socket closed before the response was complete"), { code: "ECONNRESET" }),
    );
  }

  private fail(msg: string): void {
    this.destroy(new Error(`bad HTTP response: ${msg}`));
  }

  private onData(d: Buffer): void {
    const ex = this.ex;
    if (ex === undefined) {
      this.destroy(new Error("unexpected data on an idle connection"));
      return;
    }
    const b = this.buf === undefined ? d : Buffer.concat([this.buf, d]);
    this.buf = undefined;
    let at = 0;
    while (this.ex === ex) {
      if (ex.phase === "head") {
        const end = b.indexOf(CRLFCRLF, at);
        if (end < 0) {
          if (b.length - at > MAX_HEAD) {
            this.fail("header section too large");
            return;
          }
          break;
        }
        if (!this.parseHead(ex, b.toString("latin1", at, end))) return;
        at = end + 4;
        continue;
      }
      if (ex.phase === "until-close") {
        if (at < b.length && !this.take(ex, b.subarray(at))) return;
        at = b.length;
        break;
      }
      if (ex.phase === "fixed" || ex.phase === "chunk-data") {
        const n = Math.min(ex.remaining, b.length - at);
        if (n > 0 && !this.take(ex, b.subarray(at, at + n))) return;
        at += n;
        ex.remaining -= n;
        if (ex.remaining > 0) break;
        if (ex.phase === "fixed") {
          this.finish(ex);
          break;
        }
        ex.phase = "chunk-crlf";
        continue;
      }
      // Line-oriented phases: chunk size, the CRLF after a chunk, trailers.
      const eol = b.indexOf("\r\n", at, "latin1");
      if (eol < 0) {
        if (b.length - at > MAX_HEAD) {
          this.fail("chunk line too long");
          return;
        }
        break;
      }
      const line = b.toString("latin1", at, eol);
      at = eol + 2;
      if (ex.phase === "chunk-crlf") {
        if (line !== "") {
          this.fail("missing CRLF after a chunk");
          return;
        }
        ex.phase = "chunk-size";
      } else if (ex.phase === "chunk-size") {
        const size = Number.parseInt(line.split(";")[0]!.trim(), 16);
        if (!Number.isSafeInteger(size) || size < 0) {
          this.fail("bad chunk size");
          return;
        }
        if (size === 0) ex.phase = "trailers";
        else if (ex.size + size > ex.maxBytes) {
          this.destroy(new ResponseTooLargeError(ex.maxBytes));
          return;
        } else {
          ex.phase = "chunk-data";
          ex.remaining = size;
        }
      } else if (line === "") {
        this.finish(ex);
        break;
      }
    }
    if (this.ex === ex && at < b.length) this.buf = b.subarray(at);
    else if (this.ex !== ex && at < b.length && !this.dead) this.destroy(new Error("data after the response"));
  }

  /** Status line and headers; false when the connection was failed. */
  private parseHead(ex: Exchange, head: string): boolean {
    const lines = head.split("\r\n");
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? "");
    if (m === null) {
      this.fail("bad status line");
      return false;
    }
    const status = Number(m[2]);
    if (status >= 100 && status < 200 && status !== 101) return true; // interim response: the real one follows
    let length: number | undefined;
    let chunked = false;
    let connection = "";
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i]!;
      const c = l.indexOf(":");
      if (c <= 0) continue;
      const name = l.slice(0, c).trim().toLowerCase();
      const value = l.slice(c + 1).trim();
      if (name === "content-length") length = Number(value);
      else if (name === "transfer-encoding") chunked = value.toLowerCase().split(",").pop()?.trim() === "chunked";
      else if (name === "connection") connection = value.toLowerCase();
    }
    ex.status = status;
    ex.keepAlive = m[1] === "1" ? !connection.includes("close") : connection.includes("keep-alive");
    if (status === 204 || status === 304) {
      this.finish(ex);
    } else if (chunked) {
      ex.phase = "chunk-size";
    } else if (length !== undefined) {
      if (!Number.isSafeInteger(length) || length < 0) {
        this.fail("bad content-length");
        return false;
      }
      if (length > ex.maxBytes) {
        this.destroy(new ResponseTooLargeError(ex.maxBytes));
        return false;
      }
      ex.phase = "fixed";
      ex.remaining = length;
      if (length === 0) this.finish(ex);
    } else {
      ex.phase = "until-close";
      ex.keepAlive = false;
    }
    return true;
  }

  /** Keeps a body slice; false (connection destroyed) once the body exceeds its bound. */
  private take(ex: Exchange, part: Buffer): boolean {
    ex.size += part.length;
    if (ex.size > ex.maxBytes) {
      ex.body.length = 0;
      this.destroy(new ResponseTooLargeError(ex.maxBytes));
      return false;
    }
    ex.body.push(part);
    return true;
  }

  private finish(ex: Exchange): void {
    this.ex = undefined;
    const text = ex.body.length === 1 ? ex.body[0]!.toString("utf8") : Buffer.concat(ex.body).toString("utf8");
    if (ex.keepAlive && this.usable) {
      this.sock.unref();
      this.t.idle.push(this);
      this.t.waiting.shift()?.();
    } else {
      this.destroy(new Error("closed"));
    }
    ex.resolve({ status: ex.status, text });
  }
}

async function acquire(t: Target): Promise<Conn> {
  for (;;) {
    const c = t.idle.pop();
    if (c !== undefined) {
      if (c.usable) return c;
      continue;
    }
    if (t.open < MAX_SOCKETS) return new Conn(t);
    await new Promise<void>((r) => t.waiting.push(r));
  }
}

export async function postHttp1(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  signal?: AbortSignal,
  timeoutMs?: number,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<PostResult> {
  if (signal?.aborted) throw signal.reason;
  const t = targetOf(url);
  let head = t.prefix;
  for (const k in headers) {
    const v = headers[k]!;
    if (/[\r\n]/.test(k) || /[\r\n]/.test(v)) throw new TypeError(`invalid header ${k}`);
    head += `${k}: ${v}\r\n`;
  }
  head += `Content-Length: ${Buffer.byteLength(body, "utf8")}\r\n\r\n`;
  const conn = await acquire(t);
  return new Promise<PostResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => conn.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    const done = () => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const ex: Exchange = {
      resolve: (r) => {
        done();
        resolve(r);
      },
      reject: (e) => {
        done();
        reject(signal?.aborted ? signal.reason : e);
      },
      phase: "head",
      status: 0,
      keepAlive: true,
      remaining: 0,
      body: [],
      size: 0,
      maxBytes,
    };
    if (signal !== undefined) signal.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) timer = setTimeout(() => conn.destroy(new PostTimeoutError(timeoutMs)), timeoutMs);
    conn.send(head, body, ex);
  });
}
