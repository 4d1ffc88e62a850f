import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { toQuantity } from "../../core/codec/quantity.js";
import { ResetError } from "../../core/errors/supernode-error.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import { type Address, type Hash, type Hex, ZERO_HASH } from "../../core/types/primitives.js";
import { isForkActive, type RollupConfig, type SystemConfig } from "../rollup-config.js";
import { type DepositTx, encodeDepositTx } from "./deposit-tx.js";
import { encodeL1InfoDepositTx, type L1OriginInfo } from "./l1-info.js";
import type { NutBundles } from "./nut-bundle.js";
import { upgradeGasAt, upgradeTransactionsAt } from "./upgrade-txs.js";

/** SequencerFeeVault: the fee recipient of every derived block. */
export const SEQUENCER_FEE_VAULT: Address = "0x4200000000000000000000000000000000000011";

/** Engine API payload attributes with the OP extensions. */
export interface PayloadAttributes {
  readonly timestamp: number;
  readonly prevRandao: Hash;
  readonly suggestedFeeRecipient: Address;
  /** `[]` from Canyon, absent (or undefined) before. */
  readonly withdrawals?: readonly never[] | undefined;
  /** From Ecotone. */
  readonly parentBeaconBlockRoot?: Hash | undefined;
  /** EIP-2718 transactions: L1-info deposit, user deposits, upgrade txs, then batch txs. */
  readonly transactions: readonly Hex[];
  readonly noTxPool: boolean;
  readonly gasLimit: bigint;
  /** 8 bytes, from Holocene. */
  readonly eip1559Params?: Hex | undefined;
  /** From Jovian. */
  readonly minBaseFee?: bigint | undefined;
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
  /** For the Lagoon activation block (its setFeature and funding deposits only when > 1). */
  readonly dependencySetSize?: number | undefined;
  /** The Karst and Lagoon NUT bundles (needed on their activation blocks). */
  readonly nutBundles?: NutBundles | undefined;
  /** Defaults to true (derivation); the sequencer sets false. */
  readonly noTxPool?: boolean;
  /** Encodes the L1-info deposit (default {@link encodeL1InfoDepositTx}; e.g. a {@link L1InfoDepositEncoder}). */
  readonly l1InfoDeposits?: typeof encodeL1InfoDepositTx;
  /**
   * Derivation: the batch's transactions (EIP-2718 bytes, or hex), appended after the deposits and upgrade
   * transactions; the attributes are then the derived block's, made once (ADR 0098).
   */
  readonly batchTransactions?: readonly (Uint8Array | Hex)[] | undefined;
}

/** The withdrawals of every OP block from Canyon: none (one frozen array, not one per block). */
const NO_WITHDRAWALS: readonly never[] = Object.freeze([]);

/** The attributes without their transactions (what {@link attributesWithTransactionBytes} completes). */
export type PayloadAttributesFields = Omit<PayloadAttributes, "transactions" | "withdrawals"> & {
  // A rest (`{ transactions, ...fields } = attrs`) types the empty withdrawals as `unknown[]`.
  readonly withdrawals?: readonly unknown[] | undefined;
};

/**
 * Payload attributes whose transactions are held as EIP-2718 bytes; `transactions` (hex, the Engine API form) is
 * encoded on its first read and kept, so a derived block that only consolidates (hashes its transactions) never
 * encodes hex (ADR 0087).
 *
 * Shape (ADR 0098): every field is an own data property written in one order (absent optional fields are
 * `undefined`), and `transactions` is an own enumerable accessor whose getter is one function shared by every
 * instance. No per-object closure or accessor pair: an object literal with a getter closure (`{ ...fields, get
 * transactions() {…} }`) is turned into a dictionary-mode object with an accessor pair allocated in the old
 * generation, which keeps the closure's context (the bytes, the batch's transaction views) alive past the block
 * until the next mark-compact; every such block's bytes were promoted (~2.3 kB per consolidated block).
 * The bytes and the hex live in private fields: a copy (`{ ...attrs, … }`, e.g. a deposits-only replacement) reads
 * `transactions` through the getter and carries plain hex, never bytes recorded for other transactions.
 */
