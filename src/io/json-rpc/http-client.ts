import type { Clock } from "../../core/time/clock.js";
import { systemClock } from "../../core/time/clock.js";
import { AbortedError, SupernodeError, TemporaryError } from "../../core/errors/supernode-error.js";
import { ResponseTooLargeError } from "../common/response-limit.js";
import { type PostResult, PostTimeoutError, postText } from "./http-post.js";
import { postHttp1 } from "../http1/post.js";
import type { Agent as HttpAgent } from "node:http";
import type { Turns } from "../../core/async/turns.js";
import { jsonArrayItemValueAt, requestParts } from "./raw-json.js";

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json" });

/** A JSON-RPC error object returned by the server (`{code, message, data}`). */
export class RpcError extends SupernodeError {
  readonly rpcCode: number;
  readonly data: unknown;

  constructor(rpcCode: number, message: string, data: unknown, method: string) {
    super("RPC_ERROR", `${method}: ${message} (code ${rpcCode})`, {
      severity: isTransientRpcCode(rpcCode) ? "temporary" : "critical",
      meta: { rpcCode, method },
    });
    this.rpcCode = rpcCode;
    this.data = data;
  }
}

/**
 * Malformed requests (-32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params)
 * will fail again: critical. Every other server error (e.g. -32000 "header not found", -32005 limit exceeded,
 * -32603 internal) is worth retrying: temporary. Engine-specific codes (-38001..-38005) are read by callers from
 * `rpcCode`.
 */
function isTransientRpcCode(code: number): boolean {
  return !(
    code === -32700 ||
    code === -32600 ||
    code === -32601 ||
    code === -32602 ||
    (code <= -38001 && code >= -38005)
  );
}

/** Method-not-found: used to detect optional methods (e.g. `rpc_modules`, `eth_getBlockReceipts`). */
export function isMethodNotFound(err: unknown): boolean {
  return err instanceof RpcError && err.rpcCode === -32601;
}

export interface RpcRequestEvent {
  readonly method: string;
  readonly durationMs: number;
  /** "ok", "rpc_error", "http_error", "timeout", "network", "decode", "too_large" (body over `maxResponseBytes`) */
  readonly outcome: "ok" | "rpc_error" | "http_error" | "timeout" | "network" | "decode" | "too_large";
}

export interface HttpRpcClientOptions {
  readonly url: string;
  /** Per-request timeout (a batch is one request). */
  readonly timeoutMs?: number;
  /**
   * Bound on one response body (a batch is one response); a larger body is aborted while streaming and the call
   * fails with a temporary `RPC_RESPONSE_TOO_LARGE` error (outcome `too_large`). Default (or 0): unbounded.
   */
  readonly maxResponseBytes?: number;
  /**
   * Extra headers per HTTP request (e.g. a freshly minted JWT). Returning the same (unchanged) object again lets
   * the transport reuse the header lines it built for it.
   */
  readonly headers?: () => Promise<Readonly<Record<string, string>>> | Readonly<Record<string, string>>;
  /** Called once per JSON-RPC call (a batch of n calls reports n events). */
  readonly onRequest?: (e: RpcRequestEvent) => void;
  readonly clock?: Clock;
  /**
   * "http1": the lean HTTP/1.1 client of io/http1/post.ts for `http:` URLs (hot loopback endpoints such as the
   * Engine API); default "node-http" (node:http(s) keep-alive agent). `https:` always uses node:https.
   */
  readonly transport?: "node-http" | "http1";
  /** Fair event-loop turns shared by every chain: a response is handled only when this process gives a turn. */
  readonly turns?: Turns;
  /** A connection agent of its own (e.g. an https agent presenting a client certificate); node:http(s) transport. */
  readonly agent?: HttpAgent;
}

export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** A batch's outcomes and, on demand, the response text of its elements (see `HttpRpcClient.batchWithText`). */
export interface BatchWithText {
  readonly results: BatchResult[];
  itemValueAt(i: number, path: readonly string[]): string | undefined;
}

/** One outcome of a batch element: a result, or the error it produced. */
export type BatchResult =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: Error };

interface JsonRpcResponse {
  readonly jsonrpc?: string;
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { code?: unknown; message?: unknown; data?: unknown };
}

/**
 * A JSON-RPC 2.0 client over HTTP POST (keep-alive node:http transport).
 * Transient failures (network errors, timeouts, HTTP 5xx and 429) become `TemporaryError`; a JSON-RPC error
 * object becomes `RpcError`; other HTTP statuses (401, 403, 404...) are critical `SupernodeError`s.
 */
export class HttpRpcClient {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly headers: HttpRpcClientOptions["headers"];
  private readonly onRequest: ((e: RpcRequestEvent) => void) | undefined;
  private readonly clock: Clock;
  private readonly send: Send;
  private readonly turns: Turns | undefined;
  private nextId = 1;
  private lastExtra: Readonly<Record<string, string>> | undefined;
  private lastHeaders: Readonly<Record<string, string>> = JSON_HEADERS;

