import { runHeartbeat } from "../activities/heartbeat.js";
import type { ActivityChainView, ChainBlockAt } from "../activities/ports.js";
import type { SuperRootHashing } from "../activities/superroot.js";
import type { SupernodeConfig } from "../config/types.js";
import type { L1Source, SuperAuthority } from "../node/ports.js";
import type { Logger } from "../core/logger.js";
import { type Clock, systemClock } from "../core/time/clock.js";
import type { SyncStatus } from "../core/types/block-ref.js";
import { createSupernodeMetrics, type SupernodeMetrics } from "../observability/metrics-registry.js";
import { MetricsServer } from "../observability/metrics-server.js";
import { PprofServer } from "../observability/pprof.js";
import { RpcServer } from "../rpc/server.js";
import { clientSafeMessage } from "../rpc/errors.js";
import type { ChainServiceFactory } from "./chain-service.js";
import { ChainSupervisor, isReadyState, type SupervisorOptions } from "./chain-supervisor.js";
import { InteropRuntime } from "./interop.js";
import { createRootMethods } from "./root-methods.js";

export const SUPERNODE_VERSION = "v0.1.0";

/** Per-chain instance factories plus the shared resources they use (closed last, after every chain stopped). */
export interface ChainRuntimes {
  readonly factories: ReadonlyMap<bigint, ChainServiceFactory>;
  /** The shared L1 source (interop checks L1 inclusions against it). */
  readonly l1?: L1Source | undefined;
  close(): Promise<void>;
}

export interface ChainBuildContext {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: SupernodeMetrics;
  readonly version: string;
  /** Interop: the authority over a chain's safe/finalized labels (absent while interop is disabled). */
  readonly superAuthorityFor?: ((chainId: bigint) => SuperAuthority | undefined) | undefined;
}

export type ChainRuntimeBuilder = (config: SupernodeConfig, ctx: ChainBuildContext) => Promise<ChainRuntimes>;

export interface SupernodeDeps {
  readonly logger: Logger;
  /** Builds the chains (the real one is `buildChainRuntimes` in chain-factory.ts; tests inject fakes). */
  readonly buildChains: ChainRuntimeBuilder;
  readonly hashing: SuperRootHashing;
  readonly clock?: Clock;
  readonly supervisor?: Partial<SupervisorOptions>;
  readonly heartbeatIntervalMs?: number;
}

/**
 * The composition root at run time: one RPC server, one metrics registry (and its servers), the profiler, and one
 * supervised container per chain. `start` returns once every server is bound (chains start in the background);
 * `stop` shuts down in reverse order: RPC (no new work) → chains → activities → servers → shared resources.
 */
export class Supernode {
  readonly rpc: RpcServer;
  readonly metricsServer: MetricsServer | undefined;
  readonly chainMetricsServers: readonly MetricsServer[];
  readonly pprof: PprofServer | undefined;
  readonly supervisors: ReadonlyMap<string, ChainSupervisor>;
  readonly metrics: SupernodeMetrics;
  readonly #runtimes: ChainRuntimes;
  readonly #abort: AbortController;
  readonly #activities: Promise<void>[];
  readonly #logger: Logger;
  #stopping: Promise<void> | undefined;

  private constructor(parts: {
    rpc: RpcServer;
    metricsServer: MetricsServer | undefined;
    chainMetricsServers: MetricsServer[];
    pprof: PprofServer | undefined;
    supervisors: Map<string, ChainSupervisor>;
    metrics: SupernodeMetrics;
    runtimes: ChainRuntimes;
    abort: AbortController;
    activities: Promise<void>[];
    logger: Logger;
  }) {
    this.rpc = parts.rpc;
    this.metricsServer = parts.metricsServer;
    this.chainMetricsServers = parts.chainMetricsServers;
    this.pprof = parts.pprof;
    this.supervisors = parts.supervisors;
    this.metrics = parts.metrics;
    this.#runtimes = parts.runtimes;
    this.#abort = parts.abort;
    this.#activities = parts.activities;
    this.#logger = parts.logger;
  }

