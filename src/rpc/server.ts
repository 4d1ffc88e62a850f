import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "../core/logger.js";
import {
  type DispatchOptions,
  DEFAULT_MAX_BATCH_SIZE,
  dispatchText,
  type RpcObserver,
  stringifyJson,
} from "./dispatch.js";
import { InvalidRequestError, LimitExceededError, ResourceNotFoundError, type RpcError } from "./errors.js";
import type { MethodTable } from "./method-table.js";

/**
 * The one HTTP server of the supernode (Fastify). Routes:
 * - `POST /` → the supernode's own methods (activities);
 * - `POST /<chainID>` and `POST /<chainID>/` → that chain's current method table (decimal chain ID, exact match);
 * - `GET /healthz` → liveness; `GET /readyz` → 200 when every chain is running, else 503 (body lists each chain).
 * Anything else is a 404 with a JSON-RPC error body. Bodies are bounded (`maxBodyBytes`), batches too.
 */
export interface RpcServerOptions {
  readonly addr: string;
  readonly port: number;
  readonly enableAdmin: boolean;
  /** Default 5 MiB, as the Go node. */
  readonly maxBodyBytes?: number;
  readonly maxBatchSize?: number;
  /** Reported by `/healthz`. */
  readonly version?: string;
}

/** Where the server finds the chains' tables; consulted on every request (tables are replaced on restarts). */
export interface ChainTables {
  /** The current table of a hosted chain by its decimal ID, or undefined if the chain is not hosted. */
  tableOf(chainId: string): MethodTable | undefined;
  /** Decimal IDs of the hosted chains (for error messages). */
  chainIds(): readonly string[];
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

export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
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

function buildApp(opts: RpcServerOptions, deps: RpcServerDeps): FastifyInstance {
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = Fastify({
    logger: false,
    bodyLimit: maxBodyBytes,
    routerOptions: { ignoreTrailingSlash: true },
    requestTimeout: 30_000,
    keepAliveTimeout: 120_000,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: "string", bodyLimit: maxBodyBytes }, (_req, body, done) => {
    done(null, body);
  });

  const observers = new Map<string, RpcObserver | undefined>();
  const observerFor = (label: string): RpcObserver | undefined => {
    if (!observers.has(label)) observers.set(label, deps.observerFor?.(label));
    return observers.get(label);
  };
  const onUnexpectedError = (method: string, err: unknown): void => {
    deps.logger.error({ method, err }, "rpc method failed unexpectedly");
  };
  const base = {
    enableAdmin: opts.enableAdmin,
    maxBatchSize: opts.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
    onUnexpectedError,
  };
  const rootOpts: DispatchOptions = withObserver({ ...base, ctx: {} }, observerFor("supernode"));

  const send = async (reply: FastifyReply, table: MethodTable, body: unknown, dopts: DispatchOptions) => {
    const text = await dispatchText(table, typeof body === "string" ? body : "", dopts);
    if (text === undefined) return reply.code(204).send();
    return reply.code(200).type("application/json").send(text);
  };

  app.post("/", async (req, reply) => send(reply, deps.root, req.body, rootOpts));

  const chainOpts = new Map<string, DispatchOptions>();
  app.post("/:chain", async (req: FastifyRequest<{ Params: { chain: string } }>, reply) => {
    const chain = req.params.chain;
    const table = CHAIN_ID_RE.test(chain) ? deps.chains.tableOf(chain) : undefined;
    if (table === undefined) {
      const hosted = deps.chains.chainIds().join(", ");
      const err = new ResourceNotFoundError(`unknown chain ${chain.slice(0, 32)}; hosted chains: ${hosted}`);
      return reply.code(404).type("application/json").send(errorBody(err));
    }
    let dopts = chainOpts.get(chain);
    if (dopts === undefined) {
      dopts = withObserver({ ...base, ctx: { chainId: BigInt(chain) } }, observerFor(chain));
      chainOpts.set(chain, dopts);
    }
    return send(reply, table, req.body, dopts);
  });

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
    if (status >= 400 && status < 500) {
      return reply.code(status).type("application/json").send(errorBody(new InvalidRequestError()));
    }
    deps.logger.error({ err }, "rpc server error");
    return reply
      .code(500)
      .type("application/json")
      .send(errorBody(new InvalidRequestError("internal error")));
  });
  return app;
}

function withObserver(o: DispatchOptions, observer: RpcObserver | undefined): DispatchOptions {
  return observer === undefined ? o : { ...o, observer };
}
