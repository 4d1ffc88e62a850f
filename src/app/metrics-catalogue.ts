import { Registry } from "prom-client";
import { createBeaconMetrics } from "../io/beacon/metrics.js";
import { createL1Metrics } from "../io/l1/metrics.js";
import { createChainMetrics, payloadIdPredictionCounter } from "./chain-metrics.js";
import { createInteropMetrics } from "../observability/interop-metrics.js";
import { createP2PMetrics } from "../p2p/metrics.js";
import { createSupernodeMetrics } from "../observability/metrics-registry.js";
import { renderMetricsCatalogue } from "../observability/metrics-doc.js";
import { SUPERNODE_VERSION } from "./supernode.js";

const INTRO = `# Metrics

<!-- Generated from the registry by src/app/metrics-catalogue.ts; do not edit by hand.
     Regenerate: UPDATE_METRICS_DOC=1 npx vitest run test/integration/app/metrics-doc.test.ts -->

With \`--metrics.enabled\` the supernode serves every series of every chain on one Prometheus endpoint,
\`http://<metrics.addr>:<metrics.port>/metrics\` (default port 7300). All series share one registry (ADR 0012); the
per-chain series carry a \`chain_id\` label (decimal chain ID). A chain started with
\`--vn.<id>.metrics.enabled --vn.<id>.metrics.addr … --vn.<id>.metrics.port …\` additionally gets its own endpoint
that serves only the series labelled with its \`chain_id\` (the same numbers; nothing is counted twice).

RPC series use \`chain_id="supernode"\` for the supernode's own endpoint (\`POST /\`); \`status\` is \`ok\` or the
JSON-RPC error code; calls of unknown methods are counted under \`method="unknown"\` so clients cannot inflate the
label set. Besides the families below, the standard Node.js process collectors are exported with the
\`supernode_\` prefix (\`supernode_process_cpu_seconds_total\`, \`supernode_process_resident_memory_bytes\`,
\`supernode_nodejs_eventloop_lag_seconds\`, \`supernode_nodejs_eventloop_lag_p50_seconds\`,
\`supernode_nodejs_eventloop_lag_p99_seconds\`, \`supernode_nodejs_heap_size_used_bytes\`,
\`supernode_nodejs_heap_size_total_bytes\`, …). The event-loop lag series sample the loop every 100 ms
(prom-client's default of 10 ms woke the process 100 times a second, ~2 ms of CPU per second; docs/performance.md).

The alert rules (\`deploy/prometheus/supernode-alerts.yml\`) and the Grafana dashboard
(\`deploy/grafana/supernode-dashboard.json\`) use only the series named here (checked by
\`test/integration/deploy/monitoring.test.ts\`); the counters they watch exist with 0 from start-up (per chain for
\`supernode_chain_restarts_total\` and \`supernode_node_errors_total\`, per kind for \`supernode_l1_errors_total\` and, with \`--l1.beacon\`, \`supernode_beacon_errors_total\`).

\`supernode_chain_state\` and \`supernode_chain_ready\` exist for every hosted chain from start-up and follow its one
health state (docs/running.md, "Chain health"); alert on \`supernode_chain_ready == 0\`.`;

/** Every family the supernode can export (process collectors excluded), for docs/metrics.md. */
export async function metricsCatalogue(): Promise<string> {
  const registry = new Registry();
  createSupernodeMetrics({ version: SUPERNODE_VERSION, processMetrics: false }, registry);
  createL1Metrics(registry);
  createBeaconMetrics(registry);
  createChainMetrics(registry, 1n);
  payloadIdPredictionCounter(registry, 1n);
  createInteropMetrics(registry);
  createP2PMetrics(registry, 1n);
  return renderMetricsCatalogue(registry, INTRO);
}
