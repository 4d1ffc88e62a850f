/**
 * Minimal JSON-RPC 2.0 dispatch for the simulated execution client: single and batch requests, the standard
 * error codes (-32700 parse, -32600 invalid request, -32601 method not found, -32602 invalid params) and
 * handler-raised errors with their own codes (Engine API -38xxx). The error class and codes are the supernode's
 * (`supernode/json-rpc`); the dispatch is the EL's own, not the supernode's `rpc/dispatch.ts`, because an execution
 * client answers a batch one request after the other (a sender's transactions in order) and passes a handler's
 * error message on (the supernode hides unexpected errors from clients).
 */
import {
  RPC_INTERNAL_ERROR,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  RpcError,
} from "supernode/json-rpc";

export type RpcHandler = (params: readonly unknown[]) => unknown;
export type RpcMethods = ReadonlyMap<string, RpcHandler>;

type Id = string | number | null;

export interface RpcResponse {
  jsonrpc: "2.0";
  id: Id;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

function errorResponse(id: Id, code: number, message: string, data?: unknown): RpcResponse {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

function validId(id: unknown): id is Id {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** Answers one parsed request object; `undefined` for notifications (no `id`). */
export async function dispatchOne(methods: RpcMethods, req: unknown): Promise<RpcResponse | undefined> {
  if (typeof req !== "object" || req === null || Array.isArray(req)) {
    return errorResponse(null, RPC_INVALID_REQUEST, "invalid request");
  }
  const r = req as Record<string, unknown>;
  const hasId = "id" in r;
  const id: Id = hasId && validId(r.id) ? r.id : null;
  if (r.jsonrpc !== "2.0" || typeof r.method !== "string" || (hasId && !validId(r.id))) {
    return errorResponse(id, RPC_INVALID_REQUEST, "invalid request");
  }
  if (r.params !== undefined && !Array.isArray(r.params)) {
    return errorResponse(id, RPC_INVALID_PARAMS, "invalid params: expected an array");
  }
  const handler = methods.get(r.method);
  let resp: RpcResponse;
  if (handler === undefined) {
    resp = errorResponse(id, RPC_METHOD_NOT_FOUND, "Method not found");
  } else {
    try {
      const result = await handler((r.params as unknown[] | undefined) ?? []);
      resp = { jsonrpc: "2.0", id, result: result === undefined ? null : result };
    } catch (err) {
      if (err instanceof RpcError) resp = errorResponse(id, err.code, err.message, err.data);
      else if (err instanceof Error && err.name === "DecodeError")
        resp = errorResponse(id, RPC_INVALID_PARAMS, `invalid params: ${err.message}`);
      else resp = errorResponse(id, RPC_INTERNAL_ERROR, err instanceof Error ? err.message : String(err));
    }
  }
  return hasId ? resp : undefined;
}

/**
 * Answers a raw request body (string). Returns the response value to serialise, or `undefined` when nothing is
 * to be sent (only notifications).
 */
export async function dispatchBody(
  methods: RpcMethods,
  body: string,
): Promise<RpcResponse | RpcResponse[] | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return errorResponse(null, RPC_PARSE_ERROR, "parse error");
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return errorResponse(null, RPC_INVALID_REQUEST, "empty batch");
    const out: RpcResponse[] = [];
    for (const item of parsed) {
      const r = await dispatchOne(methods, item);
      if (r !== undefined) out.push(r);
    }
    return out.length === 0 ? undefined : out;
  }
  return dispatchOne(methods, parsed);
}
