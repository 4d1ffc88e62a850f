import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { type Clock, type Hash, type Logger, nowSec } from "supernode/core";
import { type ChainParams, DEFAULT_EIP1559, makeGenesis } from "./block-builder.js";
import { ElChainStore } from "./chain-store.js";
import { ElCore } from "./el-core.js";
import { engineMethods } from "./engine-api.js";
import { ethMethods } from "./eth-api.js";
import { type Http1Request, type Http1Response, listenHttp1 } from "./http1-server.js";
import { CorsPolicy } from "./cors.js";
import { baseMethods, debugMethods, traceMethods } from "./extra-api.js";
import { FilterRegistry } from "./filters.js";
import { type RpcHandler, type RpcMethods, dispatchBody } from "./json-rpc.js";
import { verifyEngineJwt } from "./jwt-auth.js";
import { rollupMethods } from "./rollup-api.js";
import { SubscriptionHub } from "./subscriptions.js";
import { ElSyncSource, httpBlockFetcher } from "./sync-source.js";
import { txpoolMethods } from "./txpool-api.js";
import type { Eip1559Constants, ElForks, SimBlock, Variant } from "./types.js";

export const DEFAULT_HTTP_API: readonly string[] = ["eth", "net", "web3"];
const KNOWN_API = new Set(["eth", "net", "web3", "txpool", "debug", "trace"]);

export interface SimulatedElOptions {
  readonly variant: Variant;
  readonly chainId: bigint;
  readonly genesis: {
    readonly timestamp: number;
    readonly gasLimit: bigint;
    readonly forks: ElForks;
    readonly alloc?: Readonly<Record<string, bigint>>;
    readonly eip1559?: Eip1559Constants;
  };
  readonly http: {
    readonly addr?: string;
    readonly port: number;
    readonly api?: readonly string[];
    /** Origins a browser page may call the HTTP port from (`*` = any; default none), as `--http.corsdomain`. */
    readonly corsDomain?: readonly string[];
  };
  readonly ws?: { readonly addr?: string; readonly port: number };
  readonly authrpc: { readonly addr?: string; readonly port: number; readonly jwtSecret: Uint8Array };
  readonly sequencerHttp?: string;
  /** Another client's HTTP JSON-RPC to fetch missing blocks from (EL sync, sync-source.ts). */
  readonly syncSourceHttp?: string;
  /** Keep the chain on disk here (chain-store.ts): a restart with the same directory resumes it. */
  readonly datadir?: string;
  /**
   * A forkchoice update whose head is a canonical ancestor of the current head: `"reorg"` (default) moves the head
   * back to it; `"keep-head"` answers VALID and keeps the head (safe and finalized are still set, and a payload
   * asked for is built on that ancestor), as op-geth does for OP chains (geth ignores such an update entirely)
   * and op-reth unless configured to unwind; the head then moves only when a block off that ancestor is chosen.
   */
  readonly ancestorForkchoice?: "reorg" | "keep-head";
}

export interface SimulatedElDeps {
  readonly logger: Logger;
  readonly clock: Clock;
}

function merge(...maps: Map<string, RpcHandler>[]): Map<string, RpcHandler> {
  const out = new Map<string, RpcHandler>();
  for (const m of maps) for (const [k, v] of m) out.set(k, v);
  return out;
}

const BODY_LIMIT = 128 * 1024 * 1024;

/**
 * A JSON-RPC 2.0 endpoint on the lean HTTP/1.1 server (http1-server.ts; thousands of Engine API calls a second in
 * catch-up): `POST /` with any content type, single and batch requests (json-rpc.ts), an optional authorization
 * check answering 401 with the reason, 404 for other paths and methods, 413 beyond the body limit; with a CORS
 * policy, preflights answered and allowed origins named in every answer (cors.ts).
 */
async function listenRpc(
  addr: string,
  port: number,
  methods: RpcMethods,
  authorize?: (header: string | undefined) => string | undefined,
  cors?: CorsPolicy,
): Promise<{ close: () => Promise<void>; url: string }> {
  const text = (status: number, body: string) => ({ status, contentType: "text/plain; charset=utf-8", body });
  const answer = async (req: Http1Request): Promise<Http1Response> => {
    if (authorize !== undefined) {
      const why = authorize(req.headers.authorization);
      if (why !== undefined) return text(401, `${why}\n`);
    }
    if (req.method !== "POST" || (req.path !== "/" && req.path !== "")) return text(404, "not found\n");
    const out = await dispatchBody(methods, req.body);
    if (out === undefined) return { status: 200, body: "" };
    return { status: 200, contentType: "application/json; charset=utf-8", body: JSON.stringify(out) };
  };
  const srv = await listenHttp1(
    addr,
    port,
    cors === undefined
      ? answer
      : async (req) => {
          const preflight = cors.preflight(req);
          if (preflight !== undefined) return preflight;
          const allow = cors.headers(req);
          const res = await answer(req);
          return allow === undefined ? res : { ...res, headers: allow };
        },
    BODY_LIMIT,
  );
  return { url: `http://${addr}:${srv.port}`, close: srv.close };
}

/**
 * A simulated OP execution client (variant A or B) for devnets and tests: Engine API behind JWT on the auth port,
 * the execution-client JSON-RPC on the HTTP port, subscriptions on the WebSocket port. It keeps a ledger of
 * balances and nonces instead of running the EVM (docs/architecture-devnet.md, "Simulated execution client").
 */