  constructor(opts: HttpRpcClientOptions) {
    this.url = opts.url;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    // 0 or absent: unbounded.
    this.maxResponseBytes = opts.maxResponseBytes || Number.POSITIVE_INFINITY;
    this.headers = opts.headers;
    this.onRequest = opts.onRequest;
    this.clock = opts.clock ?? systemClock;
    const agent = opts.agent;
    this.send =
      agent !== undefined
        ? (url, body, headers, signal, timeoutMs, maxBytes) =>
            postText(url, body.join(""), headers, signal, timeoutMs, maxBytes, agent)
        : opts.transport === "http1" && opts.url.startsWith("http:")
          ? postHttp1
          : (url, body, headers, signal, timeoutMs, maxBytes) =>
              postText(url, body.join(""), headers, signal, timeoutMs, maxBytes);
    this.turns = opts.turns;
  }

  /** Calls one method and returns its raw `result`. */
  async call<T = unknown>(method: string, params: readonly unknown[] = [], signal?: AbortSignal): Promise<T> {
    return (await this.callWithText<T>(method, params, signal)).result;
  }

  /**
   * {@link call}, also returning the response's JSON text (for a caller that passes part of it on as it is, see
   * raw-json.ts). Elements of `params` may be `RawJson` (inserted in the request verbatim).
   */
  async callWithText<T = unknown>(
    method: string,
    params: readonly unknown[] = [],
    signal?: AbortSignal,
  ): Promise<{ result: T; text: string }> {
    const id = this.nextId++;
    const started = this.clock.nowMs();
    let body: { parsed: unknown; text: string };
    try {
      body = await this.post(requestParts([{ method, params }], id, false), method, signal);
    } catch (err) {
      this.report(method, started, outcomeOf(err));
      throw err;
    }
    try {
      const value = this.unwrap(body.parsed as JsonRpcResponse, method);
      this.report(method, started, "ok");
      return { result: value as T, text: body.text };
    } catch (err) {
      this.report(method, started, err instanceof RpcError ? "rpc_error" : "decode");
      throw err;
    }
  }

  /** Sends calls as one JSON-RPC batch; results come back in call order, each a result or an error. */
  async batch(calls: readonly RpcCall[], signal?: AbortSignal): Promise<BatchResult[]> {
    return (await this.batchWithText(calls, signal)).results;
  }

  /**
   * {@link batch}, also giving on demand the response text of each element's values (`itemValueAt(i, path)`: the
   * JSON text of the value at `path`, e.g. `["result", "executionPayload"]`, in the response object of call `i`;
   * undefined when the server did not answer it in an array or the path is missing), for a caller that passes part
   * of it on as it is (raw-json.ts).
   */
  async batchWithText(calls: readonly RpcCall[], signal?: AbortSignal): Promise<BatchWithText> {
    if (calls.length === 0) return { results: [], itemValueAt: () => undefined };
    const firstId = this.nextId;
    this.nextId += calls.length;
    const payload = requestParts(calls, firstId, true);
    const started = this.clock.nowMs();
    let body: unknown;
    let text: string;
    try {
      ({ parsed: body, text } = await this.post(payload, calls[0]?.method ?? "batch", signal));
    } catch (err) {
      for (const c of calls) this.report(c.method, started, outcomeOf(err));
      throw err;
    }
    if (!Array.isArray(body)) {
      // Some servers answer a whole batch with one error object.
      const single = body as JsonRpcResponse;
      const err =
        single?.error !== undefined
          ? toRpcError(single.error, "batch")
          : new TemporaryError("RPC_BAD_RESPONSE", "batch response is not an array", { url: this.url });
      for (const c of calls) this.report(c.method, started, "rpc_error");
      return {
        results: calls.map(() => ({ ok: false as const, error: err })),
        itemValueAt: () => undefined,
      };
    }
    const byId = new Map<unknown, JsonRpcResponse>();
    for (const r of body as JsonRpcResponse[]) byId.set(r?.id, r);
    const n = calls.length;
    const itemValueAt = (i: number, path: readonly string[]): string | undefined =>
      i >= 0 && i < n ? jsonArrayItemValueAt(text, firstId + i, path) : undefined;
    const results = calls.map((c, i): BatchResult => {
      const r = byId.get(firstId + i);
      if (r === undefined) {
        this.report(c.method, started, "decode");
        return {
          ok: false as const,
          error: new TemporaryError("RPC_BAD_RESPONSE", `missing batch response for ${c.method}`),
        };
      }
      try {
        const result = this.unwrap(r, c.method);
        this.report(c.method, started, "ok");
        return { ok: true as const, result };
      } catch (error) {
        this.report(c.method, started, "rpc_error");
        return { ok: false as const, error: error as Error };
      }
    });
    return { results, itemValueAt };
  }

