import { runHeartbeat } from "../activities/heartbeat.js";
import type { ActivityChainView } from "../activities/ports.js";
import type { SuperRootHashing } from "../activities/superroot.js";
import type { SupernodeConfig } from "../config/types.js";
import type { L1Source, SuperAuthority } from "../node/ports.js";
import type { Logger } from "../core/logger.js";
import { type Clock, systemClock } from "../core/time/clock.js";
import type { SyncStatus } from "../core/types/block-ref.js";
import { createSupernodeMetrics, type SupernodeMetrics } from "../observability/metrics-registry.js";
import type { MetricsServer } from "../observability/metrics-server.js";
import type { PprofServer } from "../observability/pprof.js";
import type { RpcServer } from "../rpc/server.js";
import { clientSafeMessage } from "../rpc/errors.js";
import type { ChainServiceFactory } from "./chain-service.js";
import { ChainSupervisor, isReadyState, type SupervisorOptions } from "./chain-supervisor.js";
import { InteropRuntime } from "./interop.js";
import { createRootMethods } from "./root-methods.js";
import { listenServers } from "./servers.js";
import { VerifiedBarrier } from "./verified-barrier.js";

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
    const { interop, runtimes } = await openRuntimes(config, deps, { clock, metrics });
    const cleanups: Array<() => Promise<void>> = [() => runtimes.close()];
    try {
      const supervisors = makeSupervisors(config, runtimes, deps, { clock, metrics });
      const root = createRootMethods(
        [...supervisors.values()].map((sup) => activityView(sup)),
        {
          version: SUPERNODE_VERSION,
          enableAdmin: config.rpc.enableAdmin,
          hashing: deps.hashing,
          ...(interop === undefined ? {} : { interopStatus: () => interop.status(), verifier: interop }),
        },
      );
      // Register everything, then bind: the RPC server never answers with a half-built router.
      const servers = await listenServers(config, {
        supervisors,
        root,
        metrics,
        logger: log,
        cleanups,
        version: SUPERNODE_VERSION,
        barrier: interop === undefined ? undefined : new VerifiedBarrier((id) => interop.verifiedHeadOf(id)),
      });
      const abort = new AbortController();
      const activities = startActivities({ config, deps, clock, metrics, supervisors, interop, runtimes, abort });
      log.info(
        {
          rpc: servers.rpc.url,
          metrics: servers.metricsServer?.url ?? "disabled",
          pprof: servers.pprof?.url ?? "disabled",
          chains: [...supervisors.keys()].join(","),
        },
        "supernode started",
      );
      return new Supernode({ ...servers, supervisors, metrics, runtimes, abort, activities, logger: log });
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

/**
 * The activities' read-only view of one supervised chain. Its optimistic block at a height where a block was denied
 * carries the denied block's output (optimistically it would not have been replaced; op-supernode's
 * OptimisticOutputAtTimestamp), with the local-safe block's L1 inclusion.
 */
function activityView(sup: ChainSupervisor): ActivityChainView {
  return {
    chainId: sup.chainId,
    syncStatus: async () => (await sup.syncStatus())?.status,
    state: () => sup.state,
    reason: () => (sup.reason === undefined ? undefined : clientSafeMessage(sup.reason)),
    optimisticAt: async (ts) => {
      const b = await sup.current?.blockAtTimestamp(ts);
      const denied = b === undefined ? undefined : sup.current?.deniedOutputAt(b.l2.number);
      return denied === undefined || b === undefined ? b : { ...b, output: denied };
    },
    outputAtHash: async (hash) => sup.current?.outputAtHash(hash),
  };
}

/** Opens the interop stores and builds the chains; the interop stores close after the chains' shared resources. */
async function openRuntimes(
  config: SupernodeConfig,
  deps: SupernodeDeps,
  ctx: { clock: Clock; metrics: SupernodeMetrics },
): Promise<{ interop: InteropRuntime | undefined; runtimes: ChainRuntimes }> {
  const interop = await InteropRuntime.open(config, { logger: deps.logger });
  let built: ChainRuntimes;
  try {
    built = await deps.buildChains(config, {
      logger: deps.logger,
      clock: ctx.clock,
      metrics: ctx.metrics,
      version: SUPERNODE_VERSION,
      superAuthorityFor: interop === undefined ? undefined : (id) => interop.authorityFor(id),
    });
  } catch (err) {
    await interop?.close();
    throw err;
  }
  if (interop === undefined) return { interop, runtimes: built };
  const close = async () => {
    await interop.close();
    await built.close();
  };
  return { interop, runtimes: { ...built, close } };
}

/** One supervisor per configured chain, reporting its state to the metrics (not started yet). */
function makeSupervisors(
  config: SupernodeConfig,
  runtimes: ChainRuntimes,
  deps: SupernodeDeps,
  ctx: { clock: Clock; metrics: SupernodeMetrics },
): Map<string, ChainSupervisor> {
  const { metrics } = ctx;
  const supervisors = new Map<string, ChainSupervisor>();
  for (const chainId of config.chains) {
    const id = chainId.toString(10);
    const factory = runtimes.factories.get(chainId);
    if (factory === undefined) throw new Error(`no runtime built for chain ${id}`);
    const options = {
      logger: deps.logger.child({ chain: id }),
      clock: ctx.clock,
      onState: (s: ChainSupervisor["state"]) => metrics.setChainState(id, s, isReadyState(s)),
      onRestart: () => metrics.incChainRestarts(id),
    };
    supervisors.set(id, new ChainSupervisor(chainId, factory, options, deps.supervisor));
    metrics.setChainState(id, "stopped", false);
  }
  metrics.setHeadsSource(async () =>
    Promise.all(
      [...supervisors.entries()].map(async ([chainId, sup]) => {
        const s = (await sup.syncStatus())?.status;
        return { chainId, heads: s === undefined ? {} : headsOf(s) };
      }),
    ),
  );
  return supervisors;
}

/** Starts the chains and the process-wide activities (heartbeat, interop); returns the activities' promises. */
function startActivities(p: {
  config: SupernodeConfig;
  deps: SupernodeDeps;
  clock: Clock;
  metrics: SupernodeMetrics;
  supervisors: ReadonlyMap<string, ChainSupervisor>;
  interop: InteropRuntime | undefined;
  runtimes: ChainRuntimes;
  abort: AbortController;
}): Promise<void>[] {
  const { deps, clock, metrics, interop, abort } = p;
  const log = deps.logger;
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
  for (const sup of p.supervisors.values()) sup.start();
  if (interop === undefined) return activities;
  if (p.runtimes.l1 === undefined) throw new Error("interop needs the shared L1 source");
  metrics.setActivityUp("interop", true);
  activities.push(
    interop
      .start(p.supervisors, p.runtimes.l1, {
        logger: log.child({ activity: "interop" }),
        clock,
        metrics,
        signal: abort.signal,
      })
      .finally(() => metrics.setActivityUp("interop", false)),
  );
  return activities;
}