  static async start(config: SupernodeConfig, deps: SupernodeDeps): Promise<Supernode> {
    const clock = deps.clock ?? systemClock;
    const log = deps.logger;
    const metrics = createSupernodeMetrics({ version: SUPERNODE_VERSION, processMetrics: config.metrics.enabled });
    const interop = await InteropRuntime.open(config);
    let built: ChainRuntimes;
    try {
      built = await deps.buildChains(config, {
        logger: log,
        clock,
        metrics,
        version: SUPERNODE_VERSION,
        superAuthorityFor: interop === undefined ? undefined : (id) => interop.authorityFor(id),
      });
    } catch (err) {
      await interop?.close();
      throw err;
    }
    // The interop stores close with the shared resources, after the activity loop ended.
    const runtimes: ChainRuntimes =
      interop === undefined
        ? built
        : {
            ...built,
            close: async () => {
              await interop.close();
              await built.close();
            },
          };
    const cleanups: Array<() => Promise<void>> = [() => runtimes.close()];
    try {
      const supervisors = new Map<string, ChainSupervisor>();
      for (const chainId of config.chains) {
        const id = chainId.toString(10);
        const factory = runtimes.factories.get(chainId);
        if (factory === undefined) throw new Error(`no runtime built for chain ${id}`);
        supervisors.set(
          id,
          new ChainSupervisor(
            chainId,
            factory,
            {
              logger: log.child({ chain: id }),
              clock,
              onState: (s) => metrics.setChainState(id, s, isReadyState(s)),
              onRestart: () => metrics.incChainRestarts(id),
            },
            deps.supervisor,
          ),
        );
        metrics.setChainState(id, "stopped", false);
      }
      const views = [...supervisors.values()].map((sup) => activityView(sup, interop));
      metrics.setHeadsSource(async () =>
        Promise.all(
          [...supervisors.entries()].map(async ([chainId, sup]) => {
            const s = (await sup.syncStatus())?.status;
            return { chainId, heads: s === undefined ? {} : headsOf(s) };
          }),
        ),
      );
      const enableAdmin = config.rpc.enableAdmin;
      const root = createRootMethods(views, {
        version: SUPERNODE_VERSION,
        enableAdmin,
        hashing: deps.hashing,
        ...(interop === undefined ? {} : { interopStatus: () => interop.status() }),
      });

      // Register everything, then bind: the RPC server never answers with a half-built router.
      const rpc = await RpcServer.listen(
        {
          addr: config.rpc.addr,
          port: config.rpc.port,
          enableAdmin,
          version: SUPERNODE_VERSION,
          ...(config.rpc.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.rpc.requestTimeoutMs }),
          ...(config.rpc.maxConnections === undefined ? {} : { maxConnections: config.rpc.maxConnections }),
        },
        {
          root,
          chains: {
            tableOf: (id) => supervisors.get(id)?.methods,
            chainIds: () => [...supervisors.keys()],
            notRunning: (id) => {
              const sup = supervisors.get(id);
              return sup === undefined || sup.current !== undefined ? undefined : sup.state;
            },
          },
          readiness: () => readiness(supervisors),
          logger: log.child({ module: "rpc" }),
          observerFor: (chain) => metrics.rpcObserverFor(chain),
        },
      );
      cleanups.unshift(() => rpc.close());
      let metricsServer: MetricsServer | undefined;
      if (config.metrics.enabled) {
        metricsServer = await MetricsServer.listen(
          { addr: config.metrics.addr, port: config.metrics.port },
          metrics.registry,
        );
        cleanups.unshift(() => metricsServer!.close());
      }
      const chainMetricsServers: MetricsServer[] = [];
      for (const chain of config.chainConfigs) {
        if (!chain.metrics.enabled) continue;
        const m = await MetricsServer.listen(
          { addr: chain.metrics.addr, port: chain.metrics.port, chainId: chain.chainId.toString(10) },
          metrics.registry,
        );
        chainMetricsServers.push(m);
        cleanups.unshift(() => m.close());
      }
      let pprof: PprofServer | undefined;
      if (config.pprof.enabled) {
        pprof = await PprofServer.listen({ addr: config.pprof.addr, port: config.pprof.port });
        cleanups.unshift(() => pprof!.close());
      }

      const abort = new AbortController();
      const activities: Promise<void>[] = [];
      metrics.setActivityUp("supernode", true);
      metrics.setActivityUp("superroot", true);
      metrics.setActivityUp("heartbeat", true);
      activities.push(
        runHeartbeat({
          logger: log.child({ activity: "heartbeat" }),
          clock,
          signal: abort.signal,
          ...(deps.heartbeatIntervalMs === undefined ? {} : { intervalMs: deps.heartbeatIntervalMs }),
        }).finally(() => metrics.setActivityUp("heartbeat", false)),
      );
      for (const sup of supervisors.values()) sup.start();
      if (interop !== undefined) {
        if (runtimes.l1 === undefined) throw new Error("interop needs the shared L1 source");
        metrics.setActivityUp("interop", true);
        activities.push(
          interop
            .start(supervisors, runtimes.l1, {
              logger: log.child({ activity: "interop" }),
              clock,
              metrics,
              signal: abort.signal,
            })
            .finally(() => metrics.setActivityUp("interop", false)),
        );
      }
      log.info(
        {
          rpc: rpc.url,
          metrics: metricsServer?.url ?? "disabled",
          pprof: pprof?.url ?? "disabled",
          chains: [...supervisors.keys()].join(","),
        },
        "supernode started",
      );
      return new Supernode({
        rpc,
        metricsServer,
        chainMetricsServers,
        pprof,
        supervisors,
        metrics,
        runtimes,
        abort,
        activities,
        logger: log,
      });
    } catch (err) {
      for (const c of cleanups) await c().catch(() => {});
      throw err;
    }
  }

  /** Orderly shutdown (idempotent). */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    const log = this.#logger;
    log.info({}, "supernode stopping");
    await this.rpc.close(5_000);
    await Promise.all([...this.supervisors.values()].map((s) => s.stop()));
    this.#abort.abort();
    await Promise.allSettled(this.#activities);
    this.metrics.setActivityUp("supernode", false);
    this.metrics.setActivityUp("superroot", false);
    for (const m of this.chainMetricsServers) await m.close();
    await this.metricsServer?.close();
    await this.pprof?.close();
    await this.#runtimes.close();
    log.info({}, "supernode stopped");
  }
}

