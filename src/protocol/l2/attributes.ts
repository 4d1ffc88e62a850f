import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { toQuantity } from "../../core/codec/quantity.js";
import { ResetError } from "../../core/errors/supernode-error.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import { type Address, type Hex, ZERO_HASH } from "../../core/types/primitives.js";
import { isForkActive, type RollupConfig, type SystemConfig } from "../rollup-config.js";
import { type DepositTx, encodeDepositTx } from "./deposit-tx.js";
import { encodeL1InfoDepositTx, type L1OriginInfo } from "./l1-info.js";
import type { NutBundles } from "./nut-bundle.js";
import { upgradeGasAt, upgradeTransactionsAt } from "./upgrade-txs.js";

/** SequencerFeeVault: the fee recipient of every derived block. */
export const SEQUENCER_FEE_VAULT: Address = "0x4200000000000000000000000000000000000011";

export type { AttributesFields, PayloadAttributes } from "../engine-api-types.js";
import type { AttributesFields, PayloadAttributes } from "../engine-api-types.js";

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
  /**
   * Derivation: the batch's transactions (EIP-2718 bytes, or hex), appended after the deposits and upgrade
   * transactions; the attributes are then the derived block's, made once (docs/performance.md).
   */
  readonly batchTransactions?: readonly (Uint8Array | Hex)[] | undefined;
}

/** The withdrawals of every OP block from Canyon: none (one frozen array, not one per block). */
const NO_WITHDRAWALS: readonly never[] = Object.freeze([]);

/** Attributes from their fields and their transactions as hex (tests, tools, the Engine API JSON form). */
export function attributesFromHex(fields: AttributesFields, transactions: readonly Hex[]): PayloadAttributes {
  return { fields, txBytes: transactions.map((t) => hexToBytes(t)) };
}

/** The attributes' transactions as 0x-hex (the Engine API form). */
export function transactionsHex(a: PayloadAttributes): Hex[] {
  return a.txBytes.map(bytesToHex);
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
  const txs: Uint8Array[] = [encodeL1InfoDepositTx(cfg, sysConfig, l1Origin, seqNumber, ts)];
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
  return {
    fields: {
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
    txBytes: txs,
  };
}

/**
 * The Engine API JSON of payload attributes, keys in op-node's order; `minBaseFee` is a plain JSON number
 * as op-node sends it; `noTxPool` omitted when false.
 */
export function payloadAttributesToJson(attrs: PayloadAttributes): Record<string, unknown> {
  const a = attrs.fields;
  const out: Record<string, unknown> = {
    timestamp: toQuantity(a.timestamp),
    prevRandao: a.prevRandao,
    suggestedFeeRecipient: a.suggestedFeeRecipient,
  };
  if (a.withdrawals !== undefined) out.withdrawals = [];
  if (a.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = a.parentBeaconBlockRoot;
  out.transactions = transactionsHex(attrs);
  if (a.noTxPool) out.noTxPool = true;
  out.gasLimit = toQuantity(a.gasLimit);
  if (a.eip1559Params !== undefined) out.eip1559Params = a.eip1559Params;
  if (a.minBaseFee !== undefined) out.minBaseFee = Number(a.minBaseFee);
  return out;
}
