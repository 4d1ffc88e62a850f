import type { Address, Hash, Hex } from "../core/types/primitives.js";

/**
 * Engine API shapes (op-node §3.1–3.3) shared by the node's ports and the I/O client: one definition, so the
 * client plugs into the node without adapters. Numbers are `number` (block numbers, timestamps) or `bigint`
 * (gas, fees); hashes and byte strings are hex.
 */
export type PayloadStatusKind = "VALID" | "INVALID" | "SYNCING" | "ACCEPTED" | "INVALID_BLOCK_HASH";

export interface PayloadStatus {
  readonly status: PayloadStatusKind;
  readonly latestValidHash?: Hash | null | undefined;
  readonly validationError?: string | null | undefined;
}

export interface ForkchoiceState {
  readonly headBlockHash: Hash;
  readonly safeBlockHash: Hash;
  readonly finalizedBlockHash: Hash;
}

export interface ForkchoiceResult {
  readonly payloadStatus: PayloadStatus;
  readonly payloadId: Hex | null;
}

/** The OP payload attributes' fields besides their transactions. */
export interface AttributesFields {
  readonly timestamp: number;
  readonly prevRandao: Hash;
  readonly suggestedFeeRecipient: Address;
  /** `[]` from Canyon, absent (or undefined) before. */
  readonly withdrawals?: readonly unknown[] | undefined;
  /** From Ecotone. */
  readonly parentBeaconBlockRoot?: Hash | undefined;
  readonly noTxPool: boolean;
  readonly gasLimit: bigint;
  /** 8 bytes, from Holocene. */
  readonly eip1559Params?: Hex | undefined;
  /** From Jovian. */
  readonly minBaseFee?: bigint | undefined;
}

/**
 * OP payload attributes as the node builds them and hands them to its execution client: the fields, and the
 * transactions as EIP-2718 bytes (L1-info deposit, user deposits, upgrade transactions, then batch or pool
 * transactions). The bytes are what consolidation hashes; the Engine API client writes them as hex on the wire.
 * Plain data, never mutated.
 */
export interface PayloadAttributes {
  readonly fields: AttributesFields;
  readonly txBytes: readonly Uint8Array[];
}

export interface ExecutionPayload {
  readonly parentHash: Hash;
  readonly feeRecipient: Address;
  readonly stateRoot: Hash;
  readonly receiptsRoot?: Hash | undefined;
  /** 256 bytes; required on the wire for newPayload. */
  readonly logsBloom?: Hex | undefined;
  readonly prevRandao: Hash;
  readonly blockNumber: number;
  readonly gasLimit: bigint;
  readonly gasUsed?: bigint | undefined;
  readonly timestamp: number;
  readonly extraData: Hex;
  readonly baseFeePerGas?: bigint | undefined;
  readonly blockHash: Hash;
  readonly transactions: readonly Hex[];
  readonly withdrawals?: readonly unknown[] | undefined;
  readonly blobGasUsed?: bigint | undefined;
  readonly excessBlobGas?: bigint | undefined;
  readonly withdrawalsRoot?: Hash | undefined;
}

export interface ExecutionPayloadEnvelope {
  readonly executionPayload: ExecutionPayload;
  readonly parentBeaconBlockRoot?: Hash | undefined;
}

/** The payload fields consolidation compares with derived attributes (op-node `AttributesMatchBlock`). */
export type ComparedPayloadFields = Pick<
  ExecutionPayload,
  | "parentHash"
  | "timestamp"
  | "prevRandao"
  | "gasLimit"
  | "withdrawals"
  | "withdrawalsRoot"
  | "feeRecipient"
  | "extraData"
>;

/**
 * An L2 block as `eth_getBlockBy*(…, false)` gives it, read for consolidation: the payload fields it compares, the
 * block's own hash and number, and the hashes of its transactions (keccak256 of their EIP-2718 bytes, deposits
 * included) instead of the transactions. Enough to check derived attributes against a block the EL already has
 * without reading (or re-encoding) its transactions. `transactionHashes` are as the EL wrote them (either case; they
 * are only ever compared, strictly, with hashes the node computed).
 */
export interface L2BlockHeader extends ComparedPayloadFields {
  readonly blockHash: Hash;
  readonly blockNumber: number;
  readonly transactionHashes: readonly string[];
  readonly parentBeaconBlockRoot?: Hash | undefined;
}

/**
 * A payload the EL sealed (getPayload), as the node carries it back to `newPayload`: the decoded envelope, and the
 * EL's own JSON text of its execution payload when it came over JSON-RPC. The Engine API client sends that text back
 * as the EL wrote it (fields the node does not model included) instead of encoding the payload again.
 */
export interface SealedPayload {
  readonly envelope: ExecutionPayloadEnvelope;
  readonly elJson?: string | undefined;
}

/** What `newPayload` takes: a payload from elsewhere (gossip, req-resp, an EL read), or one the EL sealed. */
export type PayloadToInsert = ExecutionPayloadEnvelope | SealedPayload;

/** The envelope of a payload to insert. */
export function envelopeOf(p: PayloadToInsert): ExecutionPayloadEnvelope {
  return "envelope" in p ? p.envelope : p;
}

/**
 * `newPayload(payload)` and the forkchoice update that makes it the head, as one operation. Each element is the
 * call's outcome or its error; `forkchoice` is absent when the update was not sent (the insertion was not VALID).
 */
export interface HeadInsertion {
  readonly inserted: PayloadStatus | Error;
  readonly forkchoice?: ForkchoiceResult | Error | undefined;
}

/** A block build start: `forkchoiceUpdated(state, attrs)`, after `newPayload(insert)` when given. */
export interface BuildStart {
  readonly state: ForkchoiceState;
  readonly attrs: PayloadAttributes;
  /** The parent, sealed and held since (its hash is `state.headBlockHash`), inserted first. */
  readonly insert?: PayloadToInsert | undefined;
  /**
   * The node seals this block at once (a derived block: no pool to wait for), so the client may bring the sealed
   * payload back with the start (docs/performance.md, payload-id prediction).
   */
  readonly sealAtOnce: boolean;
}

export interface BuildStarted {
  /** Present when `insert` was given. */
  readonly inserted?: PayloadStatus | Error | undefined;
  /** Absent when the update was not sent (the insertion was not VALID). */
  readonly forkchoice?: ForkchoiceResult | Error | undefined;
  /** The payload sealed under the id the update returned, when it came with the start. */
  readonly sealed?: SealedPayload | undefined;
}
