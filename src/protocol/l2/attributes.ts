import { bytesToHex } from "../../core/codec/hex.js";
import { toQuantity } from "../../core/codec/quantity.js";
import { ResetError } from "../../core/errors/supernode-error.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import { type Address, type Hash, type Hex, ZERO_HASH } from "../../core/types/primitives.js";
import { isForkActive, type RollupConfig, type SystemConfig } from "../rollup-config.js";
import { type DepositTx, encodeDepositTx } from "./deposit-tx.js";
import { encodeL1InfoDepositTx, type L1OriginInfo } from "./l1-info.js";
import { upgradeTransactionsAt } from "./upgrade-txs.js";

/** SequencerFeeVault: the fee recipient of every derived block. */
export const SEQUENCER_FEE_VAULT: Address = "0x4200000000000000000000000000000000000011";

/** Engine API payload attributes with the OP extensions. */
export interface PayloadAttributes {
  readonly timestamp: number;
  readonly prevRandao: Hash;
  readonly suggestedFeeRecipient: Address;
  /** `[]` from Canyon, absent before. */
  readonly withdrawals?: readonly never[];
  /** From Ecotone. */
  readonly parentBeaconBlockRoot?: Hash;
  /** EIP-2718 transactions: L1-info deposit, user deposits, upgrade txs, then batch txs. */
  readonly transactions: readonly Hex[];
  readonly noTxPool: boolean;
  readonly gasLimit: bigint;
  /** 8 bytes, from Holocene. */
  readonly eip1559Params?: Hex;
  /** From Jovian. */
  readonly minBaseFee?: bigint;
}

export interface BuildAttributesInput {
  readonly cfg: RollupConfig;
  /** SystemConfig after applying the origin's updates (new epoch) or the parent's (same epoch). */
  readonly sysConfig: SystemConfig;
  readonly l2Parent: L2BlockRef;
  readonly l1Origin: L1OriginInfo;
  /** User deposits of the origin (new epoch only; empty otherwise). */
  readonly depositTxs: readonly (DepositTx | Uint8Array)[];
  readonly seqNumber: number;
  /** Defaults to `l2Parent.timestamp + block_time`. */
  readonly timestamp?: number;
  /** For the Interop activation block (CrossL2Inbox only when > 1). */
  readonly dependencySetSize?: number;
  /** Defaults to true (derivation); the sequencer sets false. */
  readonly noTxPool?: boolean;
  /** Encodes the L1-info deposit (default {@link encodeL1InfoDepositTx}; e.g. a {@link L1InfoDepositEncoder}). */
  readonly l1InfoDeposits?: typeof encodeL1InfoDepositTx;
}

/** The attributes without their transactions (what {@link attributesWithTransactionBytes} completes). */
export type PayloadAttributesFields = Omit<PayloadAttributes, "transactions">;

/** The transaction bytes of attributes made by {@link attributesWithTransactionBytes}, by that very object. */
const TX_BYTES = new WeakMap<object, readonly Uint8Array[]>();

/**
 * Attributes whose transactions are known as EIP-2718 bytes: `transactions` (hex) is computed on its first read
 * and kept; until then the bytes are all there is, so a derived block that only consolidates (hashes its
 * transactions) never encodes hex. The bytes stay reachable through {@link transactionBytesOf} on this very object
 * only: a copy (`{ ...attrs, … }`, e.g. a deposits-only replacement) carries plain hex and no bytes, so bytes never
 * outlive the transactions they were recorded for.
 */
export function attributesWithTransactionBytes<F extends object>(
  fields: F,
  bytes: readonly Uint8Array[],
): F & { readonly transactions: readonly Hex[] } {
  let hex: readonly Hex[] | undefined;
  const a = {
    ...fields,
    get transactions(): readonly Hex[] {
      if (hex === undefined) hex = bytes.map(bytesToHex);
      return hex;
    },
  };
  TX_BYTES.set(a, bytes);
  return a;
}

