import { DecodeError } from "../../core/errors/supernode-error.js";
import type { RollupConfig } from "../rollup-config.js";

/** Blob parameters of one L1 fork (EIP-7840 `blobSchedule` entry). */
export interface BlobScheduleEntry {
  readonly target: number;
  readonly max: number;
  readonly baseFeeUpdateFraction: number;
}

/** The L1 forks that change blob parameters, in activation order. */
export const L1_BLOB_FORKS = ["cancun", "prague", "osaka", "bpo1", "bpo2", "bpo3", "bpo4", "bpo5"] as const;
export type L1BlobFork = (typeof L1_BLOB_FORKS)[number];

/**
 * The parts of an L1 chain config (geth `params.ChainConfig` JSON names) that matter to the rollup node:
 * fork times and the blob schedule.
 */
export interface L1ChainConfig {
  readonly chainId: bigint;
  readonly cancunTime?: number;
  readonly pragueTime?: number;
  readonly osakaTime?: number;
  readonly bpo1Time?: number;
  readonly bpo2Time?: number;
  readonly bpo3Time?: number;
  readonly bpo4Time?: number;
  readonly bpo5Time?: number;
  readonly blobSchedule: Partial<Record<L1BlobFork, BlobScheduleEntry>>;
}

export const CANCUN_BLOB_PARAMS: BlobScheduleEntry = { target: 3, max: 6, baseFeeUpdateFraction: 3338477 };
export const PRAGUE_BLOB_PARAMS: BlobScheduleEntry = { target: 6, max: 9, baseFeeUpdateFraction: 5007716 };
export const BPO1_BLOB_PARAMS: BlobScheduleEntry = { target: 10, max: 15, baseFeeUpdateFraction: 8346193 };
export const BPO2_BLOB_PARAMS: BlobScheduleEntry = { target: 14, max: 21, baseFeeUpdateFraction: 11684671 };

const DEFAULT_SCHEDULE: Partial<Record<L1BlobFork, BlobScheduleEntry>> = {
  cancun: CANCUN_BLOB_PARAMS,
  prague: PRAGUE_BLOB_PARAMS,
  osaka: PRAGUE_BLOB_PARAMS,
  bpo1: BPO1_BLOB_PARAMS,
  bpo2: BPO2_BLOB_PARAMS,
};

/** Ethereum mainnet. */
export const MAINNET_L1_CONFIG: L1ChainConfig = {
  chainId: 1n,
  cancunTime: 1710338135,
  pragueTime: 1746612311,
  osakaTime: 1764798551,
  bpo1Time: 1765290071,
  bpo2Time: 1767747671,
  blobSchedule: DEFAULT_SCHEDULE,
};

/** Sepolia. */
export const SEPOLIA_L1_CONFIG: L1ChainConfig = {
  chainId: 11155111n,
  cancunTime: 1706655072,
  pragueTime: 1741159776,
  osakaTime: 1760427360,
  bpo1Time: 1761017184,
  bpo2Time: 1761607008,
  blobSchedule: DEFAULT_SCHEDULE,
};

/** A devnet L1 with every blob fork active from genesis up to `upTo` (anvil's default is Prague). */
export function devnetL1Config(chainId: bigint, upTo: L1BlobFork = "prague"): L1ChainConfig {
  const times: Record<string, number> = {};
  for (const f of L1_BLOB_FORKS) {
    times[`${f}Time`] = 0;
    if (f === upTo) break;
  }
  return { chainId, ...times, blobSchedule: DEFAULT_SCHEDULE };
}

/** Built-in L1 chain configs by chain ID. */
export function builtinL1Config(chainId: bigint): L1ChainConfig | undefined {
  if (chainId === 1n) return MAINNET_L1_CONFIG;
  if (chainId === 11155111n) return SEPOLIA_L1_CONFIG;
  return undefined;
}

/**
 * The activation time of blob fork `f` in `l1`. A switch over named fields rather than ``l1[`${f}Time`]``: that
 * built a key string per fork and looked it up by name on every call (once per epoch, i.e. cold: docs/performance.md).
 */
function blobForkTime(l1: L1ChainConfig, f: L1BlobFork): number | undefined {
  switch (f) {
    case "cancun":
      return l1.cancunTime;
    case "prague":
      return l1.pragueTime;
    case "osaka":
      return l1.osakaTime;
    case "bpo1":
      return l1.bpo1Time;
    case "bpo2":
      return l1.bpo2Time;
    case "bpo3":
      return l1.bpo3Time;
    case "bpo4":
      return l1.bpo4Time;
    case "bpo5":
      return l1.bpo5Time;
  }
}

