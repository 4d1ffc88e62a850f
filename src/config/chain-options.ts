import { FORKS } from "../protocol/rollup-config.js";
import { ENGINE_KINDS, LOG_FORMATS, LOG_LEVELS, SYNC_MODES } from "./types.js";
import { L1_CHAIN_OPTIONS } from "./chain-options-l1.js";
import { P2P_CHAIN_OPTIONS } from "./chain-options-p2p.js";
import { type OptionSpec, opt, S } from "./option-spec.js";

const G_ROLLUP = "Rollup";
const G_ENGINE = "Execution engine (L2)";
const G_SYNC = "Sync and finality";
const G_SEQ = "Sequencer";
const G_OPS = "Operations";
const G_ALTDA = "Alt-DA";
const G_INTEROP = "Interop";

/**
 * Forks that accept an `override.<fork>` activation timestamp: every timestamp-activated fork of the protocol's
 * schedule, with op-node's `pectrablobschedule` (an L1 blob fee schedule switch) before Isthmus.
 */
export const OVERRIDE_FORKS: readonly string[] = FORKS.filter((f) => f !== "regolith").flatMap((f) =>
  f === "isthmus" ? ["pectrablobschedule", f] : [f],
);

/**
 * The full per-chain (rollup-node) option catalogue. Each option is accepted as `--vn.<chainID>.<name>` and
 * `--vn.all.<name>`, and from `SUPERNODE_VN_<CHAINID>_<ENV>` / `SUPERNODE_VN_ALL_<ENV>`.
 */
