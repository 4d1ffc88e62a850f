/**
 * Devnet configuration writers: a chain's rollup config (rollup.json), the L1 chain config the rollup node needs
 * for blob-fee parameters (`--rollup.l1-chain-config`), and an Engine API JWT secret.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Address, bytesToHex, type Hash, type Hex } from "supernode/core";
import { type Fork, FORKS, type RollupConfig, serializeRollupConfig, type SystemConfig } from "supernode/protocol";
import { depositContractAddress, protocolVersionsAddress, systemConfigAddress } from "./l1/contracts.js";

/** `0xff00…00<chainId>`: the chain's batch inbox (chain id in hex, right-aligned). */
export function batchInboxAddress(chainId: bigint | number): Address {
  const hex = BigInt(chainId).toString(16);
  if (hex.length > 38) throw new Error(`chain id ${chainId} too large for an inbox address`);
  return `0xff${hex.padStart(38, "0")}`;
}

/**
 * Forks active from genesis unless told otherwise. Karst and Lagoon are off unless scheduled: Lagoon (interop) needs a
 * dependency set and cross-chain traffic, which `supernode-devnet --interop` provides (`interop-devnet.ts`).
 */
export const DEFAULT_DEVNET_FORKS: readonly Fork[] = FORKS.filter((f) => f !== "karst" && f !== "lagoon");

/**
 * A devnet fork schedule as seconds after L2 genesis (for `DevnetChainSpec.forkOffsets`): every fork of
 * `DEFAULT_DEVNET_FORKS` at 0 with `overrides` applied. A fork without an override follows the fork before it, so
 * `{ecotone: 20}` moves Fjord … Jovian to 20 as well and `{ecotone: 20, isthmus: 40}` gives Fjord … Holocene 20 and
 * Jovian 40. `null` leaves a fork, and every later fork without an override, unscheduled; Karst and Interop are
 * unscheduled unless given; a later fork given a time schedules them with the fork before them (`{lagoon: 30}` puts
 * Karst at Jovian's time). Throws when offsets decrease in fork order or a fork is scheduled after one unscheduled
 * with `null`.
 */
export function devnetForkOffsets(
  overrides: Partial<Record<Fork, number | null>> = {},
): Partial<Record<Fork, number | undefined>> {
  const out: Partial<Record<Fork, number | undefined>> = {};
  let prev: number | undefined = 0;
  let prevFork: Fork | undefined;
  let lastTimed = -1;
  for (const [i, f] of FORKS.entries()) if (typeof overrides[f] === "number") lastTimed = i;
  for (const [i, f] of FORKS.entries()) {
    const o = overrides[f];
    let t: number | undefined;
    if (o === null) t = undefined;
    else if (o !== undefined) {
      if (!Number.isSafeInteger(o) || o < 0) throw new Error(`fork offset of ${f} must be a non-negative integer`);
      if (prev === undefined) throw new Error(`${f} cannot be scheduled after the unscheduled ${prevFork}`);
      if (o < prev) throw new Error(`${f} (+${o} s) cannot activate before ${prevFork} (+${prev} s)`);
      t = o;
    } else t = DEFAULT_DEVNET_FORKS.includes(f) || i < lastTimed ? prev : undefined;
    out[f] = t;
    prev = t;
    prevFork = f;
  }
  return out;
}

/** Ecotone-style scalar (version 1): `0x01 ‖ 0… ‖ blobBaseFeeScalar u32 ‖ baseFeeScalar u32`. */
export function ecotoneScalar(baseFeeScalar: number, blobBaseFeeScalar: number): Hash {
  const v = (1n << 248n) | (BigInt(blobBaseFeeScalar) << 32n) | BigInt(baseFeeScalar);
  return `0x${v.toString(16).padStart(64, "0")}`;
}

export interface DevnetRollupParams {
  readonly l2ChainId: bigint | number;
  readonly l1ChainId: bigint | number;
  /** The anvil block the chain starts from. */
  readonly l1Genesis: { readonly hash: Hash; readonly number: number };
  /** The simulated EL's genesis block. */
  readonly l2Genesis: { readonly hash: Hash; readonly number?: number; readonly timestamp: number };
  readonly batcher: Address;
  readonly blockTimeSec?: number;
  readonly gasLimit?: bigint;
  /**
   * Fork times as absolute L2 timestamps. Default: every fork of `DEFAULT_DEVNET_FORKS` at 0 (active at genesis).
   * A fork mapped to `undefined` is left unscheduled.
   */
  readonly forks?: Partial<Record<Fork, number | undefined>>;
  readonly seqWindowSize?: number;
  readonly maxSequencerDrift?: number;
  readonly channelTimeout?: number;
  readonly systemConfig?: Partial<SystemConfig>;
  readonly batchInbox?: Address;
}

