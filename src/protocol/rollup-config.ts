import type { Address, Hash, Hex } from "../core/types/primitives.js";
import type { BlockId } from "../core/types/block-ref.js";

/** L1 system configuration as carried in the rollup config genesis and updated by `ConfigUpdate` logs. */
export interface SystemConfig {
  readonly batcherAddr: Address;
  /** Bytes32 (pre-Ecotone L1 fee overhead). */
  readonly overhead: Hash;
  /** Bytes32 (versioned scalar from Ecotone on). */
  readonly scalar: Hash;
  readonly gasLimit: bigint;
  /** Bytes8: denominator (u32 BE) ‖ elasticity (u32 BE); zero means "chain constants" (Holocene). */
  readonly eip1559Params: Hex;
  /** Bytes32: operator fee scalar (u32) and constant (u64) (Isthmus). */
  readonly operatorFeeParams: Hash;
  readonly minBaseFee: bigint;
  readonly daFootprintGasScalar: number;
}

export interface Genesis {
  readonly l1: BlockId;
  readonly l2: BlockId;
  readonly l2_time: number;
  readonly system_config: SystemConfig;
}

export interface ChainOpConfig {
  readonly eip1559Elasticity: number;
  readonly eip1559Denominator: number;
  readonly eip1559DenominatorCanyon?: number;
}

export interface AltDAConfig {
  readonly da_challenge_contract_address: Address;
  readonly da_commitment_type: "KeccakCommitment" | "GenericCommitment";
  readonly da_challenge_window: number;
  readonly da_resolve_window: number;
}

/**
 * Hardforks in activation order, the ones this node implements. All post-Bedrock forks are activated by L2
 * timestamp (`<fork>_time`). Lagoon is the interop fork (formerly "Interop"; `interop_time` is read as its older name).
 */
export const FORKS = [
  "regolith",
  "canyon",
  "delta",
  "ecotone",
  "fjord",
  "granite",
  "holocene",
  "isthmus",
  "jovian",
  "karst",
  "lagoon",
] as const;
export type Fork = (typeof FORKS)[number];

/** The rollup config (rollup.json), field names as on the wire and in `stack_rollupConfig`. */
export interface RollupConfig {
  readonly genesis: Genesis;
  readonly block_time: number;
  readonly max_sequencer_drift: number;
  readonly seq_window_size: number;
  readonly channel_timeout: number;
  readonly l1_chain_id: bigint;
  readonly l2_chain_id: bigint;
  readonly regolith_time?: number;
  readonly canyon_time?: number;
  readonly delta_time?: number;
  readonly ecotone_time?: number;
  readonly fjord_time?: number;
  readonly granite_time?: number;
  readonly holocene_time?: number;
  readonly isthmus_time?: number;
  readonly jovian_time?: number;
  readonly karst_time?: number;
  /**
   * Karst's one-time upgrade gas stays in the gas limit after the activation block (chains that activated Karst
   * with node software that did not subtract it). Absent = false: the next block's SystemConfig subtracts it.
   */
  readonly keep_karst_upgrade_gas?: boolean;
  readonly lagoon_time?: number;
  readonly pectra_blob_schedule_time?: number;
  readonly batch_inbox_address: Address;
  readonly deposit_contract_address: Address;
  readonly l1_system_config_address: Address;
  readonly protocol_versions_address: Address;
  readonly chain_op_config?: ChainOpConfig;
  readonly alt_da?: AltDAConfig;
}

/**
 * Activation time of a fork, or undefined when unscheduled. A `switch` of named property loads, not
 * `cfg[\`${fork}_time\`]`: this runs dozens of times per derived block (`isForkActive`), and a keyed load whose key
 * changes from call to call goes through V8's megamorphic keyed-load path every time, while each named load here
 * stays monomorphic (and a call with a constant fork folds to one load once inlined).
 */
export function forkTime(cfg: RollupConfig, fork: Fork): number | undefined {
  switch (fork) {
    case "regolith":
      return cfg.regolith_time;
    case "canyon":
      return cfg.canyon_time;
    case "delta":
      return cfg.delta_time;
    case "ecotone":
      return cfg.ecotone_time;
    case "fjord":
      return cfg.fjord_time;
    case "granite":
      return cfg.granite_time;
    case "holocene":
      return cfg.holocene_time;
    case "isthmus":
      return cfg.isthmus_time;
    case "jovian":
      return cfg.jovian_time;
    case "karst":
      return cfg.karst_time;
    case "lagoon":
      return cfg.lagoon_time;
    default:
      return undefined;
  }
}

/** Whether `fork` is active at L2 (or L1, for the L1-timed rules) timestamp `timestamp`. */
export function isForkActive(cfg: RollupConfig, fork: Fork, timestamp: number): boolean {
  const t = forkTime(cfg, fork);
  return t !== undefined && timestamp >= t;
}

/**
 * Whether the L2 block at `timestamp` is the first block of `fork` (its activation block):
 * the fork is active at `timestamp` but not at `timestamp - block_time`.
 */
export function isForkActivationBlock(cfg: RollupConfig, fork: Fork, timestamp: number): boolean {
  return (
    isForkActive(cfg, fork, timestamp) &&
    timestamp >= cfg.block_time &&
    !isForkActive(cfg, fork, timestamp - cfg.block_time)
  );
}

/** The newest fork active at `timestamp` ("bedrock" when none). */
export function activeFork(cfg: RollupConfig, timestamp: number): Fork | "bedrock" {
  let current: Fork | "bedrock" = "bedrock";
  for (const f of FORKS) if (isForkActive(cfg, f, timestamp)) current = f;
  return current;
}
