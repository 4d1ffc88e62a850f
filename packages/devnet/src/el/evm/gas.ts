/**
 * Transaction-level gas as a real client computes it around the EVM: intrinsic gas (calldata, creation, EIP-3860
 * init code words, EIP-2930 access lists, EIP-7702 authorizations), the EIP-3529 refund cap and the EIP-7623
 * calldata floor (Prague rules: Isthmus), and Osaka's per-transaction gas cap (EIP-7825: Karst).
 */
import type { Address, Hash, Hex } from "supernode/core";

/** EIP-7825: the most gas a (non-deposit) transaction may ask for from Osaka (Karst). */
export const MAX_TX_GAS = 1n << 24n;

export interface GasRules {
  /** Shanghai (Canyon): EIP-3860 init code cost. */
  readonly shanghai: boolean;
  /** Prague (Isthmus): EIP-7623 floor, EIP-7702 authorizations. */
  readonly prague: boolean;
}

export type AccessList = readonly { address: Address; storageKeys: readonly Hash[] }[];

/** Zero bytes count 1 token, others 4 (EIP-7623); calldata gas is 4 per token. */
function tokens(input: Hex): number {
  let n = 0;
  for (let i = 2; i < input.length; i += 2) n += input.charCodeAt(i) === 48 && input.charCodeAt(i + 1) === 48 ? 1 : 4;
  return n;
}

export function accessListOf(tx: GasFields): AccessList {
  return (tx.accessList ?? []) as AccessList;
}

/** The transaction fields intrinsic gas depends on (a `SimTx` or a call object). */
export interface GasFields {
  readonly input: Hex;
  readonly to: Address | null;
  readonly accessList?: readonly unknown[] | undefined;
  readonly authorizationList?: readonly unknown[] | undefined;
}

export function intrinsicGasOf(m: GasFields, r: GasRules): bigint {
  let gas = 21000 + 4 * tokens(m.input);
  if (m.to === null) {
    gas += 32000;
    if (r.shanghai) gas += 2 * Math.ceil((m.input.length - 2) / 64);
  }
  for (const e of (m.accessList ?? []) as AccessList) gas += 2400 + 1900 * e.storageKeys.length;
  gas += 25000 * (m.authorizationList?.length ?? 0);
  return BigInt(gas);
}

/** EIP-7623: the least gas a transaction with this calldata uses (0 before Prague). */
export function floorGasOf(input: Hex, r: GasRules): bigint {
  return r.prague ? 21000n + 10n * BigInt(tokens(input)) : 0n;
}

/** The least gas a transaction must carry: its intrinsic gas, and from Prague at least the calldata floor. */
export function requiredGasOf(m: GasFields, r: GasRules): bigint {
  const intrinsic = intrinsicGasOf(m, r);
  const floor = floorGasOf(m.input, r);
  if (floor > intrinsic) return floor;
  return intrinsic;
}

/** Gas used by a transaction: intrinsic + execution, minus the refund (at most a fifth), at least the floor. */
export function txGasUsed(intrinsic: bigint, execution: bigint, refund: bigint, floor: bigint): bigint {
  const spent = intrinsic + execution;
  const cap = spent / 5n;
  const used = spent - (refund < cap ? refund : cap);
  return used < floor ? floor : used;
}
