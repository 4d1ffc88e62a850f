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
/**
 * Errors of the node's own upstream calls (L1, beacon, execution client): the client gets a fixed text (the code
 * stays); the original message, which names internal endpoints, is for the logs only.
 */
const UPSTREAM_MESSAGES: Readonly<Record<string, string>> = {
  RPC_NETWORK: "upstream node unreachable",
  RPC_TIMEOUT: "upstream node timed out",
  RPC_HTTP: "upstream node answered with an HTTP error",
  RPC_BAD_RESPONSE: "upstream node sent an invalid response",
  RPC_RESPONSE_TOO_LARGE: "upstream node response too large",
  BEACON_NETWORK: "beacon node unreachable",
  BEACON_HTTP: "beacon node answered with an HTTP error",
  BEACON_RESPONSE_TOO_LARGE: "beacon node response too large",
};

const MAX_CLIENT_MESSAGE = 512;

/**
 * A message made safe for RPC clients: no URLs, IP addresses with ports, `localhost:<port>` or absolute file paths
 * (replaced by `<endpoint>` / `<path>`), no line breaks, at most 512 characters.
 */
export function clientSafeMessage(message: string): string {
  const s = message
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s,;)'"]+/gi, "<endpoint>")
    .replace(/\[[0-9a-fA-F:.]*:[0-9a-fA-F:.]*\](?::\d+)?/g, "<endpoint>")
    .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, "<endpoint>")
    .replace(/\blocalhost:\d+\b/gi, "<endpoint>")
    .replace(/(^|[\s('"=])\/(?:[\w.@+-]+\/)+[\w.@+-]*/g, "$1<path>")
    .replace(/\s*[\r\n]+\s*/g, " ")
    .trim();
  return s.length > MAX_CLIENT_MESSAGE ? `${s.slice(0, MAX_CLIENT_MESSAGE - 3)}...` : s;
}

const NOT_FOUND_CODES = new Set(["NOT_FOUND", "UNKNOWN_BLOCK", "NOT_READY"]);

/**
 * Maps any thrown value to a JSON-RPC error object:
 * - `RpcError` → itself;
 * - `DecodeError` (bad params) → -32602 with its message;
 * - other `SupernodeError` → -32001 for not-found codes, else -32000, with its stack-free message made client-safe
 *   (`clientSafeMessage`; upstream I/O errors get a fixed text, see `UPSTREAM_MESSAGES`);
 * - anything else → -32603 `internal error` (the original is for the logs only).
 */
export function toRpcError(err: unknown): RpcErrorObject {
  if (err instanceof RpcError) {
    const o = err.toJSON();
    return { ...o, message: clientSafeMessage(o.message) };
  }
  if (err instanceof DecodeError) {
    return { code: RPC_INVALID_PARAMS, message: clientSafeMessage(`invalid params: ${err.message}`) };
  }
  if (err instanceof SupernodeError) {
    const code = NOT_FOUND_CODES.has(err.code) ? RPC_RESOURCE_NOT_FOUND : RPC_SERVER_ERROR;
    return { code, message: UPSTREAM_MESSAGES[err.code] ?? clientSafeMessage(err.message) };
  }
  return new InternalRpcError().toJSON();
}