class AttributesWithBytes implements PayloadAttributes {
  readonly timestamp: number;
  readonly prevRandao: Hash;
  readonly suggestedFeeRecipient: Address;
  readonly withdrawals: readonly never[] | undefined;
  readonly parentBeaconBlockRoot: Hash | undefined;
  declare readonly transactions: readonly Hex[];
  readonly noTxPool: boolean;
  readonly gasLimit: bigint;
  readonly eip1559Params: Hex | undefined;
  readonly minBaseFee: bigint | undefined;
  readonly #bytes: readonly Uint8Array[];
  #hex: readonly Hex[] | undefined;

  constructor(f: PayloadAttributesFields, bytes: readonly Uint8Array[]) {
    this.timestamp = f.timestamp;
    this.prevRandao = f.prevRandao;
    this.suggestedFeeRecipient = f.suggestedFeeRecipient;
    this.withdrawals = f.withdrawals as readonly never[] | undefined;
    this.parentBeaconBlockRoot = f.parentBeaconBlockRoot;
    Object.defineProperty(this, "transactions", AttributesWithBytes.#transactions);
    this.noTxPool = f.noTxPool;
    this.gasLimit = f.gasLimit;
    this.eip1559Params = f.eip1559Params;
    this.minBaseFee = f.minBaseFee;
    this.#bytes = bytes;
  }

  /** The one accessor of every instance (own and enumerable, so that a spread copies the hex). */
  static readonly #transactions: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: AttributesWithBytes): readonly Hex[] {
      if (this.#hex === undefined) this.#hex = this.#bytes.map(bytesToHex);
      return this.#hex;
    },
  };

  static bytesOf(a: object): readonly Uint8Array[] | undefined {
    return #bytes in a ? a.#bytes : undefined;
  }
}

/**
 * Attributes from their fields and their transactions' EIP-2718 bytes (see {@link AttributesWithBytes}); the bytes
 * stay reachable through {@link transactionBytesOf} on this very object only.
 */
export function attributesWithTransactionBytes(
  fields: PayloadAttributesFields,
  bytes: readonly Uint8Array[],
): PayloadAttributes {
  return new AttributesWithBytes(fields, bytes);
}

/** The transactions of `a` as bytes when `a` was made by {@link attributesWithTransactionBytes}, else undefined. */
export function transactionBytesOf(a: object): readonly Uint8Array[] | undefined {
  return AttributesWithBytes.bytesOf(a);
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
  const upgrades = upgradeTransactionsAt(cfg, ts, input);
  for (let i = 0; i < upgrades.length; i++) txs.push(upgrades[i]!);
  // The batch's own bytes (subarrays of the decompressed channel: no copy).
  const batch = input.batchTransactions;
  if (batch !== undefined)
    for (let i = 0; i < batch.length; i++) {
      const t = batch[i]!;
      txs.push(typeof t === "string" ? hexToBytes(t) : t);
    }
  return new AttributesWithBytes(
    {
      timestamp: ts,
      prevRandao: l1Origin.mixHash,
      suggestedFeeRecipient: SEQUENCER_FEE_VAULT,
      withdrawals: isForkActive(cfg, "canyon", ts) ? NO_WITHDRAWALS : undefined,
      parentBeaconBlockRoot: isForkActive(cfg, "ecotone", ts)
        ? (l1Origin.parentBeaconBlockRoot ?? ZERO_HASH)
        : undefined,
      noTxPool: input.noTxPool ?? true,
      // Karst on: the activation block's upgrade gas on top of the SystemConfig's.
      gasLimit: upgrades.length === 0 ? sysConfig.gasLimit : sysConfig.gasLimit + upgradeGasAt(cfg, ts, input),
      eip1559Params: isForkActive(cfg, "holocene", ts) ? sysConfig.eip1559Params : undefined,
      minBaseFee: isForkActive(cfg, "jovian", ts) ? sysConfig.minBaseFee : undefined,
    },
    txs,
  );
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
