import type { BlockHeader } from "supernode/protocol";
import type { Address, Hash, Hex } from "supernode/core";
import type { LedgerState } from "./ledger.js";

/** Which execution client the simulator imitates: `a` = current (variant_a), `b` = legacy (variant_b). */
export type Variant = "a" | "b";

/** Fork activation times (L2 timestamps) the simulated client follows; absent = not scheduled. */
export interface ElForks {
  readonly regolith?: number;
  readonly canyon?: number;
  readonly delta?: number;
  readonly ecotone?: number;
  readonly fjord?: number;
  readonly granite?: number;
  readonly holocene?: number;
  readonly isthmus?: number;
  readonly jovian?: number;
  readonly karst?: number;
  readonly lagoon?: number;
}

export type ElFork = keyof ElForks;

/** EIP-1559 chain constants (pre-Holocene, and the fallback for zero Holocene params). */
export interface Eip1559Constants {
  readonly elasticity: number;
  readonly denominator: number;
  readonly denominatorCanyon: number;
}

/** Deposit-only fields of a 0x7E transaction. */
export interface DepositFields {
  readonly sourceHash: Hash;
  readonly mint: bigint;
  readonly isSystemTx: boolean;
}

/** A decoded transaction as the simulator keeps it (raw bytes plus the fields the ledger and RPC need). */
export interface SimTx {
  readonly raw: Uint8Array;
  readonly hash: Hash;
  readonly type: number;
  readonly from: Address;
  readonly to: Address | null;
  readonly value: bigint;
  readonly gas: bigint;
  readonly input: Hex;
  /** Signed transactions only (deposits: undefined). */
  readonly nonce?: bigint;
  readonly chainId?: bigint;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly v?: bigint;
  readonly r?: Hex;
  readonly s?: Hex;
  readonly yParity?: number;
  readonly accessList?: readonly unknown[];
  /** EIP-7702 (type 4) signed authorizations, kept to serve the transaction's JSON (the client does not apply them). */
  readonly authorizationList?: readonly SimAuthorization[];
  readonly deposit?: DepositFields;
}

export interface SimAuthorization {
  readonly chainId: bigint;
  readonly address: Address;
  readonly nonce: bigint;
  readonly yParity: number;
  readonly r: Hex;
  readonly s: Hex;
}

export interface SimLog {
  readonly address: Address;
  readonly topics: readonly Hash[];
  readonly data: Hex;
}

/** L1 data-fee figures attached to a receipt (from the block's L1-info transaction). */
export interface L1FeeFields {
  readonly model: "legacy" | "v2";
  readonly l1GasUsed: bigint;
  readonly l1GasPrice: bigint;
  readonly l1Fee: bigint;
  /** Legacy model: decimal string scalar (e.g. "0.684"). */
  readonly l1FeeScalar?: string;
  readonly l1BaseFeeScalar?: bigint;
  readonly l1BlobBaseFee?: bigint;
  readonly l1BlobBaseFeeScalar?: bigint;
  readonly daFootprintGasScalar?: bigint;
  readonly operatorFeeScalar?: bigint;
  readonly operatorFeeConstant?: bigint;
}

export interface SimReceipt {
  readonly status: 0 | 1;
  readonly cumulativeGasUsed: bigint;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  readonly logs: readonly SimLog[];
  /** 256-byte bloom of this receipt's logs. */
  readonly logsBloom: Uint8Array;
  readonly contractAddress: Address | null;
  readonly depositNonce?: bigint;
  readonly depositReceiptVersion?: bigint;
  readonly l1: L1FeeFields | null;
}

/** A block the simulator holds (canonical or not). */
export interface SimBlock {
  readonly header: BlockHeader;
  readonly hash: Hash;
  readonly txs: readonly SimTx[];
  readonly receipts: readonly SimReceipt[];
  /** Ledger after the block. */
  readonly state: LedgerState;
  /** Withdrawals list (`[]` from Canyon, undefined before). */
  readonly withdrawals: readonly unknown[] | undefined;
  /** RLP size of the block (approximate: header + transactions). */
  readonly size: number;
}
