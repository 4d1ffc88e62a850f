import { FORKS } from "../protocol/rollup-config.js";
import type { NetworkFile } from "./networks.js";
import type { TomlTable, TomlValue } from "./registry-toml.js";

/**
 * The superchain registry (its TOML source of truth, `superchain/configs/<superchain>/`) converted into the project's
 * network files, the way op-node builds a rollup config from the registry (`LoadOPStackRollupConfig`): channel
 * timeout 300, Regolith at genesis, the chain's own `[hardforks]` (`interop_time` is Lagoon's older name), the
 * portal and SystemConfig proxies from `[addresses]`, `chain_op_config` from `[optimism]`.
 */

/** Registry rules: channel timeout is fixed for registry chains; Regolith is active at genesis. */
export const REGISTRY_CHANNEL_TIMEOUT = 300;

const ZERO_ADDRESS = `0x${"00".repeat(20)}`;

function table(t: TomlTable, key: string, where: string): TomlTable {
  const v = t[key];
  if (typeof v !== "object") throw new Error(`${where}: [${key}] missing`);
  return v;
}
function optTable(t: TomlTable, key: string): TomlTable | undefined {
  const v = t[key];
  return typeof v === "object" ? v : undefined;
}
function num(t: TomlTable, key: string, where: string): number {
  const v = t[key];
  if (typeof v !== "number") throw new Error(`${where}: ${key} must be an integer`);
  return v;
}
function str(t: TomlTable, key: string, where: string): string {
  const v = t[key];
  if (typeof v !== "string") throw new Error(`${where}: ${key} must be a string`);
  return v;
}
const optStr = (v: TomlValue | undefined): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const lower = (s: string): string => s.toLowerCase();

/** The rollup-config fork times of a `[hardforks]` table (Lagoon from `lagoon_time`, else `interop_time`). */
function forkTimes(hf: TomlTable, where: string): Record<string, number> {
  const out: Record<string, number> = { regolith_time: 0 };
  const lagoon = hf.lagoon_time ?? hf.interop_time;
  if (hf.lagoon_time !== undefined && hf.interop_time !== undefined && hf.lagoon_time !== hf.interop_time)
    throw new Error(`${where}: lagoon_time and interop_time (its older name) disagree`);
  for (const fork of FORKS) {
    if (fork === "regolith") continue;
    const t = fork === "lagoon" ? lagoon : hf[`${fork}_time`];
    if (typeof t === "number") out[`${fork}_time`] = t;
  }
  return out;
}

/** The rollup config (rollup.json shape, Go key order) of one registry chain. */
function rollupFromToml(c: TomlTable, sc: TomlTable, where: string): Record<string, unknown> {
  const g = table(c, "genesis", where);
  const l1 = table(g, "l1", where);
  const l2 = table(g, "l2", where);
  const sys = table(g, "system_config", where);
  const addr = optTable(c, "addresses") ?? {};
  const hf = optTable(c, "hardforks") ?? {};
  const times = forkTimes(hf, where);
  const rollup: Record<string, unknown> = {
    genesis: {
      l1: { hash: lower(str(l1, "hash", where)), number: num(l1, "number", where) },
      l2: { hash: lower(str(l2, "hash", where)), number: num(l2, "number", where) },
      l2_time: num(g, "l2_time", where),
      system_config: {
        batcherAddr: lower(str(sys, "batcherAddress", where)),
        overhead: lower(str(sys, "overhead", where)),
        scalar: lower(str(sys, "scalar", where)),
        gasLimit: num(sys, "gasLimit", where),
      },
    },
    block_time: num(c, "block_time", where),
    max_sequencer_drift: num(c, "max_sequencer_drift", where),
    seq_window_size: num(c, "seq_window_size", where),
    channel_timeout: REGISTRY_CHANNEL_TIMEOUT,
    l1_chain_id: num(table(sc, "l1", where), "chain_id", where),
    l2_chain_id: num(c, "chain_id", where),
  };
  for (const fork of FORKS) {
    const t = times[`${fork}_time`];
    if (t !== undefined) rollup[`${fork}_time`] = t;
    if (fork === "karst" && hf.keep_karst_upgrade_gas === true) rollup.keep_karst_upgrade_gas = true;
  }
  rollup.batch_inbox_address = lower(str(c, "batch_inbox_addr", where));
  rollup.deposit_contract_address = lower(optStr(addr.OptimismPortalProxy) ?? ZERO_ADDRESS);
  rollup.l1_system_config_address = lower(optStr(addr.SystemConfigProxy) ?? ZERO_ADDRESS);
  rollup.protocol_versions_address = lower(optStr(sc.protocol_versions_addr) ?? ZERO_ADDRESS);
  const op = optTable(c, "optimism");
  if (op) {
    rollup.chain_op_config = {
      eip1559Elasticity: num(op, "eip1559_elasticity", where),
      eip1559Denominator: num(op, "eip1559_denominator", where),
      ...(typeof op.eip1559_denominator_canyon === "number"
        ? { eip1559DenominatorCanyon: op.eip1559_denominator_canyon }
        : {}),
    };
  }
  const da = optTable(c, "alt_da");
  if (da) {
    rollup.alt_da = {
      da_challenge_contract_address: lower(optStr(da.da_challenge_contract_address) ?? ZERO_ADDRESS),
      da_commitment_type: str(da, "da_commitment_type", where),
      da_challenge_window: num(da, "da_challenge_window", where),
      da_resolve_window: num(da, "da_resolve_window", where),
    };
  }
  if (typeof hf.pectra_blob_schedule_time === "number") rollup.pectra_blob_schedule_time = hf.pectra_blob_schedule_time;
  return rollup;
}

/**
 * Converts one registry chain (`<superchain>/<short>.toml`, parsed) with its superchain's `superchain.toml` into the
 * project's network file, named `<short>-<superchain>` (e.g. `mainnet/op.toml` → `op-mainnet`).
 */
export function networkFromRegistryToml(superchain: string, short: string, sc: TomlTable, c: TomlTable): NetworkFile {
  const where = `${superchain}/${short}.toml`;
  const name = `${short}-${superchain}`;
  const addresses: Record<string, string> = {};
  for (const [k, v] of Object.entries(optTable(c, "addresses") ?? {}))
    if (typeof v === "string") addresses[k] = lower(v);
  const deps = optTable(optTable(c, "interop") ?? {}, "dependencies");
  const aliases = name === "op-mainnet" ? ["mainnet"] : name === "op-sepolia" ? ["sepolia"] : [];
  const gasPayingToken = optStr(c.gas_paying_token);
  const text = (key: string, as: string) => {
    const v = optStr(c[key]);
    return v === undefined ? {} : { [as]: v };
  };
  return {
    name,
    ...(aliases.length > 0 ? { aliases } : {}),
    chainName: str(c, "name", where),
    superchain,
    chainId: num(c, "chain_id", where),
    l1ChainId: num(table(sc, "l1", where), "chain_id", where),
    ...(typeof c.governed_by_optimism === "boolean" ? { governedByOptimism: c.governed_by_optimism } : {}),
    ...text("public_rpc", "publicRpc"),
    ...text("sequencer_rpc", "sequencerRpc"),
    ...text("explorer", "explorer"),
    ...text("data_availability_type", "dataAvailabilityType"),
    ...(gasPayingToken ? { gasPayingToken: lower(gasPayingToken) } : {}),
    ...(deps ? { interopDependencies: Object.keys(deps).map(Number) } : {}),
    addresses,
    rollup: rollupFromToml(c, sc, where),
  };
}
