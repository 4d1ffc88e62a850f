import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "../core/logger.js";
import {
  type DispatchOptions,
  DEFAULT_MAX_BATCH_SIZE,
  dispatchText,
  type RpcObserver,
  stringifyJson,
} from "./dispatch.js";
import {
  InvalidRequestError,
  LimitExceededError,
  RPC_SERVER_ERROR,
  ResourceNotFoundError,
  RpcError,
  type RpcErrorObject,
} from "./errors.js";
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
  isHealthPath,
  limitConnections,
} from "./connection-limits.js";
import type { MethodTable } from "./method-table.js";
import { STATUS_PAGE_HEADERS, statusPageHtml } from "./status-page.js";

/**
 * The one HTTP server of the supernode (Fastify). Routes:
 * - `POST /` → the supernode's own methods (activities);
 * - `POST /<chainID>` and `POST /<chainID>/` → that chain's current method table (decimal chain ID, exact match);
 * - `GET /healthz` → liveness; `GET /readyz` → 200 when every chain is running, else 503 (body lists each chain);
 * - `GET /status` → the read-only status page for operators (status-page.ts).
 * Anything else is a 404 with a JSON-RPC error body. Bodies are bounded (`maxBodyBytes`), batches too, a whole
 * request in time (`requestTimeoutMs`, enforced within a second) and the open connections in number, in all
 * and per client address (`maxConnections`, `maxConnectionsPerClient`; the health endpoints stay reachable past
 * the first, connection-limits.ts). Only the literal path counts: a percent-encoded chain ID (`/9%30%31/`) and a request target
 * that is not a path (`POST *`, absolute URLs) are not routed. Every error reply, also those HTTP parsing produces
 * itself (400, 408, 431), carries a JSON-RPC error envelope.
 */
export interface RpcServerOptions {
  readonly addr: string;
  readonly port: number;
  readonly enableAdmin: boolean;
  /** Default 5 MiB, as the Go node. */
  readonly maxBodyBytes?: number;
  /** Time for a whole request (headers and body) to arrive; default 30 s. Checked every second. */
  readonly requestTimeoutMs?: number;
  /**
   * Open connections at most (default 1024; 0 = no bound); a few more serve only `/healthz` and `/readyz`, further
   * ones are closed at once (connection-limits.ts).
   */
  readonly maxConnections?: number;
  /** Open connections from one client address at most (default 128; 0 = no bound); further ones closed at once. */
  readonly maxConnectionsPerClient?: number;
  readonly maxBatchSize?: number;
  /**
   * How long a request to a restarting chain waits for it to come back (default 60 s, polled every 25 ms, as
   * op-supernode's readiness gate); then HTTP 503 "chain RPC not ready". 0 = answer at once.
   */
  readonly chainReadyWaitMs?: number;
  /** Reported by `/healthz`. */
  readonly version?: string;
}

/** Where the server finds the chains' tables; consulted on every request (tables are replaced on restarts). */
export interface ChainTables {
  /** The current table of a hosted chain by its decimal ID, or undefined if the chain is not hosted. */
  tableOf(chainId: string): MethodTable | undefined;
  /** Decimal IDs of the hosted chains (for error messages). */
  chainIds(): readonly string[];
  /**
   * The state of a hosted chain that is not running (e.g. `starting`, `stopped`), else undefined: methods its
   * table lacks then answer -32000 "chain N is not running (<state>)" rather than -32601.
   */
  notRunning?(chainId: string): string | undefined;
  /**
   * Whether a hosted chain is between two instances and coming back, or not yet back where it was (a request then
   * waits for it).
   */
  restarting?(chainId: string): boolean | Promise<boolean>;
}

/** op-supernode's readiness gate: poll interval and default wait. */
const READY_POLL_MS = 25;
const DEFAULT_CHAIN_READY_WAIT_MS = 60_000;

