import { M, opt, type OptionSpec, S } from "./option-spec.js";

const G_L1 = "L1 (owned by the supernode unless noted)";

/**
 * Per-chain L1 options (part of `CHAIN_OPTIONS`): most are accepted for op-node compatibility and have no effect
 * or are discarded, since the supernode owns one L1 client shared by every chain.
 */
export const L1_CHAIN_OPTIONS: readonly OptionSpec[] = [
  opt("l1", "string", undefined, "L1_ETH_RPC", G_L1, "Discarded: the supernode's --l1 is used"),
  opt("l1.beacon", "string", undefined, "L1_BEACON", G_L1, "Discarded: the supernode's --l1.beacon is used"),
  opt(
    "l1.beacon-header",
    "string",
    "",
    "L1_BEACON_HEADER",
    G_L1,
    'Header for beacon requests ("X-Key: Value"); no effect with a shared beacon',
  ),
  opt(
    "l1.beacon-fallbacks",
    "list",
    [],
    ["L1_BEACON_FALLBACKS", "L1_BEACON_ARCHIVER"],
    G_L1,
    "No effect: use the supernode's --l1.beacon-fallbacks",
    { aliases: ["l1.beacon-archiver"] },
  ),
  opt(
    "l1.beacon.ignore",
    "bool",
    false,
    "L1_BEACON_IGNORE",
    G_L1,
    "Allow no beacon endpoint although blobs are scheduled (the supernode still requires one)",
  ),
  opt(
    "l1.beacon.fetch-all-sidecars",
    "bool",
    false,
    "L1_BEACON_FETCH_ALL_SIDECARS",
    G_L1,
    "Fetch all blob sidecars of a block (no effect)",
  ),
  opt("l1.trustrpc", "bool", false, "L1_TRUST_RPC", G_L1, "Trust the L1 RPC (no effect: shared L1 client)"),
  opt("l1.rpckind", "enum", "standard", "L1_RPC_KIND", G_L1, "L1 RPC provider kind (no effect: shared L1 client)", {
    choices: [
      "alchemy",
      "quicknode",
      "infura",
      "parity",
      "nethermind",
      "debug_geth",
      "erigon",
      "basic",
      "any",
      "standard",
    ],
  }),
  opt(
    "l1.max-concurrency",
    "uint",
    10,
    "L1_MAX_CONCURRENCY",
    G_L1,
    "Concurrent L1 requests (no effect: shared L1 client)",
  ),
  opt(
    "l1.rpc-rate-limit",
    "uint",
    0,
    "L1_RPC_RATE_LIMIT",
    G_L1,
    "L1 requests per second (no effect: shared L1 client)",
  ),
  opt(
    "l1.rpc-max-batch-size",
    "uint",
    20,
    "L1_RPC_MAX_BATCH_SIZE",
    G_L1,
    "L1 batch size (no effect: shared L1 client)",
  ),
  opt("l1.cache-size", "uint", 900, "L1_CACHE_SIZE", G_L1, "L1 cache size (no effect: shared L1 client)"),
  opt(
    "l1.http-poll-interval",
    "duration",
    12 * S,
    "L1_HTTP_POLL_INTERVAL",
    G_L1,
    "Ignored with a warning: use the supernode's --l1.http-poll-interval",
  ),
  opt(
    "l1.epoch-poll-interval",
    "duration",
    6 * M + 24 * S,
    "L1_EPOCH_POLL_INTERVAL",
    G_L1,
    "L1 safe/finalized poll interval (no effect: the shared L1 client reads them with the head at every --l1.http-poll-interval)",
  ),
  opt(
    "l1.runtime-config-reload-interval",
    "duration",
    10 * M,
    "L1_RUNTIME_CONFIG_RELOAD_INTERVAL",
    G_L1,
    "Reload interval of the runtime config from L1 (0 = never)",
  ),
];
