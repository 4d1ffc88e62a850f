import { connect, type Socket } from "node:net";
import { ResponseTooLargeError } from "../common/response-limit.js";
import type { PostResult } from "./result.js";
import { parseResponseHead } from "./head.js";
import { armSweep, type EndpointTarget, headerLines, targetOf } from "./target.js";

/**
 * A lean HTTP/1.1 POST for plain `http:` JSON-RPC endpoints the node calls thousands of times a second (the
 * Engine API on the auth port during catch-up): keep-alive sockets of our own, the request written as one buffer
 * (request line, headers and body in one socket write), the response parsed here (status line, headers,
 * `content-length`, `transfer-encoding: chunked`, or a body up to the close). About half the CPU per request of
 * node:http's client on loopback. Same contract as `postText`: resolves with the status and body text; rejects
 * with the network error, the signal's reason when `signal` aborts, a PostTimeoutError after `timeoutMs`, or a
 * ResponseTooLargeError (connection destroyed) once the body, announced or received, exceeds `maxBytes`.
 * Not for `https:` (callers use `postText` there). A `headers` object passed again must be unchanged: its header
 * lines are built once and reused while the same object comes back (pass a new object to change them).
 */

const MAX_SOCKETS = 16;
/** A connection keeps its request buffer for the next request up to this size (larger ones are allocated each time). */
const MAX_KEPT_REQUEST_BUFFER = 1024 * 1024;
const MAX_HEAD = 64 * 1024;
const CRLFCRLF = Buffer.from("\r\n\r\n");

type Target = EndpointTarget<Conn>;

type Phase = "head" | "fixed" | "chunk-size" | "chunk-data" | "chunk-crlf" | "trailers" | "until-close";

/** One request and its response being read. */
class Exchange {
  phase: Phase = "head";
  status = 0;
  keepAlive = true;
  /** Bytes still expected in the current fixed body or chunk. */
  remaining = 0;
  readonly body: Buffer[] = [];
  /** Body bytes received so far (bounded by `maxBytes`). */
  size = 0;
  /** The body, when it was decoded straight from one read. */
  text: string | undefined;
  resolve!: (r: PostResult) => void;
  reject!: (e: Error) => void;
  /** The abort listener, when a signal was given. */
  onAbort: (() => void) | undefined;

  constructor(
    readonly maxBytes: number,
    /** performance.now() past which the request fails (infinite without a timeout). */
    readonly deadline: number,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
  ) {}

  done(r: PostResult | undefined, e: Error | undefined): void {
    if (this.onAbort !== undefined) this.signal!.removeEventListener("abort", this.onAbort);
    if (e === undefined) this.resolve(r!);
    else this.reject(this.signal?.aborted ? this.signal.reason : e);
  }
}

class Conn {
  readonly sock: Socket;
  private buf: Buffer | undefined;
  private ex: Exchange | undefined;
  private dead = false;
  /** The request buffer, used again for a later request once the socket has written it (`writing` false). */
  private wbuf: Buffer | undefined;
  private writing = false;
  private readonly written = (): void => {
    this.writing = false;
  };

  constructor(private readonly t: Target) {
    // Reads go straight into a buffer of the target's and to onData, without node's stream machinery (a Buffer
    // and a stream push per read); whatever is kept past the callback is copied out of it.
    this.sock = connect({
      host: t.host,
      port: t.port,
      onread: {
        buffer: t.readBuffer,
        callback: (n: number, buf: Uint8Array): boolean => {
          this.onData(buf as Buffer, n);
          return true; // false would pause the socket
        },
      },
    });
    this.sock.setNoDelay(true);
    t.open++;
    this.sock.on("end", () => this.onClose());
    this.sock.on("close", () => this.onClose());
    this.sock.on("error", (err) => this.onClose(err));
  }

  get usable(): boolean {
    return !this.dead && !this.sock.destroyed;
  }

  /** The request in flight, if any. */
  get exchange(): Exchange | undefined {
    return this.ex;
  }

  /**
   * Writes `head` (the request line and header lines, without Content-Length) and `body` (its parts one after the
   * other) as one buffer. The body is encoded first, after room for the head (its UTF-8 length is known once
   * written: no separate length scan), into this connection's buffer when the socket is done with it (one
   * allocation per connection, not per request); each part is encoded where it lies (no joined copy of the body).
   */
  send(head: string, body: string | readonly string[], ex: Exchange): void {
    this.ex = ex;
    this.buf = undefined;
    if (ex.deadline !== Number.POSITIVE_INFINITY) {
      this.t.busy.add(this);
      armSweep(this.t, ex.deadline);
    }
    // At most 3 UTF-8 bytes per UTF-16 unit; the head gains "Content-Length: <n>\r\n\r\n" (< 40 bytes).
    const bodyAt = 3 * head.length + 40;
    let units = 0;
    if (typeof body === "string") units = body.length;
    else for (let i = 0; i < body.length; i++) units += body[i]!.length;
    const need = bodyAt + 3 * units;
    let b = this.wbuf;
    if (b === undefined || b.length < need || this.writing) {
      b = Buffer.allocUnsafe(need);
      if (need <= MAX_KEPT_REQUEST_BUFFER && !this.writing) this.wbuf = b;
    }
    let n = 0;
    if (typeof body === "string") n = b.write(body, bodyAt, "utf8");
    else for (let i = 0; i < body.length; i++) n += b.write(body[i]!, bodyAt + n, "utf8");
    const h = `${head}Content-Length: ${n}\r\n\r\n`;
    const start = bodyAt - Buffer.byteLength(h, "utf8");
    b.write(h, start, "utf8");
    this.sock.ref();
    const chunk = b.subarray(start, bodyAt + n);
    if (b === this.wbuf) {
      this.writing = true;
      this.sock.write(chunk, this.written);
    } else this.sock.write(chunk);
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
    this.t.busy.delete(this);
    if (ex.phase === "until-close" && err === undefined) {
      ex.done({ status: ex.status, text: Buffer.concat(ex.body).toString("utf8") }, undefined);
      return;
    }
    ex.done(
      undefined,
      err ?? Object.assign(new Error("socket closed before the response was complete"), { code: "ECONNRESET" }),
    );
  }
  private fail(msg: string): void {
    this.destroy(new Error(`bad HTTP response: ${msg}`));
  }

