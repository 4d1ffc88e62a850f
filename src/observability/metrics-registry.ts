import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The process's one prom-client registry (ADR 0012) and the supernode-wide series. Per-chain series (node, engine)
 * are registered on the same registry by their own modules with a `chain_id` label; nothing is merged.
 */
export const METRICS_PREFIX = "supernode_";

/**
 * Health states of a chain (app/chain-supervisor.ts), exported as `supernode_chain_state{chain_id,state}`
 * (1 = current); `supernode_chain_ready{chain_id}` is 1 while the state counts as ready.
 */
export const CHAIN_STATES = [
  "starting",
  "running",
  "degraded",
  "stalled",
  "failed",
  "backoff",
  "stopping",
  "stopped",
] as const;
export type ChainState = (typeof CHAIN_STATES)[number];

export interface HeadSample {
  readonly chainId: string;
  readonly heads: Readonly<Record<string, number>>;
}

export interface SupernodeMetrics {
  readonly registry: Registry;
  /** Observer for the RPC dispatch of one endpoint (`chain` = decimal chain ID or `supernode`). */
  rpcObserverFor(chain: string): { observe(method: string, code: number, seconds: number): void };
  setChainState(chainId: string, state: ChainState, ready: boolean): void;
  incChainRestarts(chainId: string): void;
  setActivityUp(activity: string, up: boolean): void;
  /** Heads reported at scrape time (`supernode_chain_head{chain_id,head}`); called on every scrape. */
  setHeadsSource(source: () => Promise<readonly HeadSample[]>): void;
}

/**
 * How often the event-loop delay monitor behind `supernode_nodejs_eventloop_lag_*` samples (ms). prom-client's
 * default, 10 ms, wakes the thread 100 times a second: ~2 ms of CPU per second of an otherwise idle process on the
 * project's VM, as much as a verifier spends deriving a block (docs/performance.md); 100 ms costs ~0.4 ms and still
 * samples a 15 s scrape 150 times.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export interface CreateMetricsOptions {
  readonly version: string;
  /** Collect Node process metrics (`supernode_process_*`, `supernode_nodejs_*`). Default true. */
  readonly processMetrics?: boolean;
}

export function createSupernodeMetrics(opts: CreateMetricsOptions, registry = new Registry()): SupernodeMetrics {
  if (opts.processMetrics ?? true)
    collectDefaultMetrics({
      register: registry,
      prefix: METRICS_PREFIX,
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
  const registers = [registry];
  new Gauge({
    name: `${METRICS_PREFIX}info`,
    help: "Supernode build information (always 1)",
    labelNames: ["version"],
    registers,
  }).set({ version: opts.version }, 1);
  new Gauge({ name: `${METRICS_PREFIX}up`, help: "1 while the supernode is running", registers }).set(1);
  const rpcRequests = new Counter({
    name: `${METRICS_PREFIX}rpc_requests_total`,
    help: "JSON-RPC calls served, by endpoint (chain_id or supernode), method and status (ok or the error code)",
    labelNames: ["chain_id", "method", "status"],
    registers,
  });
  const rpcDuration = new Histogram({
    name: `${METRICS_PREFIX}rpc_request_duration_seconds`,
    help: "Time to execute one JSON-RPC call, by endpoint and method",
    labelNames: ["chain_id", "method"],
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  const chainState = new Gauge({
    name: `${METRICS_PREFIX}chain_state`,
    help: "Health state of each chain: starting, running, degraded, stalled, failed, backoff, stopping, stopped (1 for the current state, 0 otherwise; docs/running.md)",
    labelNames: ["chain_id", "state"],
    registers,
  });
  const chainReady = new Gauge({
    name: `${METRICS_PREFIX}chain_ready`,
    help: "1 while the chain counts as ready for /readyz (state running), 0 otherwise",
    labelNames: ["chain_id"],
    registers,
  });
  const restarts = new Counter({
    name: `${METRICS_PREFIX}chain_restarts_total`,
    help: "Restarts of a chain's virtual node after it stopped or failed",
    labelNames: ["chain_id"],
    registers,
  });
  const activityUp = new Gauge({
    name: `${METRICS_PREFIX}activity_up`,
    help: "1 while an activity (heartbeat, supernode, superroot, interop) is running",
    labelNames: ["activity"],
    registers,
  });
  let headsSource: () => Promise<readonly HeadSample[]> = async () => [];
  new Gauge({
    name: `${METRICS_PREFIX}chain_head`,
    help: "L2 head block numbers of each chain as reported by its sync status (unsafe, local_safe, safe, finalized)",
    labelNames: ["chain_id", "head"],
    registers,
    async collect() {
      const samples = await headsSource();
      this.reset();
      for (const s of samples)
        for (const [head, n] of Object.entries(s.heads)) this.set({ chain_id: s.chainId, head }, n);
    },
  });

  return {
    registry,
    rpcObserverFor(chain) {
      return {
        observe(method, code, seconds) {
          rpcRequests.inc({ chain_id: chain, method, status: code === 0 ? "ok" : String(code) });
          rpcDuration.observe({ chain_id: chain, method }, seconds);
        },
      };
    },
    setChainState(chainId, state, ready) {
      restarts.inc({ chain_id: chainId }, 0); // the counter exists with 0 from the chain's first state on
      for (const s of CHAIN_STATES) chainState.set({ chain_id: chainId, state: s }, s === state ? 1 : 0);
      chainReady.set({ chain_id: chainId }, ready ? 1 : 0);
    },
    incChainRestarts(chainId) {
      restarts.inc({ chain_id: chainId });
    },
    setActivityUp(activity, up) {
      activityUp.set({ activity }, up ? 1 : 0);
    },
    setHeadsSource(source) {
      headsSource = source;
    },
  };
}