export class SimulatedExecutionClient {
  private constructor(
    readonly core: ElCore,
    readonly httpUrl: string,
    readonly authUrl: string,
    readonly wsUrl: string | undefined,
    /** The `eth_newFilter` family's filters (filters.ts). */
    readonly filters: FilterRegistry,
    private readonly closers: (() => Promise<void>)[],
  ) {}

  static async start(opts: SimulatedElOptions, deps: SimulatedElDeps): Promise<SimulatedExecutionClient> {
    const log = deps.logger.child({ module: "sim-el", variant: opts.variant, chain: opts.chainId.toString() });
    const params: ChainParams = {
      chainId: opts.chainId,
      forks: opts.genesis.forks,
      eip1559: opts.genesis.eip1559 ?? DEFAULT_EIP1559,
    };
    const genesis = makeGenesis(params, {
      timestamp: opts.genesis.timestamp,
      gasLimit: opts.genesis.gasLimit,
      ...(opts.genesis.alloc === undefined ? {} : { alloc: opts.genesis.alloc }),
    });
    const core = new ElCore(params, opts.variant, genesis, deps.clock, log, opts.sequencerHttp);
    core.ancestorForkchoice = opts.ancestorForkchoice ?? "reorg";
    if (opts.syncSourceHttp !== undefined) {
      core.syncSource = new ElSyncSource(
        core,
        httpBlockFetcher(opts.syncSourceHttp),
        log.child({ module: "sync-source" }),
      );
    }
    const api = (opts.http.api ?? DEFAULT_HTTP_API).map((s) => s.trim()).filter((s) => s !== "");
    for (const ns of api) if (!KNOWN_API.has(ns)) throw new Error(`unknown --http.api namespace "${ns}"`);
    // Parity-style trace_* exist on variant A only: variant B neither serves nor lists them (rpc_modules).
    const served = api.filter((ns) => ns !== "trace" || opts.variant === "a");
    const eth = ethMethods(core);
    const base = baseMethods(core, served);
    const filters = new FilterRegistry(core, eth.get("eth_getLogs")!);
    const publicMethods = merge(
      served.includes("eth") ? merge(eth, filters.methods(), rollupMethods(core, eth)) : new Map(),
      base,
      served.includes("txpool") ? txpoolMethods(core) : new Map(),
      served.includes("debug") ? debugMethods(core) : new Map(),
      served.includes("trace") ? traceMethods(core) : new Map(),
    );
    const closers: (() => Promise<void>)[] = [async () => filters.close()];
    const cors = new CorsPolicy(opts.http.corsDomain ?? []);
    try {
      const http = await listenRpc(
        opts.http.addr ?? "127.0.0.1",
        opts.http.port,
        publicMethods,
        undefined,
        cors.enabled ? cors : undefined,
      );
      closers.push(http.close);
      const authMethods = merge(eth, base, engineMethods(core));
      if (opts.datadir !== undefined) {
        const store = new ElChainStore(opts.datadir, genesis.hash);
        const replayed = await store.attach(authMethods);
        if (replayed > 0)
          log.info({ replayed, head: core.chain.head.header.number, path: store.path }, "chain store replayed");
      }
      const secret = opts.authrpc.jwtSecret;
      if (secret.length !== 32) throw new Error("JWT secret must be 32 bytes");
      const auth = await listenRpc(opts.authrpc.addr ?? "127.0.0.1", opts.authrpc.port, authMethods, (h) => {
        const r = verifyEngineJwt(h, secret, nowSec(deps.clock));
        return r.ok ? undefined : r.reason;
      });
      closers.push(auth.close);
      let wsUrl: string | undefined;
      if (opts.ws !== undefined) {
        const ws = await listenWs(core, opts.ws.addr ?? "127.0.0.1", opts.ws.port, publicMethods);
        closers.push(ws.close);
        wsUrl = ws.url;
      }
      log.info(
        { http: http.url, auth: auth.url, ws: wsUrl, genesis: genesis.hash },
        "simulated execution client started",
      );
      return new SimulatedExecutionClient(core, http.url, auth.url, wsUrl, filters, closers);
    } catch (e) {
      for (const c of closers.reverse()) await c().catch(() => {});
      throw e;
    }
  }

  get variant(): Variant {
    return this.core.variant;
  }

  get genesisHash(): Hash {
    return this.core.chain.genesis.hash;
  }

  get genesisBlock(): { number: number; hash: Hash; timestamp: number } {
    const g = this.core.chain.genesis;
    return { number: 0, hash: g.hash, timestamp: g.header.timestamp };
  }

  /** The canonical head (for tests and the devnet orchestration). */
  get head(): SimBlock {
    return this.core.chain.head;
  }

  async stop(): Promise<void> {
    for (const c of this.closers.splice(0).reverse()) await c().catch(() => {});
  }
}

async function listenWs(
  core: ElCore,
  addr: string,
  port: number,
  methods: RpcMethods,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(400).end("websocket only\n");
  });
  const wss = new WebSocketServer({ server, maxPayload: 128 * 1024 * 1024 });
  wss.on("connection", (socket) => {
    const hub = new SubscriptionHub(core, socket);
    const connMethods = merge(new Map(methods), hub.methods());
    socket.on("message", (data) => {
      void dispatchBody(connMethods, data.toString()).then((out) => {
        if (out !== undefined && socket.readyState === socket.OPEN) socket.send(JSON.stringify(out));
      });
    });
    socket.on("close", () => hub.close());
    socket.on("error", () => hub.close());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, addr, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return {
    url: `ws://${addr}:${a.port}`,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
