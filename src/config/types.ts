import type { DependencySet } from "../protocol/interop/dependency-set.js";
import type { RollupConfig } from "../protocol/rollup-config.js";

/** Log levels, lowest first. `crit` is a custom level above `error`. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "crit"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Log output formats (`*ms` forms carry millisecond timestamps). */
export const LOG_FORMATS = ["text", "terminal", "logfmt", "logfmtms", "json", "jsonms"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Execution-client kind: `variant_b` (legacy, default) or `variant_a` (current). */
export const ENGINE_KINDS = ["variant_b", "variant_a"] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

export const SYNC_MODES = ["consensus-layer", "execution-layer"] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export interface LogConfig {
  readonly level: LogLevel;
  readonly format: LogFormat;
  /** Force ANSI colours in the text formats. */
  readonly color: boolean;
}

/** A server that can be switched on, with its bind address and port. */
export interface ListenConfig {
  readonly enabled: boolean;
  readonly addr: string;
  readonly port: number;
}

export interface RpcConfig {
  readonly addr: string;
  readonly port: number;
  /** Serve the per-chain `admin_*` namespace. */
  readonly enableAdmin: boolean;
  /** `--rpc.request-timeout` (ms; server default 30 s). */
  readonly requestTimeoutMs?: number;
  /** `--rpc.max-connections` (server default 1024). */
  readonly maxConnections?: number;
  /** `--rpc.max-connections-per-client` (server default 128). */
  readonly maxConnectionsPerClient?: number;
  /** How long a request to a restarting chain waits for it (ms; server default 60 s; 0 = answer at once). */
  readonly chainReadyWaitMs?: number;
}

/** Top-level supernode configuration, fully resolved and validated. */
export interface SupernodeConfig {
  /** Hosted chain IDs in `--chains` order (no duplicates). */
  readonly chains: readonly bigint[];
  /** Root of all persistent state (`--data-dir`, default `./datadir`). */
  readonly dataDir: string;
  /** Shared L1 JSON-RPC endpoint (`--l1`). */
  readonly l1: string;
  /** Shared L1 beacon endpoint (`--l1.beacon`), absent when not configured. */
  readonly l1Beacon?: string;
  /** Fallback beacon endpoints (`--l1.beacon-fallbacks`, alias `--l1.beacon-archiver`). */
  readonly l1BeaconFallbacks: readonly string[];
  /** Shared L1 client head-poll interval (`--l1.http-poll-interval`, default 12 s). */
  readonly l1HttpPollIntervalMs: number;
  /** `--l1.max-response-size` in bytes (client default 64 MiB). */
  readonly l1MaxResponseBytes?: number;
  /** `--l1.beacon.max-response-size` in bytes (client default 32 MiB). */
  readonly l1BeaconMaxResponseBytes?: number;
  /** `--disable-p2p`: P2P off on every chain. */
  readonly disableP2p: boolean;
  /**
   * Resolved interop activation timestamp (unix seconds): `--interop.activation-timestamp` when non-zero,
   * otherwise the common `lagoon_time` of every chain's rollup config. Absent = interop disabled.
   */
  readonly interopActivationTimestamp?: number;
  /** `--interop.log-backfill-depth` in ms (0 = disabled). */
  readonly interopLogBackfillDepthMs: number;
  /** The resolved dependency set (`--dependency-set`, the chains' files, or the hosted chains); absent = hosted. */
  readonly dependencySet?: DependencySet;
  readonly rpc: RpcConfig;
  readonly log: LogConfig;
  readonly metrics: ListenConfig;
  readonly pprof: ListenConfig;
  /** One resolved configuration per chain, in `chains` order. */
  readonly chainConfigs: readonly ChainConfig[];
  /** Every resolved top-level option by flag name (e.g. `"l1.http-poll-interval"` → ms number). */
  readonly options: Readonly<Record<string, unknown>>;
}

export interface SequencerConfig {
  readonly enabled: boolean;
  /** Start with the sequencer stopped (`sequencer.stopped`). */
  readonly stopped: boolean;
  readonly l1Confs: number;
  /** 0 = no limit. */
  readonly maxSafeLag: number;
  /** `sequencer.recover`: recover mode (build deposit-only blocks). */
  readonly recoverMode: boolean;
  readonly sealingDurationMs: number;
}

export interface P2pGossipConfig {
  readonly meshD: number;
  readonly meshDlo: number;
  readonly meshDhi: number;
  readonly meshDlazy: number;
  readonly floodPublish: boolean;
  readonly timestampThresholdMs: number;
}

/** A remote signer (op-service's `signer.*` flags) signing the blocks a sequencing chain gossips. */
export interface RemoteSignerConfig {
  /** `signer.endpoint`: an http(s) URL (may carry credentials: never logged as is). */
  readonly endpoint: string;
  /** `signer.address`: the address the signer signs with (lowercase 0x hex); signatures must recover to it. */
  readonly address: string;
  /** `signer.header` (k=v): extra HTTP headers sent with every request (may carry secrets: never logged). */
  readonly headers: Readonly<Record<string, string>>;
  /** With `signer.tls.enabled`: the CA, client certificate and key files (resolved, readable at startup). */
  readonly tls?: { readonly ca: string; readonly cert: string; readonly key: string };
}

/** Per-chain P2P configuration. Paths are already resolved under the chain's data directory. */
export interface P2pConfig {
  /** True when `--disable-p2p` or the chain's `p2p.disable` is set. */
  readonly disabled: boolean;
  readonly noDiscovery: boolean;
  readonly scoring: "light" | "none";
  readonly banPeers: boolean;
  readonly banThreshold: number;
  readonly banDurationMs: number;
  /** Peer key file (`<chain dir>/p2p/p2p_priv.txt`). */
  readonly privPath: string;
  /** Raw hex peer key (`p2p.priv.raw`); secret. */
  readonly privRaw?: string;
  readonly listenIp: string;
  /** 0 = ephemeral. */
  readonly listenTcp: number;
  /** 0 = ephemeral. */
  readonly listenUdp: number;
  readonly advertiseIp?: string;
  readonly advertiseTcp: number;
  readonly advertiseUdp: number;
  readonly bootnodes: readonly string[];
  readonly static: readonly string[];
  readonly netrestrict: readonly string[];
  readonly peersLo: number;
  readonly peersHi: number;
  readonly peersGraceMs: number;
  readonly nat: boolean;
  readonly userAgent: string;
  readonly timeoutDialMs: number;
  /** `<chain dir>/p2p/peerstore.json` (or `memory`): the libp2p peer store snapshot. */
  readonly peerstorePath: string;
  /** `<chain dir>/p2p/discovery.json` (or `memory`): the discv5 routing table and the local record seq. */
  readonly discoveryPath: string;
  /** Hex secp256k1 block-signing key (`p2p.sequencer.key`); secret. */
  readonly sequencerKey?: string;
  /** The remote block signer (`signer.*`), when `signer.endpoint` is set; never together with `sequencerKey`. */
  readonly remoteSigner?: RemoteSignerConfig;
  readonly gossip: P2pGossipConfig;
  readonly syncReqResp: boolean;
  readonly syncOnlyReqToStatic: boolean;
  readonly ping: boolean;
}

/** The resolved configuration of one hosted chain (its "virtual rollup node"). */
export interface ChainConfig {
  readonly chainId: bigint;
  /** Parsed and validated rollup config (from `network` or `rollup.config`), overrides applied. */
  readonly rollup: RollupConfig;
  /** Built-in network name when loaded with `network`. */
  readonly network?: string;
  /** Rollup config file when loaded with `rollup.config`. */
  readonly rollupConfigPath?: string;
  /** Engine API endpoint of the chain's execution client (`l2`). */
  readonly l2: string;
  /** 32-byte JWT secret read from `l2.jwt-secret`. Never log it. */
  readonly jwtSecret: Uint8Array;
  readonly jwtSecretPath: string;
  readonly engineKind: EngineKind;
  readonly l2EngineRpcTimeoutMs: number;
  /** `l2.max-response-size` in bytes (client default 256 MiB). */
  readonly l2MaxResponseBytes?: number;
  /** `<data-dir>/chain-<id>`. */
  readonly dataDir: string;
  readonly sequencer: SequencerConfig;
  readonly verifierL1Confs: number;
  readonly syncMode: SyncMode;
  /** `syncmode.req-resp`: use the P2P req-resp client to fill unsafe gaps. */
  readonly syncModeReqResp: boolean;
  /** `syncmode.offset-el-safe` in ms (EL sync only): safe/finalized this far behind the synced tip. */
  readonly syncOffsetElSafeMs: number;
  /** 0 = default (auto). */
  readonly finalityLookback: number;
  /** 0 = default (64). */
  readonly finalityDelay: number;
  readonly p2p: P2pConfig;
  /** Per-chain metrics (honoured; fanned into the shared endpoint with a chain label). */
  readonly metrics: ListenConfig;
  /** SafeDB is always on under the supernode. */
  readonly safedbEnabled: boolean;
  /** `<data-dir>/chain-<id>/safedb`. */
  readonly safedbPath: string;
  /** `interop.dependency-set` file, when configured. */
  readonly interopDependencySetPath?: string;
  /**
   * Every resolved per-chain option by flag name (without the `vn.<id>.` prefix), typed values:
   * booleans, numbers (durations in ms), strings, string arrays. Secrets are present; redact before printing.
   */
  readonly options: Readonly<Record<string, unknown>>;
  /** Names of options explicitly set for this chain (per-chain or all-chains, flag or env). */
  readonly explicitOptions: ReadonlySet<string>;
}
