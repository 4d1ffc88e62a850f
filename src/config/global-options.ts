import { LOG_FORMATS, LOG_LEVELS } from "./types.js";
import type { OptionSpec } from "./option-spec.js";

/** Prefix of every environment variable the supernode reads. */
export const ENV_PREFIX = "SUPERNODE";

const G_CORE = "Core";
const G_L1 = "L1";
const G_INTEROP = "Interop";
const G_RPC = "RPC";
const G_LOG = "Logging";
const G_METRICS = "Metrics and profiling";

/** The supernode's own (top-level) options, in help order. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  {
    name: "chains",
    type: "list",
    env: ["CHAINS"],
    group: G_CORE,
    help: "Chain IDs to host (comma list, repeatable); each needs its own --vn.<chainID>.* options. Required.",
  },
  {
    name: "data-dir",
    type: "path",
    default: "./datadir",
    env: ["DATA_DIR"],
    group: G_CORE,
    help: "Root of all persistent state; each chain's SafeDB and P2P state live in <data-dir>/chain-<chainID>",
  },
  {
    name: "disable-p2p",
    type: "bool",
    default: false,
    env: ["DISABLE_P2P"],
    group: G_CORE,
    help: "Disable P2P on all chains (per-chain enabling is unsupported)",
  },
  {
    name: "l1",
    type: "string",
    env: ["L1", "L1_ETH_RPC"],
    group: G_L1,
    help: "Shared L1 JSON-RPC endpoint (the eth namespace must be enabled). Required.",
  },
  {
    name: "l1.beacon",
    type: "string",
    env: ["L1_BEACON"],
    group: G_L1,
    help: "Shared L1 beacon HTTP endpoint; required when any chain uses blob-derived L1 data (Ecotone)",
  },
  {
    name: "l1.beacon-fallbacks",
    type: "list",
    default: [],
    aliases: ["l1.beacon-archiver"],
    env: ["L1_BEACON_FALLBACKS", "L1_BEACON_ARCHIVER"],
    group: G_L1,
    help: "Fallback beacon endpoints for blob sidecars unavailable at the primary endpoint (comma list, repeatable)",
  },
  {
    name: "l1.http-poll-interval",
    type: "duration",
    default: 12_000,
    env: ["L1_HTTP_POLL_INTERVAL"],
    group: G_L1,
    help: "Head-polling interval of the shared L1 client",
  },
  {
    name: "interop.activation-timestamp",
    type: "uint",
    default: 0,
    env: ["INTEROP_ACTIVATION_TIMESTAMP"],
    group: G_INTEROP,
    help: "Interop activation time (unix seconds); 0 = use the rollup configs' interop_time",
  },
  {
    name: "dependency-set",
    type: "path",
    env: ["DEPENDENCY_SET"],
    group: G_INTEROP,
    help: "Dependency-set JSON file shared by every chain (default: the per-chain interop.dependency-set files, else the hosted chains)",
  },
  {
    name: "interop.log-backfill-depth",
    type: "duration",
    default: 0,
    env: ["INTEROP_LOG_BACKFILL_DEPTH"],
    group: G_INTEROP,
    help: "Ingest initiating-message logs this far back from the L2 tip (e.g. 168h), clamped to the activation timestamp; 0 disables; needs a known activation timestamp",
  },
  {
    name: "rpc.addr",
    type: "string",
    default: "0.0.0.0",
    env: ["RPC_ADDR"],
    group: G_RPC,
    help: "RPC server bind address",
  },
  {
    name: "rpc.port",
    type: "port",
    default: 8545,
    env: ["RPC_PORT"],
    group: G_RPC,
    help: "RPC server port (0 = ephemeral)",
  },
  {
    name: "rpc.enable-admin",
    type: "bool",
    default: false,
    env: ["RPC_ENABLE_ADMIN"],
    group: G_RPC,
    help: "Serve the admin namespace of every chain",
  },
  {
    name: "log.level",
    type: "enum",
    choices: LOG_LEVELS,
    default: "info",
    env: ["LOG_LEVEL"],
    group: G_LOG,
    help: "Lowest level logged",
  },
  {
    name: "log.format",
    type: "enum",
    choices: LOG_FORMATS,
    default: "text",
    env: ["LOG_FORMAT"],
    group: G_LOG,
    help: "Log format; the ms variants add millisecond timestamps",
  },
  { name: "log.color", type: "bool", default: false, env: ["LOG_COLOR"], group: G_LOG, help: "Force ANSI colours" },
  {
    name: "metrics.enabled",
    type: "bool",
    default: false,
    env: ["METRICS_ENABLED"],
    group: G_METRICS,
    help: "Serve Prometheus metrics of all chains (labelled per chain)",
  },
  {
    name: "metrics.addr",
    type: "string",
    default: "0.0.0.0",
    env: ["METRICS_ADDR"],
    group: G_METRICS,
    help: "Metrics server bind address",
  },
  {
    name: "metrics.port",
    type: "port",
    default: 7300,
    env: ["METRICS_PORT"],
    group: G_METRICS,
    help: "Metrics server port",
  },
  {
    name: "pprof.enabled",
    type: "bool",
    default: false,
    env: ["PPROF_ENABLED"],
    group: G_METRICS,
    help: "Serve the profiling endpoint",
  },
  {
    name: "pprof.addr",
    type: "string",
    default: "0.0.0.0",
    env: ["PPROF_ADDR"],
    group: G_METRICS,
    help: "Profiling server bind address",
  },
  {
    name: "pprof.port",
    type: "port",
    default: 6060,
    env: ["PPROF_PORT"],
    group: G_METRICS,
    help: "Profiling server port",
  },
];
