/**
 * The endpoints of the lean HTTP/1.1 client (post.ts): per URL its idle and busy connections, the request
 * prefix and the header lines of the last headers object, and the one timer that enforces the timeouts of every
 * request in flight to it.
 */
import { PostTimeoutError } from "./result.js";

const READ_BUFFER = 64 * 1024;

/** What the endpoint's timeout sweep needs of a connection. */
export interface SweptConn {
  /** The request in flight, if any. */
  readonly exchange: { readonly deadline: number; readonly timeoutMs: number } | undefined;
  destroy(err: Error): void;
}

/** One endpoint (URL) of the lean HTTP/1.1 client: its connections, header lines and timeout timer. */
export interface EndpointTarget<C extends SweptConn> {
  readonly host: string;
  readonly port: number;
  /** `POST <path> HTTP/1.1\r\nHost: <host>\r\n` */
  readonly prefix: string;
  readonly idle: C[];
  open: number;
  readonly waiting: (() => void)[];
  /** Connections with a request in flight (their deadlines are checked by one timer per target). */
  readonly busy: Set<C>;
  /** The one timer that enforces the in-flight requests' timeouts, and when it fires (performance.now()). */
  sweep: NodeJS.Timeout | undefined;
  sweepAt: number;
  /** Where this target's sockets read into (each read is handled before the next one). */
  readonly readBuffer: Buffer;
  /** The header lines of the last headers object seen (a caller passing the same object reuses them). */
  lastHeaders: Readonly<Record<string, string>> | undefined;
  lastLines: string;
}

// biome-ignore lint/suspicious/noExplicitAny: one cache for every connection type (there is one: post.ts's Conn).
const targets = new Map<string, EndpointTarget<any>>();

export function targetOf<C extends SweptConn>(url: string): EndpointTarget<C> {
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
      busy: new Set(),
      readBuffer: Buffer.allocUnsafe(READ_BUFFER),
      sweep: undefined,
      sweepAt: Number.POSITIVE_INFINITY,
      lastHeaders: undefined,
      lastLines: "",
    };
    if (targets.size > 256) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/** `name: value\r\n` for each header; a CR or LF in a name or value would split the request: refused. */
export function headerLines<C extends SweptConn>(
  t: EndpointTarget<C>,
  headers: Readonly<Record<string, string>>,
): string {
  if (headers === t.lastHeaders) return t.lastLines;
  let lines = "";
  for (const k in headers) {
    const v = headers[k]!;
    if (/[\r\n]/.test(k) || /[\r\n]/.test(v)) throw new TypeError(`invalid header ${k}`);
    lines += `${k}: ${v}\r\n`;
  }
  t.lastHeaders = headers;
  t.lastLines = lines;
  return lines;
}

/**
 * Arms the target's timeout timer for `deadline` unless it fires earlier already. One timer serves every request
 * in flight: requests of one client share their timeout, so deadlines only grow and the timer is set once per
 * timeout period, not once per request (a timer per request cost ~3 µs of insertion and removal each).
 */
export function armSweep<C extends SweptConn>(t: EndpointTarget<C>, deadline: number): void {
  if (deadline >= t.sweepAt) return;
  if (t.sweep !== undefined) clearTimeout(t.sweep);
  t.sweepAt = deadline;
  t.sweep = setTimeout(sweep, Math.max(1, Math.ceil(deadline - performance.now())), t);
  // The in-flight socket keeps the process alive; the timer alone must not.
  t.sweep.unref();
}

/** Fails the requests past their deadline, and re-arms for the earliest remaining one. */
function sweep<C extends SweptConn>(t: EndpointTarget<C>): void {
  t.sweep = undefined;
  t.sweepAt = Number.POSITIVE_INFINITY;
  const now = performance.now();
  let next = Number.POSITIVE_INFINITY;
  for (const c of t.busy) {
    const ex = c.exchange;
    if (ex === undefined) continue;
    if (ex.deadline <= now) c.destroy(new PostTimeoutError(ex.timeoutMs));
    else if (ex.deadline < next) next = ex.deadline;
  }
  if (next !== Number.POSITIVE_INFINITY) armSweep(t, next);
}