  private unwrap(r: JsonRpcResponse, method: string): unknown {
    if (r === null || typeof r !== "object") {
      throw new TemporaryError("RPC_BAD_RESPONSE", `${method}: response is not an object`);
    }
    if (r.error !== undefined && r.error !== null) throw toRpcError(r.error, method);
    if (!("result" in r)) throw new TemporaryError("RPC_BAD_RESPONSE", `${method}: response has no result`);
    return r.result;
  }

  /** POSTs the request text; the parsed response and its text. */
  private async post(
    request: readonly string[],
    method: string,
    signal?: AbortSignal,
  ): Promise<{ parsed: unknown; text: string }> {
    if (signal?.aborted) throw new AbortedError();
    const h = this.headers === undefined ? undefined : this.headers();
    const extra = h instanceof Promise ? await h : h;
    // Keep-alive node:http transport (about half the CPU per loopback request of fetch; see http-post.ts).
    let res: PostResult;
    try {
      res = await this.send(
        this.url,
        request,
        extra === undefined ? JSON_HEADERS : this.withJsonHeaders(extra),
        signal,
        this.timeoutMs,
        this.maxResponseBytes,
      );
    } catch (err) {
      throw classifyFetchError(err, method, this.url, signal);
    }
    const turn = this.turns?.take();
    if (turn !== undefined) await turn;
    const text = res.text;
    if (res.status >= 500 || res.status === 429 || res.status === 408) {
      throw new TemporaryError("RPC_HTTP", `${method}: HTTP ${res.status}`, {
        status: res.status,
        url: this.url,
        body: text.slice(0, 200),
      });
    }
    if (res.status !== 200) {
      // Many servers return JSON-RPC errors with non-200 codes; prefer the error object when there is one.
      const parsed = tryParse(text) as JsonRpcResponse | undefined;
      if (parsed?.error !== undefined && !Array.isArray(parsed)) throw toRpcError(parsed.error, method);
      throw new SupernodeError("RPC_HTTP", `${method}: HTTP ${res.status} ${text.slice(0, 200)}`, {
        severity: "critical",
        meta: { status: res.status, url: this.url },
      });
    }
    const parsed = tryParse(text);
    if (parsed === undefined) {
      throw new TemporaryError("RPC_BAD_RESPONSE", `${method}: response is not JSON`, { body: text.slice(0, 200) });
    }
    return { parsed, text };
  }

  /**
   * The content type plus `extra`: the same object as last time when the provider returned the same `extra`
   * (a token reused within its second), so that the transport can reuse the header lines it built from it.
   */
  private withJsonHeaders(extra: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    if (extra !== this.lastExtra) {
      this.lastExtra = extra;
      this.lastHeaders = { ...JSON_HEADERS, ...extra };
    }
    return this.lastHeaders;
  }

  private report(method: string, started: number, outcome: RpcRequestEvent["outcome"]): void {
    this.onRequest?.({ method, durationMs: this.clock.nowMs() - started, outcome });
  }
}

/**
 * A transport: POSTs the request's text, given as parts written one after the other (raw-json.ts `requestParts`).
 */
type Send = (
  url: string,
  body: readonly string[],
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  maxBytes: number,
) => Promise<PostResult>;

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toRpcError(e: { code?: unknown; message?: unknown; data?: unknown }, method: string): RpcError {
  const code = typeof e.code === "number" ? e.code : -32603;
  const message = typeof e.message === "string" ? e.message : "unknown error";
  return new RpcError(code, message, e.data, method);
}

function classifyFetchError(err: unknown, method: string, url: string, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return new AbortedError();
  if (err instanceof PostTimeoutError)
    return new TemporaryError("RPC_TIMEOUT", `${method}: request timed out`, { url });
  if (err instanceof ResponseTooLargeError) {
    return new TemporaryError(
      "RPC_RESPONSE_TOO_LARGE",
      `${method}: response larger than the limit of ${err.limit} bytes; aborted`,
      { url, limit: err.limit },
      err,
    );
  }
  return new TemporaryError("RPC_NETWORK", `${method}: ${(err as Error)?.message ?? String(err)}`, { url }, err);
}

function outcomeOf(err: unknown): RpcRequestEvent["outcome"] {
  if (err instanceof RpcError) return "rpc_error";
  if (err instanceof SupernodeError) {
    if (err.code === "RPC_TIMEOUT") return "timeout";
    if (err.code === "RPC_HTTP") return "http_error";
    if (err.code === "RPC_BAD_RESPONSE") return "decode";
    if (err.code === "RPC_RESPONSE_TOO_LARGE") return "too_large";
  }
  return "network";
}
