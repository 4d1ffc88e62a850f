import { DecodeError } from "../core/errors/supernode-error.js";
import type { Address, Hash, Hex } from "../core/types/primitives.js";
import {
  bigUint,
  bool,
  hexBytes,
  nullish,
  oneOf,
  optional,
  type Reader,
  readShape,
  strictObject,
  uint,
  uintUpTo,
} from "./json-shape.js";
import { FORKS, type Fork, type RollupConfig, type SystemConfig } from "./rollup-config.js";

const ZERO32: Hash = `0x${"00".repeat(32)}`;
const ZERO8: Hex = `0x${"00".repeat(8)}`;

const address = hexBytes(20);
const hash = hexBytes(32);
const blockId = strictObject({ hash, number: uint });

const systemConfigShape = strictObject({
  batcherAddr: address,
  overhead: hash,
  scalar: hash,
  gasLimit: bigUint,
  eip1559Params: optional(hexBytes(8)),
  operatorFeeParams: optional(hash),
  minBaseFee: optional(bigUint),
  daFootprintGasScalar: optional(uintUpTo(0xffff)),
});

const forkTimes = Object.fromEntries(FORKS.map((f) => [`${f}_time`, optional(uint)])) as Record<
  `${Fork}_time`,
  Reader<number | undefined>
>;

const rollupShape = strictObject({
  genesis: strictObject({ l1: blockId, l2: blockId, l2_time: uint, system_config: systemConfigShape }),
  block_time: uint,
  max_sequencer_drift: optional(uint),
  seq_window_size: uint,
  channel_timeout: uint,
  l1_chain_id: bigUint,
  l2_chain_id: bigUint,
  ...forkTimes,
  interop_time: optional(uint),
  keep_karst_upgrade_gas: optional(bool),
  pectra_blob_schedule_time: optional(uint),
  batch_inbox_address: address,
  deposit_contract_address: address,
  l1_system_config_address: address,
  protocol_versions_address: optional(address),
  chain_op_config: nullish(
    strictObject({
      eip1559Elasticity: uint,
      eip1559Denominator: uint,
      eip1559DenominatorCanyon: optional(uint),
    }),
  ),
  alt_da: nullish(
    strictObject({
      da_challenge_contract_address: optional(address),
      da_commitment_type: oneOf(["KeccakCommitment", "GenericCommitment"]),
      da_challenge_window: uint,
      da_resolve_window: uint,
    }),
  ),
});

function toBig(v: number | string): bigint {
  return BigInt(v);
}

/** `<name>_time` keys that are not forks: every other `*_time` key names a fork. */
const NON_FORK_TIMES: ReadonlySet<string> = new Set([
  "block_time",
  "l2_time",
  "pectra_blob_schedule_time",
  "interop_time",
]);

/**
 * A fork this node does not implement, scheduled in `raw` (a `<fork>_time` key outside `FORKS`), or undefined.
 * Such a chain must be refused: derived without the fork's rules, every block from its activation would differ
 * from the network's.
 */
export function unknownScheduledFork(raw: unknown): { fork: string; time: unknown } | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  for (const [k, v] of Object.entries(raw)) {
    if (!k.endsWith("_time") || NON_FORK_TIMES.has(k)) continue;
    const fork = k.slice(0, -"_time".length);
    if (!(FORKS as readonly string[]).includes(fork)) return { fork, time: v };
  }
  return undefined;
}

const utcText = (t: unknown): string =>
  typeof t === "number" && Number.isSafeInteger(t) && t >= 0 ? ` (${new Date(t * 1000).toISOString()})` : "";

/** The refusal text for a fork this node does not implement. */
export function unknownForkMessage(fork: string, time: unknown): string {
  return `the rollup config schedules fork "${fork}" at ${String(time)}${utcText(time)}, which this node does not implement (known forks: ${FORKS.join(", ")}); refusing to derive it`;
}

/** `lagoon_time` with `interop_time` as its older name; both set and different is an error. */
function lagoonTime(j: { lagoon_time?: number | undefined; interop_time?: number | undefined }): number | undefined {
  if (j.lagoon_time !== undefined && j.interop_time !== undefined && j.lagoon_time !== j.interop_time)
    throw new DecodeError(
      `invalid rollup config: lagoon_time=${j.lagoon_time} and interop_time=${j.interop_time} (its older name) disagree`,
    );
  return j.lagoon_time ?? j.interop_time;
}

/**
 * Parses a rollup config (rollup.json / `stack_rollupConfig` shape) from JSON text or an already parsed value.
 * Unknown fields are rejected; a `<fork>_time` of a fork this node does not implement is refused with a message
 * naming the fork and the time. `interop_time` is read as the older name of `lagoon_time`. Throws `DecodeError` on
 * malformed input. Run `checkRollupConfig` for the semantic
 * rules.
 */