/** Waits until `restarting()` is false (true) or `waitMs` passed (false). */
async function waitUntilBack(restarting: () => boolean | Promise<boolean>, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (await restarting()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
  return true;
}

export interface Readiness {
  readonly ready: boolean;
  readonly [key: string]: unknown;
}

export interface RpcServerDeps {
  readonly root: MethodTable;
  readonly chains: ChainTables;
  readonly readiness: () => Readiness;
  readonly logger: Logger;
  /** Metrics hook per endpoint: `chain` is the decimal chain ID, or `"supernode"` for `/`. */
  readonly observerFor?: (chain: string) => RpcObserver;
}

function noSchemas(): never {
  throw new Error("the RPC server's routes declare no schemas");
}

export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How often node:http looks for requests past their timeout (its default, 30 s, made 30 s cuts take 48-78 s). */
const TIMEOUT_CHECK_MS = 1_000;
const JSON_TYPES = ["application/json", "application/json-rpc", "application/jsonrequest"];
const CHAIN_ID_RE = /^[1-9][0-9]{0,19}$/;

export class RpcServer {
  readonly #app: FastifyInstance;
  readonly host: string;
  readonly port: number;

  private constructor(app: FastifyInstance, host: string, port: number) {
    this.#app = app;
    this.host = host;
    this.port = port;
  }

  /** Base URL, e.g. `http://127.0.0.1:8545`. */
  get url(): string {
    const h = this.host.includes(":") ? `[${this.host}]` : this.host;
    return `http://${h}:${this.port}`;
  }

  /** Builds the server, registers every route, then binds (so no request ever meets a half-registered router). */
  static async listen(opts: RpcServerOptions, deps: RpcServerDeps): Promise<RpcServer> {
    const app = buildApp(opts, deps);
    await app.listen({ host: opts.addr, port: opts.port });
    const addr = app.server.address();
    const port = typeof addr === "object" && addr !== null ? addr.port : opts.port;
    return new RpcServer(app, opts.addr, port);
  }

  /** Stops accepting connections, lets in-flight requests finish for up to `graceMs`, then force-closes. */
  async close(graceMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const closed = this.#app.close();
    const forced = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.#app.server.closeAllConnections();
        resolve();
      }, graceMs);
    });
    await Promise.race([closed, forced]);
    clearTimeout(timer);
    await closed;
  }
}

function errorBody(err: RpcError): string {
  return stringifyJson({ jsonrpc: "2.0", id: null, error: err.toJSON() });
}

/** A raw HTTP error reply with a JSON-RPC envelope, for errors met before Fastify has a request. */
function writeRawError(socket: Socket, status: number, reason: string, err: RpcError): void {
  if (!socket.writable) return;
  const body = errorBody(err);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** node:http `clientError`s (unparsable request, header section too large, request timeout) as JSON-RPC replies. */
function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    writeRawError(socket, 408, "Request Timeout", new InvalidRequestError("request timed out"));
  } else if (err.code === "HPE_HEADER_OVERFLOW") {
    writeRawError(
      socket,
      431,
      "Request Header Fields Too Large",
      new LimitExceededError("request header fields too large"),
    );
  } else {
    writeRawError(socket, 400, "Bad Request", new InvalidRequestError("malformed HTTP request"));
  }
  socket.destroySoon();
}

function buildApp(opts: RpcServerOptions, deps: RpcServerDeps): FastifyInstance {
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let reserveOnly: (socket: Socket) => boolean = () => false;
  const app = createFastify(opts, maxBodyBytes, (server) => {
    reserveOnly = limitConnections(server, {
      max: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      perClient: opts.maxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
    });
  });
  refuseOddTargets(app);
  app.addHook("onRequest", async (req, reply) => {
    if (!reserveOnly(req.raw.socket) || isHealthPath(req.raw.url ?? "")) return;
    return reply
      .code(503)
      .header("connection", "close")
      .type("application/json")
      .send(errorBody(new LimitExceededError("too many open connections; try again later")));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: "string", bodyLimit: maxBodyBytes }, (_req, body, done) => {
    done(null, body);
  });
  routeJsonRpc(app, opts, deps);
  routeHealth(app, opts, deps);
  handleErrors(app, deps, maxBodyBytes);
  return app;
}