/** A valid devnet rollup config. */
export function devnetRollupConfig(p: DevnetRollupParams): RollupConfig {
  const forkTimes: Partial<Record<`${Fork}_time`, number>> = {};
  const forks = p.forks ?? Object.fromEntries(DEFAULT_DEVNET_FORKS.map((f) => [f, 0]));
  for (const f of FORKS) {
    const t = forks[f];
    if (t !== undefined) forkTimes[`${f}_time`] = t;
  }
  const system: SystemConfig = {
    batcherAddr: p.batcher.toLowerCase() as Address,
    overhead: `0x${"00".repeat(32)}`,
    scalar: ecotoneScalar(1368, 810949),
    gasLimit: p.gasLimit ?? 30_000_000n,
    eip1559Params: "0x0000000000000000",
    operatorFeeParams: `0x${"00".repeat(32)}`,
    minBaseFee: 0n,
    daFootprintGasScalar: 0,
    ...p.systemConfig,
  };
  return {
    genesis: {
      l1: { hash: p.l1Genesis.hash, number: p.l1Genesis.number },
      l2: { hash: p.l2Genesis.hash, number: p.l2Genesis.number ?? 0 },
      l2_time: p.l2Genesis.timestamp,
      system_config: system,
    },
    block_time: p.blockTimeSec ?? 2,
    max_sequencer_drift: p.maxSequencerDrift ?? 600,
    seq_window_size: p.seqWindowSize ?? 3600,
    channel_timeout: p.channelTimeout ?? 300,
    l1_chain_id: BigInt(p.l1ChainId),
    l2_chain_id: BigInt(p.l2ChainId),
    ...forkTimes,
    batch_inbox_address: p.batchInbox ?? batchInboxAddress(p.l2ChainId),
    deposit_contract_address: depositContractAddress(p.l2ChainId),
    l1_system_config_address: systemConfigAddress(p.l2ChainId),
    protocol_versions_address: protocolVersionsAddress(p.l2ChainId),
    chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
  };
}

/** The rollup.json text of a config (the protocol layer's serialiser: Go key order, integers as numbers). */
export function rollupConfigJson(cfg: RollupConfig): string {
  return `${serializeRollupConfig(cfg, 2)}\n`;
}

async function writeText(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** Builds and writes a devnet rollup config to `path`; returns the config. */
export async function writeRollupConfig(path: string, p: DevnetRollupParams): Promise<RollupConfig> {
  const cfg = devnetRollupConfig(p);
  await writeText(path, rollupConfigJson(cfg));
  return cfg;
}

/** The L1 hardforks the devnet L1 can run; each includes the forks before it. */
export type L1Hardfork = "cancun" | "prague" | "osaka";

const BLOB_SCHEDULE = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
} as const;

/** A go-ethereum style chain config for the devnet L1 (every fork up to `hardfork` active at genesis). */
export function l1ChainConfig(chainId: number, hardfork: L1Hardfork = "prague"): Record<string, unknown> {
  const order: L1Hardfork[] = ["cancun", "prague", "osaka"];
  const upTo = order.slice(0, order.indexOf(hardfork) + 1);
  const cfg: Record<string, unknown> = {
    chainId,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    mergeNetsplitBlock: 0,
    terminalTotalDifficulty: 0,
    shanghaiTime: 0,
  };
  for (const f of upTo) cfg[`${f}Time`] = 0;
  cfg.depositContractAddress = "0x0000000000000000000000000000000000000000";
  cfg.blobSchedule = Object.fromEntries(upTo.map((f) => [f, BLOB_SCHEDULE[f]]));
  return cfg;
}

/** Writes the L1 chain config JSON to `path`. */
export async function writeL1ChainConfig(
  path: string,
  chainId: number,
  hardfork: L1Hardfork = "prague",
): Promise<void> {
  await writeText(path, `${JSON.stringify(l1ChainConfig(chainId, hardfork), null, 2)}\n`);
}

/** Writes a 32-byte hex JWT secret (`0x…`, mode 0600) as `<dir>/<name>`; returns the path. */
export async function writeJwtSecret(dir: string, secret?: Uint8Array, name = "jwt.hex"): Promise<string> {
  const bytes = secret ?? new Uint8Array(randomBytes(32));
  if (bytes.length !== 32) throw new Error("a JWT secret is 32 bytes");
  const path = join(dir, name);
  await writeText(path, `${bytesToHex(bytes)}\n`);
  await chmod(path, 0o600);
  return path;
}

/** Hex form of a secret, for callers that keep it in memory. */
export function jwtSecretHex(secret: Uint8Array): Hex {
  return bytesToHex(secret);
}