export function parseRollupConfig(input: string | unknown): RollupConfig {
  let raw: unknown = input;
  if (typeof input === "string") {
    try {
      raw = JSON.parse(input);
    } catch (e) {
      throw new DecodeError(`rollup config is not valid JSON: ${(e as Error).message}`);
    }
  }
  const unknownFork = unknownScheduledFork(raw);
  if (unknownFork) throw new DecodeError(unknownForkMessage(unknownFork.fork, unknownFork.time));
  const res = readShape(rollupShape, raw);
  if (!res.ok) throw new DecodeError(`invalid rollup config: ${res.problems}`);
  const j = res.value;
  const sc = j.genesis.system_config;
  const system_config: SystemConfig = {
    batcherAddr: sc.batcherAddr as Address,
    overhead: sc.overhead,
    scalar: sc.scalar,
    gasLimit: toBig(sc.gasLimit),
    eip1559Params: sc.eip1559Params ?? ZERO8,
    operatorFeeParams: sc.operatorFeeParams ?? ZERO32,
    minBaseFee: sc.minBaseFee === undefined ? 0n : toBig(sc.minBaseFee),
    daFootprintGasScalar: sc.daFootprintGasScalar ?? 0,
  };
  const cfg: Record<string, unknown> = {
    genesis: { l1: j.genesis.l1, l2: j.genesis.l2, l2_time: j.genesis.l2_time, system_config },
    block_time: j.block_time,
    max_sequencer_drift: j.max_sequencer_drift ?? 0,
    seq_window_size: j.seq_window_size,
    channel_timeout: j.channel_timeout,
    l1_chain_id: toBig(j.l1_chain_id),
    l2_chain_id: toBig(j.l2_chain_id),
    batch_inbox_address: j.batch_inbox_address,
    deposit_contract_address: j.deposit_contract_address,
    l1_system_config_address: j.l1_system_config_address,
    protocol_versions_address: j.protocol_versions_address ?? `0x${"00".repeat(20)}`,
  };
  for (const f of FORKS) {
    const t = f === "lagoon" ? lagoonTime(j) : j[`${f}_time`];
    if (t !== undefined) cfg[`${f}_time`] = t;
  }
  if (j.keep_karst_upgrade_gas === true) cfg.keep_karst_upgrade_gas = true;
  if (j.pectra_blob_schedule_time !== undefined) cfg.pectra_blob_schedule_time = j.pectra_blob_schedule_time;
  if (j.chain_op_config) {
    const c = j.chain_op_config;
    cfg.chain_op_config =
      c.eip1559DenominatorCanyon === undefined
        ? { eip1559Elasticity: c.eip1559Elasticity, eip1559Denominator: c.eip1559Denominator }
        : c;
  }
  if (j.alt_da) {
    const a = j.alt_da;
    cfg.alt_da = {
      da_challenge_contract_address: a.da_challenge_contract_address ?? `0x${"00".repeat(20)}`,
      da_commitment_type: a.da_commitment_type,
      da_challenge_window: a.da_challenge_window,
      da_resolve_window: a.da_resolve_window,
    };
  }
  return cfg as unknown as RollupConfig;
}

/** Ordered forks that must be scheduled in order (a later one set requires every earlier one, not later). */
const ORDERED_FORKS: readonly Fork[] = FORKS.filter((f) => f !== "lagoon");

const isZero = (h: string): boolean => /^0x0*$/.test(h);

