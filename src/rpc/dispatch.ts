import type { MethodTable, RpcContext } from "./method-table.js";
import {
  InvalidParamsError,
  InvalidRequestError,
  LimitExceededError,
  MethodNotFoundError,
  ParseError,
  type RpcErrorObject,
  toRpcError,
} from "./errors.js";

/**
 * Pure JSON-RPC 2.0 dispatch (no HTTP): single requests, batches (answered in order, bounded in size),
 * notifications (no response), and the error envelope. Transport-independent so it is unit-testable and reusable.
 */
export type JsonRpcId = string | number | null;

export type JsonRpcResponse =
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId; readonly error: RpcErrorObject };

/** Receives one observation per executed call (for metrics). `code` is 0 on success, else the JSON-RPC code. */
export interface RpcObserver {
  observe(method: string, code: number, seconds: number): void;
}

export interface DispatchOptions {
  /** Serve methods flagged `admin` (otherwise they answer -32601 as if absent). */
  readonly enableAdmin: boolean;
  /** Maximum number of requests in one batch; larger batches get one -32005 error. */
  readonly maxBatchSize: number;
  readonly ctx: RpcContext;
  readonly observer?: RpcObserver;
  /** Called with errors that were not `RpcError`/`SupernodeError` (mapped to -32603), for the logs. */
  readonly onUnexpectedError?: (method: string, err: unknown) => void;
  /**
   * Called with every other error a method threw (its client message may have been shortened or replaced, see
   * `toRpcError`): the logs keep the detail.
   */
  readonly onMethodError?: (method: string, err: unknown) => void;
  /**
   * Answers a method name the table lacks (instead of -32601), e.g. "chain N is not running" (-32000) for a chain
   * that has never started; `undefined` → -32601.
   */
  readonly unknownMethod?: (method: string) => RpcErrorObject | undefined;
}

export const DEFAULT_MAX_BATCH_SIZE = 100;

const UNKNOWN_METHOD_LABEL = "unknown";

function errorResponse(id: JsonRpcId, error: RpcErrorObject): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error };
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** Dispatches one already-parsed request object; `undefined` means "no response" (a notification). */
async function dispatchOne(
  table: MethodTable,
  req: unknown,
  opts: DispatchOptions,
): Promise<JsonRpcResponse | undefined> {
  if (typeof req !== "object" || req === null || Array.isArray(req)) {
    return errorResponse(null, new InvalidRequestError().toJSON());
  }
  const r = req as Record<string, unknown>;
  const isNotification = !("id" in r);
  const id: JsonRpcId = isValidId(r.id) ? r.id : null;
  if (r.jsonrpc !== "2.0" || typeof r.method !== "string" || (!isNotification && !isValidId(r.id))) {
    // Not a valid Request object, so not a notification either: JSON-RPC 2.0 answers -32600 with `id: null` when
    // the id cannot be read (`{}`, `{"foo":1}`, a non-string method without id).
    return errorResponse(id, new InvalidRequestError().toJSON());
  }
  const method = r.method;
  const spec = table.get(method);
  const started = performance.now();
  let result: unknown;
  let error: RpcErrorObject | undefined;
  let label = method;
  if (spec === undefined || (spec.admin === true && !opts.enableAdmin)) {
    label = UNKNOWN_METHOD_LABEL;
    error = opts.unknownMethod?.(method) ?? new MethodNotFoundError(method).toJSON();
  } else if (r.params !== undefined && r.params !== null && !Array.isArray(r.params)) {
    error = new InvalidParamsError("params must be an array (by-position)").toJSON();
  } else {
    try {
      result = await spec.handler((r.params as unknown[] | undefined) ?? [], opts.ctx);
      if (result === undefined) result = null;
    } catch (err) {
      error = toRpcError(err);
      if (error.code === -32603) opts.onUnexpectedError?.(method, err);
      else opts.onMethodError?.(method, err);
    }
  }
  opts.observer?.observe(label, error?.code ?? 0, (performance.now() - started) / 1000);
  if (isNotification) return undefined;
  return error === undefined ? { jsonrpc: "2.0", id, result } : errorResponse(id, error);
}

/**
 * Dispatches a parsed JSON-RPC body (object or batch array). Returns the response (object or array), or `undefined`
 * when nothing must be sent back (notifications only).
 */
export async function dispatchBody(
  table: MethodTable,
  body: unknown,
  opts: DispatchOptions,
): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
  if (!Array.isArray(body)) return dispatchOne(table, body, opts);
  if (body.length === 0) return errorResponse(null, new InvalidRequestError("empty batch").toJSON());
  if (body.length > opts.maxBatchSize) {
    return errorResponse(
      null,
      new LimitExceededError(`batch too large (${body.length} > ${opts.maxBatchSize})`).toJSON(),
    );
  }
  const responses = await Promise.all(body.map((req) => dispatchOne(table, req, opts)));
  const out = responses.filter((r): r is JsonRpcResponse => r !== undefined);
  return out.length === 0 ? undefined : out;
}

/** Parses `text` as JSON and dispatches it; returns the serialised response or `undefined` (nothing to send). */
export async function dispatchText(
  table: MethodTable,
  text: string,
  opts: DispatchOptions,
): Promise<string | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return stringifyJson(errorResponse(null, new ParseError().toJSON()));
  }
  const res = await dispatchBody(table, body, opts);
  return res === undefined ? undefined : stringifyJson(res);
}

const BIGINT_MARK = "\u0000bigint:";
const BIGINT_RE = /"\\u0000bigint:(-?\d+)"/g;

/** JSON.stringify that renders bigint as a JSON integer without precision loss. */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `${BIGINT_MARK}${v}` : v));
    return text.replace(BIGINT_RE, "$1");
  }
}