/** The newest blob fork active at L1 time `time`, or undefined before Cancun. */
export function activeBlobFork(l1: L1ChainConfig, time: number): L1BlobFork | undefined {
  let active: L1BlobFork | undefined;
  for (const f of L1_BLOB_FORKS) {
    const t = blobForkTime(l1, f);
    if (t !== undefined && time >= t) active = f;
  }
  return active;
}

/** Blob parameters at L1 time `time` (falls back to the newest earlier fork that has a schedule entry). */
export function blobParamsAt(l1: L1ChainConfig, time: number): BlobScheduleEntry | undefined {
  const fork = activeBlobFork(l1, time);
  if (fork === undefined) return undefined;
  for (let i = L1_BLOB_FORKS.indexOf(fork); i >= 0; i--) {
    const e = l1.blobSchedule[L1_BLOB_FORKS[i] as L1BlobFork] ?? DEFAULT_SCHEDULE[L1_BLOB_FORKS[i] as L1BlobFork];
    if (e !== undefined) return e;
  }
  return undefined;
}

/** EIP-4844 `fake_exponential(factor, numerator, denominator)`. */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i++;
  }
  return output / denominator;
}

/** Blob base fee from `excessBlobGas` with a given update fraction (min blob base fee 1). */
export function calcBlobBaseFee(excessBlobGas: bigint, updateFraction: number): bigint {
  return fakeExponential(1n, excessBlobGas, BigInt(updateFraction));
}

/**
 * The blob base fee the L1-info deposit reports for an L1 origin: 1 when the block has no
 * `excessBlobGas`; otherwise computed with the blob parameters of the L1 fork active at `l1Time`,
 * except that before `pectra_blob_schedule_time` the Cancun parameters are always used.
 */
export function l1OriginBlobBaseFee(
  cfg: Pick<RollupConfig, "pectra_blob_schedule_time">,
  l1: L1ChainConfig,
  l1Time: number,
  excessBlobGas: bigint | undefined,
): bigint {
  if (excessBlobGas === undefined) return 1n;
  const pectraTime = cfg.pectra_blob_schedule_time;
  if (pectraTime !== undefined && l1Time < pectraTime)
    return calcBlobBaseFee(excessBlobGas, CANCUN_BLOB_PARAMS.baseFeeUpdateFraction);
  const params = blobParamsAt(l1, l1Time) ?? CANCUN_BLOB_PARAMS;
  return calcBlobBaseFee(excessBlobGas, params.baseFeeUpdateFraction);
}

function num(v: unknown, what: string): number {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === "string" && /^(0x[0-9a-fA-F]+|\d+)$/.test(v)) {
    const n = Number(BigInt(v));
    if (Number.isSafeInteger(n)) return n;
  }
  throw new DecodeError(`L1 chain config: ${what} is not a non-negative integer`);
}

/**
 * Parses an L1 chain config (geth `params.ChainConfig` JSON, or a genesis file with a `config` key) as
 * given to `--rollup.l1-chain-config`. Missing schedule entries fall back to the protocol defaults.
 */
export function parseL1ChainConfig(json: unknown): L1ChainConfig {
  if (typeof json !== "object" || json === null) throw new DecodeError("L1 chain config: not an object");
  let o = json as Record<string, unknown>;
  if (typeof o.config === "object" && o.config !== null) o = o.config as Record<string, unknown>;
  if (o.chainId === undefined) throw new DecodeError("L1 chain config: missing chainId");
  const times: Record<string, number> = {};
  for (const f of L1_BLOB_FORKS) {
    const v = o[`${f}Time`];
    if (v !== undefined && v !== null) times[`${f}Time`] = num(v, `${f}Time`);
  }
  const schedule: Partial<Record<L1BlobFork, BlobScheduleEntry>> = { ...DEFAULT_SCHEDULE };
  const bs = o.blobSchedule;
  if (typeof bs === "object" && bs !== null) {
    for (const f of L1_BLOB_FORKS) {
      const e = (bs as Record<string, unknown>)[f];
      if (typeof e !== "object" || e === null) continue;
      const r = e as Record<string, unknown>;
      schedule[f] = {
        target: num(r.target, `${f}.target`),
        max: num(r.max, `${f}.max`),
        baseFeeUpdateFraction: num(r.baseFeeUpdateFraction, `${f}.baseFeeUpdateFraction`),
      };
    }
  }
  return { chainId: BigInt(num(o.chainId, "chainId")), ...times, blobSchedule: schedule };
}