/** The transactions of `a` as bytes when `a` was made by {@link attributesWithTransactionBytes}, else undefined. */
export function transactionBytesOf(a: object): readonly Uint8Array[] | undefined {
  return TX_BYTES.get(a);
}

/** Every field of `a` but `transactions` (not read: lazily encoded transactions stay unencoded). */
export function attributesFields<A extends { readonly transactions: readonly Hex[] }>(a: A): Omit<A, "transactions"> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(a)) if (k !== "transactions") out[k] = a[k as keyof A];
  return out as Omit<A, "transactions">;
}

/**
 * Assembles the payload attributes of the L2 block after `l2Parent` (op-node `PreparePayloadAttributes`):
 * `[L1-info deposit] ++ user deposits ++ upgrade txs`, fee recipient, prevRandao from the L1 origin, and the
 * per-fork fields. Throws ResetError when the timestamp is before the L1 origin's time.
 */
export function buildPayloadAttributes(input: BuildAttributesInput): PayloadAttributes {
  const { cfg, sysConfig, l2Parent, l1Origin, seqNumber } = input;
  const ts = input.timestamp ?? l2Parent.timestamp + cfg.block_time;
  if (ts < l1Origin.time)
    throw new ResetError("L2_BEFORE_L1_ORIGIN", `L2 time ${ts} is before L1 origin time ${l1Origin.time}`, {
      l2Time: ts,
      l1Time: l1Origin.time,
    });
  const l1Info = input.l1InfoDeposits ?? encodeL1InfoDepositTx;
  const txs: Uint8Array[] = [l1Info(cfg, sysConfig, l1Origin, seqNumber, ts)];
  for (const d of input.depositTxs) txs.push(d instanceof Uint8Array ? d : encodeDepositTx(d));
  const upgradeOpts = input.dependencySetSize === undefined ? {} : { dependencySetSize: input.dependencySetSize };
  for (const u of upgradeTransactionsAt(cfg, ts, upgradeOpts)) txs.push(u);
  const canyon = isForkActive(cfg, "canyon", ts);
  const ecotone = isForkActive(cfg, "ecotone", ts);
  const holocene = isForkActive(cfg, "holocene", ts);
  const jovian = isForkActive(cfg, "jovian", ts);
  const fields: PayloadAttributesFields = {
    timestamp: ts,
    prevRandao: l1Origin.mixHash,
    suggestedFeeRecipient: SEQUENCER_FEE_VAULT,
    ...(canyon ? { withdrawals: [] } : {}),
    ...(ecotone ? { parentBeaconBlockRoot: l1Origin.parentBeaconBlockRoot ?? ZERO_HASH } : {}),
    noTxPool: input.noTxPool ?? true,
    gasLimit: sysConfig.gasLimit,
    ...(holocene ? { eip1559Params: sysConfig.eip1559Params } : {}),
    ...(jovian ? { minBaseFee: sysConfig.minBaseFee } : {}),
  };
  return attributesWithTransactionBytes(fields, txs);
}

/**
 * The Engine API JSON of payload attributes, keys in op-node's order; `minBaseFee` is a plain JSON number
 * as op-node sends it; `noTxPool` omitted when false.
 */
export function payloadAttributesToJson(a: PayloadAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {
    timestamp: toQuantity(a.timestamp),
    prevRandao: a.prevRandao,
    suggestedFeeRecipient: a.suggestedFeeRecipient,
  };
  if (a.withdrawals !== undefined) out.withdrawals = [];
  if (a.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = a.parentBeaconBlockRoot;
  out.transactions = [...a.transactions];
  if (a.noTxPool) out.noTxPool = true;
  out.gasLimit = toQuantity(a.gasLimit);
  if (a.eip1559Params !== undefined) out.eip1559Params = a.eip1559Params;
  if (a.minBaseFee !== undefined) out.minBaseFee = Number(a.minBaseFee);
  return out;
}