/** Fastify over a node:http server with the request timeouts; `onServer` adds the connection bounds. */
function createFastify(
  opts: RpcServerOptions,
  maxBodyBytes: number,
  onServer: (server: Server) => void,
): FastifyInstance {
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return Fastify({
    logger: false,
    // No route declares a JSON schema: do not load Fastify's default schema compilers (Ajv and
    // fast-json-stringify, ~0.3 s of CPU at the first server of a process, on the way to serving; docs/performance.md).
    schemaController: { compilersFactory: { buildValidator: noSchemas, buildSerializer: noSchemas } },
    bodyLimit: maxBodyBytes,
    // A long path segment reaches the routes (and gets a JSON-RPC 404) instead of Fastify's own 414 reply, which
    // echoes the path; the request line is bounded by node:http's header size anyway.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16_384 },
    clientErrorHandler: onClientError,
    serverFactory: (handler) => {
      const server: Server = createServer(
        {
          requestTimeout,
          headersTimeout: Math.min(requestTimeout, 60_000),
          keepAliveTimeout: 120_000,
          connectionsCheckingInterval: TIMEOUT_CHECK_MS,
        },
        handler,
      );
      onServer(server);
      // node:http hands CONNECT to this event and, without a listener, closes the socket without a word.
      server.on("connect", (_req, socket: Socket) => {
        writeRawError(socket, 405, "Method Not Allowed", new InvalidRequestError("method not allowed"));
        socket.destroySoon();
      });
      return server;
    },
  });
}

/**
 * Only origin-form targets with a literal path: `POST *`, absolute-form URLs, percent-encoded paths (which the
 * router would decode, so `/9%30%31/` would reach chain 901) and targets with a fragment are refused.
 */
function refuseOddTargets(app: FastifyInstance): void {
  app.addHook("onRequest", async (req, reply) => {
    const url = req.raw.url ?? "";
    const path = url.split("?")[0] ?? "";
    if (url.includes("#") && url.startsWith("/")) {
      // a fragment is never part of a request target: `/901#frag` is not `/901`
      return reply.code(400).type("application/json").send(errorBody(new InvalidRequestError()));
    }
    if (!url.startsWith("/") || path.includes("%")) {
      return reply
        .code(url.startsWith("/") ? 404 : 400)
        .type("application/json")
        .send(errorBody(url.startsWith("/") ? new ResourceNotFoundError("not found") : new InvalidRequestError()));
    }
  });
}