function headsOf(s: SyncStatus): Record<string, number> {
  return {
    unsafe: s.unsafe_l2.number,
    local_safe: s.local_safe_l2.number,
    safe: s.safe_l2.number,
    finalized: s.finalized_l2.number,
  };
}

function readiness(supervisors: ReadonlyMap<string, ChainSupervisor>) {
  const chains: Record<string, unknown> = {};
  let ready = true;
  for (const [id, sup] of supervisors) {
    const h = sup.health();
    // Served on the public RPC port: reasons and errors without internal endpoints, paths or line breaks (the
    // supervisor's log line keeps the detail).
    chains[id] = {
      ...h,
      ...(h.reason === undefined ? {} : { reason: clientSafeMessage(h.reason) }),
      ...(h.lastError === undefined ? {} : { lastError: clientSafeMessage(h.lastError) }),
    };
    if (!h.ready) ready = false;
  }
  return { ready, chains };
}

/** The activities' read-only view of one supervised chain (interop disabled: verified = local-safe). */
function activityView(sup: ChainSupervisor, interop: InteropRuntime | undefined): ActivityChainView {
  const at = async (ts: number): Promise<ChainBlockAt | undefined> => sup.current?.blockAtTimestamp(ts);
  return {
    chainId: sup.chainId,
    syncStatus: async () => (await sup.syncStatus())?.status,
    state: () => sup.state,
    reason: () => (sup.reason === undefined ? undefined : clientSafeMessage(sup.reason)),
    verifiedAt: async (ts) => {
      const b = await at(ts);
      if (b === undefined || interop === undefined) return b;
      return (await interop.isVerified(sup.chainId, ts, b.l2)) ? b : undefined;
    },
    optimisticAt: at,
  };
}