export const CHAIN_OPTIONS: readonly OptionSpec[] = [
  // Rollup
  opt(
    "network",
    "string",
    undefined,
    "NETWORK",
    G_ROLLUP,
    "Built-in network to load the rollup config of (e.g. op-sepolia); use instead of rollup.config",
  ),
  opt(
    "rollup.config",
    "path",
    undefined,
    "ROLLUP_CONFIG",
    G_ROLLUP,
    "Rollup config JSON file, for chains not in the built-in registry; use instead of network",
  ),
  ...OVERRIDE_FORKS.map((f) =>
    opt(
      `override.${f}`,
      "uint",
      undefined,
      `OVERRIDE_${f.toUpperCase()}`,
      G_ROLLUP,
      `Override the ${f} activation timestamp (unix seconds)`,
    ),
  ),
  opt(
    "rollup.l1-chain-config",
    "path",
    undefined,
    "ROLLUP_L1_CHAIN_CONFIG",
    G_ROLLUP,
    "L1 chain config JSON (built in for mainnet, sepolia, holesky, hoodi)",
  ),
  opt(
    "rollup.halt",
    "enum",
    "",
    "ROLLUP_HALT",
    G_ROLLUP,
    "Halt when a required protocol version of this severity is not supported",
    { choices: ["", "major", "minor", "patch"] },
  ),
  opt(
    "rollup.load-protocol-versions",
    "bool",
    false,
    "ROLLUP_LOAD_PROTOCOL_VERSIONS",
    G_ROLLUP,
    "Load protocol versions from the L1 ProtocolVersions contract",
  ),
  opt(
    "ignore-missing-pectra-blob-schedule",
    "bool",
    false,
    "IGNORE_MISSING_PECTRA_BLOB_SCHEDULE",
    G_ROLLUP,
    "Start although the Pectra blob schedule fix is missing",
    { hidden: true },
  ),
  // Execution engine
  opt(
    "l2",
    "string",
    undefined,
    "L2_ENGINE_RPC",
    G_ENGINE,
    "Engine API endpoint of the chain's execution client (one execution client per chain). Required.",
  ),
  opt(
    "l2.jwt-secret",
    "path",
    undefined,
    "L2_ENGINE_AUTH",
    G_ENGINE,
    "File with the 32-byte hex JWT secret of the engine connection. Required.",
  ),
  opt(
    "l2.enginekind",
    "enum",
    "variant_b",
    "L2_ENGINE_KIND",
    G_ENGINE,
    "Execution client kind: variant_b (legacy) or variant_a (current)",
    { choices: ENGINE_KINDS },
  ),
  opt("l2.engine-rpc-timeout", "duration", 10 * S, "L2_ENGINE_RPC_TIMEOUT", G_ENGINE, "Timeout of Engine API calls"),
  opt(
    "l2.max-response-size",
    "uint",
    256 * 1024 * 1024,
    "L2_MAX_RESPONSE_SIZE",
    G_ENGINE,
    "Largest Engine API / L2 response body read, in bytes (default 256 MiB: a block must fit a 100 MB channel, 200 MB as hex); larger ones are aborted; 0 = no bound",
  ),
  opt(
    "l2.follow.source",
    "string",
    "",
    "L2_FOLLOW_SOURCE",
    G_ENGINE,
    "Follow the safe/finalized heads of this rollup node instead of deriving",
  ),
  opt(
    "l2.follow.source.rpc-timeout",
    "duration",
    10 * S,
    "L2_FOLLOW_SOURCE_RPC_TIMEOUT",
    G_ENGINE,
    "Timeout of calls to the follow source",
  ),
  opt(
    "l2.engine-sync",
    "bool",
    false,
    "L2_ENGINE_SYNC_ENABLED",
    G_ENGINE,
    "Deprecated: use --syncmode=execution-layer",
    { hidden: true },
  ),
  opt(
    "l2.skip-sync-start-check",
    "bool",
    false,
    "L2_SKIP_SYNC_START_CHECK",
    G_ENGINE,
    "Deprecated: skip the L1 origin check of the sync start",
    { hidden: true },
  ),
  opt("l2.backup-unsafe-sync-rpc", "string", "", "L2_BACKUP_UNSAFE_SYNC_RPC", G_ENGINE, "Deprecated: no effect", {
    hidden: true,
  }),
  opt(
    "l2.backup-unsafe-sync-rpc.trustrpc",
    "bool",
    false,
    "L2_BACKUP_UNSAFE_SYNC_RPC_TRUST_RPC",
    G_ENGINE,
    "Deprecated: no effect",
    { hidden: true },
  ),
  opt(
    "fetch-withdrawal-root-from-state",
    "bool",
    false,
    "FETCH_WITHDRAWAL_ROOT_FROM_STATE",
    G_ENGINE,
    "Read the message-passer storage root from state instead of the header (Isthmus)",
  ),
  ...L1_CHAIN_OPTIONS,
  // Sync and finality
  opt(
    "syncmode",
    "enum",
    "consensus-layer",
    "SYNCMODE",
    G_SYNC,
    "consensus-layer (derive from L1) or execution-layer (let the execution client sync)",
    { choices: SYNC_MODES },
  ),
  opt("syncmode.req-resp", "bool", false, "SYNCMODE_REQ_RESP", G_SYNC, "Use P2P req-resp to fill unsafe-chain gaps"),
  opt(
    "syncmode.offset-el-safe",
    "duration",
    0,
    "SYNCMODE_OFFSET_EL_SAFE",
    G_SYNC,
    "Execution-layer sync only: offset of the initial safe head",
  ),
  opt("verifier.l1-confs", "uint", 0, "VERIFIER_L1_CONFS", G_SYNC, "L1 confirmations before deriving from an L1 block"),
  opt("finality.lookback", "uint", 0, "FINALITY_LOOKBACK", G_SYNC, "Finality lookback in L1 blocks (0 = automatic)"),
  opt("finality.delay", "uint", 0, "FINALITY_DELAY", G_SYNC, "Finality delay in L1 blocks (0 = 64)"),
  // Sequencer
  opt("sequencer.enabled", "bool", false, "SEQUENCER_ENABLED", G_SEQ, "Run the chain's sequencer"),
  opt("sequencer.stopped", "bool", false, "SEQUENCER_STOPPED", G_SEQ, "Start with the sequencer stopped"),
  opt(
    "sequencer.max-safe-lag",
    "uint",
    0,
    "SEQUENCER_MAX_SAFE_LAG",
    G_SEQ,
    "Pause sequencing when unsafe is this many blocks ahead of safe (0 = no limit)",
  ),
  opt(
    "sequencer.l1-confs",
    "uint",
    4,
    "SEQUENCER_L1_CONFS",
    G_SEQ,
    "L1 confirmations before using an L1 block as L1 origin",
  ),
  opt("sequencer.recover", "bool", false, "SEQUENCER_RECOVER", G_SEQ, "Recover mode: build deposit-only blocks"),
  opt(
    "sequencer.sealing-duration",
    "duration",
    50,
    "SEQUENCER_SEALING_DURATION",
    G_SEQ,
    "Time reserved for sealing a block",
  ),
  opt("conductor.enabled", "bool", false, "CONDUCTOR_ENABLED", G_SEQ, "Sequencer under an HA conductor"),
  opt("conductor.rpc", "string", "http://127.0.0.1:8547", "CONDUCTOR_RPC", G_SEQ, "Conductor RPC endpoint"),
  opt("conductor.rpc-timeout", "duration", 1 * S, "CONDUCTOR_RPC_TIMEOUT", G_SEQ, "Conductor RPC timeout"),
  // Operations
  opt("safedb.path", "path", "", "SAFEDB_PATH", G_OPS, "Ignored: SafeDB always lives in <data-dir>/chain-<id>/safedb"),
  opt("rpc.addr", "string", "0.0.0.0", "RPC_ADDR", G_OPS, "Ignored: chains are served by the supernode's RPC server"),
  opt("rpc.port", "port", 9545, "RPC_PORT", G_OPS, "Ignored: chains are served by the supernode's RPC server"),
  opt("rpc.enable-admin", "bool", false, "RPC_ENABLE_ADMIN", G_OPS, "Ignored: use the supernode's --rpc.enable-admin"),
  opt("rpc.admin-state", "path", "", "RPC_ADMIN_STATE", G_OPS, "File persisting the sequencer's started/stopped state"),
  opt(
    "experimental.sequencer-api",
    "bool",
    false,
    "EXPERIMENTAL_SEQUENCER_API",
    G_OPS,
    "Serve the experimental sequencer API",
  ),
  opt(
    "metrics.enabled",
    "bool",
    false,
    "METRICS_ENABLED",
    G_OPS,
    "Export this chain's metrics on the shared endpoint (labelled with the chain)",
  ),
  opt("metrics.addr", "string", "0.0.0.0", "METRICS_ADDR", G_OPS, "Per-chain metrics bind address"),
  opt("metrics.port", "port", 7300, "METRICS_PORT", G_OPS, "Per-chain metrics port"),
  opt("pprof.enabled", "bool", false, "PPROF_ENABLED", G_OPS, "Ignored: profiling is supernode-wide"),
  opt("pprof.addr", "string", "0.0.0.0", "PPROF_ADDR", G_OPS, "Ignored", { hidden: true }),
  opt("pprof.port", "port", 6060, "PPROF_PORT", G_OPS, "Ignored", { hidden: true }),
  opt("pprof.path", "path", "", "PPROF_PATH", G_OPS, "Ignored", { hidden: true }),
  opt("pprof.type", "string", "", "PPROF_TYPE", G_OPS, "Ignored", { hidden: true }),
  opt("log.level", "enum", "info", "LOG_LEVEL", G_OPS, "Ignored: one shared logger", {
    choices: LOG_LEVELS,
    hidden: true,
  }),
  opt("log.format", "enum", "text", "LOG_FORMAT", G_OPS, "Ignored: one shared logger", {
    choices: [...LOG_FORMATS, "json-pretty"],
    hidden: true,
  }),
  opt("log.color", "bool", false, "LOG_COLOR", G_OPS, "Ignored: one shared logger", { hidden: true }),
  opt("log.pid", "bool", false, "LOG_PID", G_OPS, "Ignored: one shared logger", { hidden: true }),
  opt("snapshotlog.file", "path", "", "SNAPSHOT_LOG", G_OPS, "No effect", { hidden: true }),
  opt("heartbeat.enabled", "bool", false, "HEARTBEAT_ENABLED", G_OPS, "No effect", { hidden: true }),
  opt("heartbeat.moniker", "string", "", "HEARTBEAT_MONIKER", G_OPS, "No effect", { hidden: true }),
  opt("heartbeat.url", "string", "", "HEARTBEAT_URL", G_OPS, "No effect", { hidden: true }),
  opt("beta.extra-networks", "bool", false, "BETA_EXTRA_NETWORKS", G_OPS, "No effect", { hidden: true }),
  ...P2P_CHAIN_OPTIONS,
  // Alt-DA
  opt("altda.enabled", "bool", false, "ALTDA_ENABLED", G_ALTDA, "Enable alt-DA"),
  opt("altda.da-server", "string", "", "ALTDA_DA_SERVER", G_ALTDA, "Alt-DA server endpoint"),
  opt("altda.verify-on-read", "bool", true, "ALTDA_VERIFY_ON_READ", G_ALTDA, "Verify data read from the DA server"),
  opt("altda.da-service", "bool", false, "ALTDA_DA_SERVICE", G_ALTDA, "The DA server computes commitments"),
  opt("altda.put-timeout", "duration", 0, "ALTDA_PUT_TIMEOUT", G_ALTDA, "Put timeout (0 = none)"),
  opt("altda.get-timeout", "duration", 0, "ALTDA_GET_TIMEOUT", G_ALTDA, "Get timeout (0 = none)"),
  opt(
    "altda.max-concurrent-da-requests",
    "uint",
    1,
    "ALTDA_MAX_CONCURRENT_DA_REQUESTS",
    G_ALTDA,
    "Concurrent DA requests",
  ),
  // Interop
  opt(
    "interop.dependency-set",
    "path",
    "",
    "INTEROP_DEPENDENCY_SET",
    G_INTEROP,
    "Dependency-set JSON file (required when interop is scheduled)",
  ),
  opt("interop.rpc.addr", "string", "", "INTEROP_RPC_ADDR", G_INTEROP, "No effect under the supernode", {
    hidden: true,
  }),
  opt("interop.rpc.port", "port", 9645, "INTEROP_RPC_PORT", G_INTEROP, "No effect under the supernode", {
    hidden: true,
  }),
  opt("interop.jwt-secret", "path", "", "INTEROP_JWT_SECRET", G_INTEROP, "No effect under the supernode", {
    hidden: true,
  }),
];

/** Per-chain options whose value the supernode discards at start-up (it owns the shared L1 clients). */
export const DISCARDED_CHAIN_OPTIONS: readonly string[] = ["l1", "l1.beacon"];
/** Per-chain options that log a warning and have no effect. */
export const WARNED_CHAIN_OPTIONS: readonly string[] = ["l1.http-poll-interval"];
/** Per-chain option prefixes that are silently ignored. */
export const SILENT_CHAIN_OPTION_PREFIXES: readonly string[] = ["log."];