/** The semantic checks of a rollup config (Go `Config.Check`). Returns every problem found; empty = valid. */
export function checkRollupConfig(cfg: RollupConfig): string[] {
  const p: string[] = [];
  if (cfg.block_time === 0) p.push("block_time must be > 0");
  if (cfg.channel_timeout === 0) p.push("channel_timeout must be > 0");
  if (cfg.seq_window_size < 2) p.push("seq_window_size must be at least 2");
  if (cfg.max_sequencer_drift === 0) p.push("max_sequencer_drift must be > 0");
  if (isZero(cfg.genesis.l1.hash)) p.push("genesis.l1.hash must not be zero");
  if (isZero(cfg.genesis.l2.hash)) p.push("genesis.l2.hash must not be zero");
  if (cfg.genesis.l1.hash === cfg.genesis.l2.hash) p.push("genesis.l1.hash and genesis.l2.hash must differ");
  if (cfg.genesis.l2_time === 0) p.push("genesis.l2_time must not be zero");
  const sc = cfg.genesis.system_config;
  if (isZero(sc.batcherAddr)) p.push("genesis.system_config.batcherAddr must not be zero");
  if (isZero(sc.scalar)) p.push("genesis.system_config.scalar must not be zero");
  if (sc.gasLimit === 0n) p.push("genesis.system_config.gasLimit must not be zero");
  if (isZero(cfg.batch_inbox_address)) p.push("batch_inbox_address must not be zero");
  if (isZero(cfg.deposit_contract_address)) p.push("deposit_contract_address must not be zero");
  if (cfg.l1_chain_id === 0n) p.push("l1_chain_id must be > 0");
  if (cfg.l2_chain_id === 0n) p.push("l2_chain_id must be > 0");
  if (cfg.l1_chain_id !== 0n && cfg.l1_chain_id === cfg.l2_chain_id) p.push("l1_chain_id and l2_chain_id must differ");
  if (cfg.alt_da) {
    const zeroContract = isZero(cfg.alt_da.da_challenge_contract_address);
    if (cfg.alt_da.da_commitment_type === "KeccakCommitment" && zeroContract)
      p.push("alt_da: KeccakCommitment requires da_challenge_contract_address");
    if (cfg.alt_da.da_commitment_type === "GenericCommitment" && !zeroContract)
      p.push("alt_da: GenericCommitment must not set da_challenge_contract_address");
  }
  let prev: { fork: Fork; time: number | undefined } | undefined;
  for (const fork of ORDERED_FORKS) {
    const time = cfg[`${fork}_time`];
    if (prev !== undefined) {
      if (prev.time === undefined && time !== undefined)
        p.push(`fork ${fork} is scheduled (${fork}_time=${time}) but ${prev.fork} is not`);
      else if (prev.time !== undefined && time !== undefined && time < prev.time)
        p.push(
          `fork ${fork} (${fork}_time=${time}) must not activate before ${prev.fork} (${prev.fork}_time=${prev.time})`,
        );
    }
    prev = { fork, time };
  }
  return p;
}

const chainIdJson = (v: bigint): number | string => (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());

/**
 * The JSON value of a rollup config in the Go key order (op-node §1.5): numbers for times and chain IDs, fork
 * times omitted when unset, `max_sequencer_drift` omitted when 0, `chain_op_config`/`alt_da` omitted when absent.
 */
export function rollupConfigToJson(cfg: RollupConfig): Record<string, unknown> {
  const sc = cfg.genesis.system_config;
  const out: Record<string, unknown> = {
    genesis: {
      l1: { hash: cfg.genesis.l1.hash, number: cfg.genesis.l1.number },
      l2: { hash: cfg.genesis.l2.hash, number: cfg.genesis.l2.number },
      l2_time: cfg.genesis.l2_time,
      system_config: {
        batcherAddr: sc.batcherAddr,
        overhead: sc.overhead,
        scalar: sc.scalar,
        gasLimit: chainIdJson(sc.gasLimit),
        eip1559Params: sc.eip1559Params,
        operatorFeeParams: sc.operatorFeeParams,
        minBaseFee: chainIdJson(sc.minBaseFee),
        daFootprintGasScalar: sc.daFootprintGasScalar,
      },
    },
    block_time: cfg.block_time,
  };
  if (cfg.max_sequencer_drift !== 0) out.max_sequencer_drift = cfg.max_sequencer_drift;
  out.seq_window_size = cfg.seq_window_size;
  out.channel_timeout = cfg.channel_timeout;
  out.l1_chain_id = chainIdJson(cfg.l1_chain_id);
  out.l2_chain_id = chainIdJson(cfg.l2_chain_id);
  for (const f of FORKS) {
    const t = cfg[`${f}_time`];
    if (t !== undefined) out[`${f}_time`] = t;
    if (f === "karst" && cfg.keep_karst_upgrade_gas === true) out.keep_karst_upgrade_gas = true;
  }
  out.batch_inbox_address = cfg.batch_inbox_address;
  out.deposit_contract_address = cfg.deposit_contract_address;
  out.l1_system_config_address = cfg.l1_system_config_address;
  out.protocol_versions_address = cfg.protocol_versions_address;
  if (cfg.chain_op_config) out.chain_op_config = { ...cfg.chain_op_config };
  if (cfg.alt_da) out.alt_da = { ...cfg.alt_da };
  if (cfg.pectra_blob_schedule_time !== undefined) out.pectra_blob_schedule_time = cfg.pectra_blob_schedule_time;
  return out;
}

/** Serialises a rollup config as JSON text (Go key order). */
export function serializeRollupConfig(cfg: RollupConfig, indent?: number): string {
  return JSON.stringify(rollupConfigToJson(cfg), null, indent);
}