/** `POST /` (the supernode's own methods) and `POST /<chainID>` (a chain's rollup-node methods). */
function routeJsonRpc(app: FastifyInstance, opts: RpcServerOptions, deps: RpcServerDeps): void {
  const observers = new Map<string, RpcObserver | undefined>();
  const observerFor = (label: string): RpcObserver | undefined => {
    if (!observers.has(label)) observers.set(label, deps.observerFor?.(label));
    return observers.get(label);
  };
  const onUnexpectedError = (method: string, err: unknown): void => {
    deps.logger.error({ method, err }, "rpc method failed unexpectedly");
  };
  // Clients get a short, endpoint-free message; the detail stays here.
  const onMethodError = (method: string, err: unknown): void => {
    deps.logger.debug({ method, err }, "rpc method failed");
  };
  const base = {
    enableAdmin: opts.enableAdmin,
    maxBatchSize: opts.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
    onUnexpectedError,
    onMethodError,
  };
  const rootOpts: DispatchOptions = withObserver({ ...base, ctx: {} }, observerFor("supernode"));

  const send = async (reply: FastifyReply, table: MethodTable, body: unknown, dopts: DispatchOptions) => {
    const text = await dispatchText(table, typeof body === "string" ? body : "", dopts);
    if (text === undefined) return reply.code(204).send();
    return reply.code(200).type("application/json").send(text);
  };

  app.post("/", async (req, reply) => send(reply, deps.root, req.body, rootOpts));

  const chainOpts = new Map<string, DispatchOptions>();
  const readyWaitMs = opts.chainReadyWaitMs ?? DEFAULT_CHAIN_READY_WAIT_MS;
  app.post("/:chain", async (req: FastifyRequest<{ Params: { chain: string } }>, reply) => {
    const chain = req.params.chain;
    const hosted = CHAIN_ID_RE.test(chain) && deps.chains.tableOf(chain) !== undefined;
    const restarting = deps.chains.restarting;
    const gated = hosted && readyWaitMs > 0 && restarting !== undefined && (await restarting(chain));
    if (gated && !(await waitUntilBack(() => restarting(chain), readyWaitMs))) {
      const state = deps.chains.notRunning?.(chain);
      const err = new RpcError(RPC_SERVER_ERROR, "chain RPC not ready", state === undefined ? undefined : { state });
      return reply.code(503).type("application/json").send(errorBody(err));
    }
    const table = CHAIN_ID_RE.test(chain) ? deps.chains.tableOf(chain) : undefined;
    if (table === undefined) {
      const hosted = deps.chains.chainIds().join(", ");
      const err = new ResourceNotFoundError(`unknown chain ${chain.slice(0, 32)}; hosted chains: ${hosted}`);
      return reply.code(404).type("application/json").send(errorBody(err));
    }
    let dopts = chainOpts.get(chain);
    if (dopts === undefined) {
      const unknownMethod = (): RpcErrorObject | undefined => {
        const state = deps.chains.notRunning?.(chain);
        return state === undefined
          ? undefined
          : { code: RPC_SERVER_ERROR, message: `chain ${chain} is not running (${state})`, data: { state } };
      };
      dopts = withObserver({ ...base, ctx: { chainId: BigInt(chain) }, unknownMethod }, observerFor(chain));
      chainOpts.set(chain, dopts);
    }
    return send(reply, table, req.body, dopts);
  });
}

/** `/healthz`, `/readyz` and the status page. */
function routeHealth(app: FastifyInstance, opts: RpcServerOptions, deps: RpcServerDeps): void {
  app.get("/healthz", async (_req, reply) =>
    reply.type("application/json").send(stringifyJson({ status: "ok", version: opts.version ?? "" })),
  );
  app.get("/readyz", async (_req, reply) => {
    const r = deps.readiness();
    return reply
      .code(r.ready ? 200 : 503)
      .type("application/json")
      .send(stringifyJson(r));
  });

  app.get("/status", async (_req, reply) => reply.headers(STATUS_PAGE_HEADERS).send(statusPageHtml()));
}

/** Not found and Fastify's own errors as JSON-RPC error envelopes (no internal detail). */
function handleErrors(app: FastifyInstance, deps: RpcServerDeps, maxBodyBytes: number): void {
  app.setNotFoundHandler(async (_req, reply) =>
    reply
      .code(404)
      .type("application/json")
      .send(errorBody(new ResourceNotFoundError("not found"))),
  );
  app.setErrorHandler(async (err: { statusCode?: number; code?: string }, _req, reply) => {
    const status = err.statusCode ?? 500;
    if (status === 413) {
      return reply
        .code(413)
        .type("application/json")
        .send(errorBody(new LimitExceededError(`request body too large (limit ${maxBodyBytes} bytes)`)));
    }
    if (status === 415) {
      return reply
        .code(415)
        .type("application/json")
        .send(errorBody(new InvalidRequestError("invalid content type, only application/json is supported")));
    }
    if (status === 408) {
      return reply
        .code(408)
        .type("application/json")
        .send(errorBody(new InvalidRequestError("request timed out")));
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).type("application/json").send(errorBody(new InvalidRequestError()));
    }
    deps.logger.error({ err }, "rpc server error");
    return reply
      .code(500)
      .type("application/json")
      .send(errorBody(new InvalidRequestError("internal error")));
  });
}

function withObserver(o: DispatchOptions, observer: RpcObserver | undefined): DispatchOptions {
  return observer === undefined ? o : { ...o, observer };
}
