import type { SupernodeConfig } from "../config/types.js";
import type { Logger } from "../core/logger.js";
import type { SupernodeMetrics } from "../observability/metrics-registry.js";
import { MetricsServer } from "../observability/metrics-server.js";
import { PprofServer } from "../observability/pprof.js";
import type { MethodTable } from "../rpc/method-table.js";
import { clientSafeMessage } from "../rpc/errors.js";
import { RpcServer } from "../rpc/server.js";
import type { ChainSupervisor } from "./chain-supervisor.js";
import type { VerifiedBarrier } from "./verified-barrier.js";

/** The process's listeners: the JSON-RPC server, the metrics servers (shared and per chain) and the profiler. */
export interface Servers {
  readonly rpc: RpcServer;
  readonly metricsServer: MetricsServer | undefined;
  readonly chainMetricsServers: MetricsServer[];
  readonly pprof: PprofServer | undefined;
}

/**
 * Binds every listener the configuration asks for. Each bound listener's close is put at the front of `cleanups`
 * (so a later failure closes what was bound, newest first).
 */
export async function listenServers(
  config: SupernodeConfig,
  p: {
    supervisors: ReadonlyMap<string, ChainSupervisor>;
    root: MethodTable;
    version: string;
    metrics: SupernodeMetrics;
    logger: Logger;
    cleanups: Array<() => Promise<void>>;
    /** Interop: holds a chain's requests until its safe head is back at what was verified. */
    barrier?: VerifiedBarrier | undefined;
  },
): Promise<Servers> {
  const { supervisors, metrics, cleanups } = p;
  const rpc = await RpcServer.listen(
    {
      addr: config.rpc.addr,
      port: config.rpc.port,
      enableAdmin: config.rpc.enableAdmin,
      version: p.version,
      ...(config.rpc.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.rpc.requestTimeoutMs }),
      ...(config.rpc.maxConnections === undefined ? {} : { maxConnections: config.rpc.maxConnections }),
      ...(config.rpc.maxConnectionsPerClient === undefined
        ? {}
        : { maxConnectionsPerClient: config.rpc.maxConnectionsPerClient }),
      ...(config.rpc.chainReadyWaitMs === undefined ? {} : { chainReadyWaitMs: config.rpc.chainReadyWaitMs }),
    },
    {
      root: p.root,
      chains: {
        tableOf: (id) => supervisors.get(id)?.methods,
        chainIds: () => [...supervisors.keys()],
        notRunning: (id) => {
          const sup = supervisors.get(id);
          return sup === undefined || sup.current !== undefined ? undefined : sup.state;
        },
        restarting: (id) => {
          const sup = supervisors.get(id);
          if (sup === undefined) return false;
          const svc = sup.current;
          if (svc === undefined) return sup.state === "starting" || sup.state === "backoff";
          return p.barrier?.holds(id, svc) ?? false;
        },
      },
      readiness: () => readiness(supervisors),
      logger: p.logger.child({ module: "rpc" }),
      observerFor: (chain) => metrics.rpcObserverFor(chain),
    },
  );
  cleanups.unshift(() => rpc.close());
  let metricsServer: MetricsServer | undefined;
  if (config.metrics.enabled) {
    const m = await MetricsServer.listen({ addr: config.metrics.addr, port: config.metrics.port }, metrics.registry);
    cleanups.unshift(() => m.close());
    metricsServer = m;
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
    const pp = await PprofServer.listen({ addr: config.pprof.addr, port: config.pprof.port });
    cleanups.unshift(() => pp.close());
    pprof = pp;
  }
  return { rpc, metricsServer, chainMetricsServers, pprof };
}

/** `/readyz`: every chain's health, with messages safe for the public RPC port. */
export function readiness(supervisors: ReadonlyMap<string, ChainSupervisor>) {
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
