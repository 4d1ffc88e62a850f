import { DecodeError, SupernodeError } from "../core/errors/supernode-error.js";

/**
 * JSON-RPC 2.0 errors. This file is the only place that maps internal errors to JSON-RPC codes; internal stacks and
 * messages of unexpected errors never reach clients.
 */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
/** Server error: a method failed (message is the method's error text, as the Go node does). */
export const RPC_SERVER_ERROR = -32000;
/** EIP-1474 "resource not found": unknown chain, block or timestamp not yet available. */
export const RPC_RESOURCE_NOT_FOUND = -32001;
/** EIP-1474 "limit exceeded": request body or batch too large. */
export const RPC_LIMIT_EXCEEDED = -32005;

export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }
  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export class ParseError extends RpcError {
  constructor() {
    super(RPC_PARSE_ERROR, "parse error");
  }
}

export class InvalidRequestError extends RpcError {
  constructor(message = "invalid request") {
    super(RPC_INVALID_REQUEST, message);
  }
}

export class MethodNotFoundError extends RpcError {
  constructor(method: string) {
    // Message per the specification's error table; the method name goes in `data`.
    super(RPC_METHOD_NOT_FOUND, "Method not found", { method: method.slice(0, 128) });
  }
}

export class InvalidParamsError extends RpcError {
  constructor(message: string) {
    super(RPC_INVALID_PARAMS, message);
  }
}

export class InternalRpcError extends RpcError {
  constructor() {
    super(RPC_INTERNAL_ERROR, "internal error");
  }
}

export class ResourceNotFoundError extends RpcError {
  constructor(message: string) {
    super(RPC_RESOURCE_NOT_FOUND, message);
  }
}

export class LimitExceededError extends RpcError {
  constructor(message: string) {
    super(RPC_LIMIT_EXCEEDED, message);
  }
}

/** Error codes of our own errors that mean "not found / not yet available". */
const NOT_FOUND_CODES = new Set(["NOT_FOUND", "UNKNOWN_BLOCK", "NOT_READY"]);

/**
 * Maps any thrown value to a JSON-RPC error object:
 * - `RpcError` → itself;
 * - `DecodeError` (bad params) → -32602 with its message;
 * - other `SupernodeError` → -32001 for not-found codes, else -32000, with its (safe, stack-free) message;
 * - anything else → -32603 `internal error` (the original is for the logs only).
 */
export function toRpcError(err: unknown): RpcErrorObject {
  if (err instanceof RpcError) return err.toJSON();
  if (err instanceof DecodeError) return { code: RPC_INVALID_PARAMS, message: `invalid params: ${err.message}` };
  if (err instanceof SupernodeError) {
    return { code: NOT_FOUND_CODES.has(err.code) ? RPC_RESOURCE_NOT_FOUND : RPC_SERVER_ERROR, message: err.message };
  }
  return new InternalRpcError().toJSON();
}