  /** `n` bytes read into `into` (the target's read buffer: valid only during this call). */
  private onData(into: Buffer, n: number): void {
    const ex = this.ex;
    if (ex === undefined) {
      this.destroy(new Error("unexpected data on an idle connection"));
      return;
    }
    const d = into.subarray(0, n);
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
        if (ex.phase === "fixed" && n === ex.remaining && ex.body.length === 0) {
          // The whole body in this read (the usual case): decoded where it lies, nothing copied.
          ex.text = b.toString("utf8", at, at + n);
          at += n;
          this.finish(ex);
          break;
        }
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
    if (this.ex === ex && at < b.length)
      this.buf = Buffer.from(b.subarray(at)); // a copy: `into` is reused
    else if (this.ex !== ex && at < b.length && !this.dead) this.destroy(new Error("data after the response"));
  }

  /** Status line and headers; false when the connection was failed. */
  private parseHead(ex: Exchange, text: string): boolean {
    const head = parseResponseHead(text);
    if (head === undefined) {
      this.fail("bad status line");
      return false;
    }
    const { status, minor, length, chunked, connection } = head;
    if (status >= 100 && status < 200 && status !== 101) return true; // interim response: the real one follows
    ex.status = status;
    ex.keepAlive = minor === 1 ? !connection.includes("close") : connection.includes("keep-alive");
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
    ex.body.push(Buffer.from(part)); // a copy: the read buffer is reused
    return true;
  }

  private finish(ex: Exchange): void {
    this.ex = undefined;
    this.t.busy.delete(this);
    const text =
      ex.text ?? (ex.body.length === 1 ? ex.body[0]!.toString("utf8") : Buffer.concat(ex.body).toString("utf8"));
    if (ex.keepAlive && this.usable) {
      this.sock.unref();
      this.t.idle.push(this);
      this.t.waiting.shift()?.();
    } else {
      this.destroy(new Error("closed"));
    }
    ex.done({ status: ex.status, text }, undefined);
  }
}

/** A usable idle connection of `t`, taken; undefined when there is none (the unusable ones met are dropped). */
function idleConn(t: Target): Conn | undefined {
  for (let c = t.idle.pop(); c !== undefined; c = t.idle.pop()) if (c.usable) return c;
  return undefined;
}

async function acquire(t: Target): Promise<Conn> {
  for (;;) {
    const c = idleConn(t);
    if (c !== undefined) return c;
    if (t.open < MAX_SOCKETS) return new Conn(t);
    await new Promise<void>((r) => t.waiting.push(r));
  }
}

/**
 * Not an `async` function: with an idle keep-alive connection at hand (every request of a busy Engine API client
 * but the first) the request is written before this returns, and the promise returned is the exchange's own —
 * no promise of an async wrapper resolved with it, and no await of a connection that is already there (each
 * costs allocations and microtask turns on every request). Errors still come as a rejected promise, never thrown.
 */
export function postHttp1(
  url: string,
  /** The request body, whole or as parts written one after the other (no part ends inside a surrogate pair). */
  body: string | readonly string[],
  headers: Readonly<Record<string, string>>,
  signal?: AbortSignal,
  timeoutMs?: number,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<PostResult> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  let t: Target;
  let head: string;
  try {
    t = targetOf<Conn>(url);
    // One buffer for head and body, written as it is (Conn.send): a request string would be flattened once more
    // (a copy of the ~25 kB of a build start) and encoded by the socket's stream again. Header lines are checked
    // first.
    head = `${t.prefix}${headerLines(t, headers)}`;
  } catch (err) {
    return Promise.reject(err);
  }
  const idle = idleConn(t);
  if (idle !== undefined) return exchange(idle, head, body, signal, timeoutMs, maxBytes);
  return acquire(t).then((conn) => exchange(conn, head, body, signal, timeoutMs, maxBytes));
}

/** Sends the request on `conn`; the promise of its response. */
function exchange(
  conn: Conn,
  head: string,
  body: string | readonly string[],
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  maxBytes: number,
): Promise<PostResult> {
  const ex = new Exchange(
    maxBytes,
    timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + timeoutMs,
    timeoutMs ?? 0,
    signal,
  );
  const done = new Promise<PostResult>((resolve, reject) => {
    ex.resolve = resolve;
    ex.reject = reject;
  });
  if (signal !== undefined) {
    ex.onAbort = () => conn.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal.addEventListener("abort", ex.onAbort, { once: true });
  }
  try {
    conn.send(head, body, ex);
  } catch (err) {
    return Promise.reject(err);
  }
  return done;
}
