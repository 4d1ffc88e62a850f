import { hexToBytes } from "../../core/codec/hex.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { type BlockHeader, headerHash } from "./header.js";
import { EMPTY_OMMERS_HASH, EMPTY_REQUESTS_HASH, orderedTrieRoot } from "./trie.js";
import { type Withdrawal, withdrawalsRoot } from "./withdrawal.js";

/** An Engine API execution payload (V1–V4 fields; OP `withdrawalsRoot` from Isthmus). */
export interface ExecutionPayload {
  readonly parentHash: Hash;
  readonly feeRecipient: Address;
  readonly stateRoot: Hash;
  readonly receiptsRoot: Hash;
  readonly logsBloom: Hex;
  readonly prevRandao: Hash;
  readonly blockNumber: number;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly timestamp: number;
  readonly extraData: Hex;
  readonly baseFeePerGas: bigint;
  readonly blockHash: Hash;
  readonly transactions: readonly Hex[];
  /** Canyon+ (always `[]` on OP chains). */
  readonly withdrawals?: readonly Withdrawal[];
  /** Ecotone+. */
  readonly blobGasUsed?: bigint;
  readonly excessBlobGas?: bigint;
  /** Isthmus+: the L2ToL1MessagePasser storage root, used as the header's withdrawalsRoot. */
  readonly withdrawalsRoot?: Hash;
}

const ZERO_NONCE: Hex = "0x0000000000000000";

/**
 * The header an execution payload stands for: empty ommers, difficulty 0, nonce 0, mixHash = prevRandao,
 * transactionsRoot over the opaque transactions; withdrawalsRoot from the payload (Isthmus, with the
 * empty requests hash) or computed from `withdrawals` (Canyon); blob gas fields and the parent beacon
 * root (from the envelope / attributes) when present.
 */
export function executionPayloadHeader(p: ExecutionPayload, parentBeaconBlockRoot?: Hash): BlockHeader {
  const txRoot = orderedTrieRoot(p.transactions.map((t) => hexToBytes(t)));
  const wRoot = p.withdrawalsRoot ?? (p.withdrawals === undefined ? undefined : withdrawalsRoot(p.withdrawals));
  const isthmus = p.withdrawalsRoot !== undefined;
  return {
    parentHash: p.parentHash,
    sha3Uncles: EMPTY_OMMERS_HASH,
    miner: p.feeRecipient,
    stateRoot: p.stateRoot,
    transactionsRoot: txRoot,
    receiptsRoot: p.receiptsRoot,
    logsBloom: p.logsBloom,
    difficulty: 0n,
    number: p.blockNumber,
    gasLimit: p.gasLimit,
    gasUsed: p.gasUsed,
    timestamp: p.timestamp,
    extraData: p.extraData,
    mixHash: p.prevRandao,
    nonce: ZERO_NONCE,
    baseFeePerGas: p.baseFeePerGas,
    ...(wRoot === undefined ? {} : { withdrawalsRoot: wRoot }),
    ...(p.blobGasUsed === undefined ? {} : { blobGasUsed: p.blobGasUsed }),
    ...(p.excessBlobGas === undefined ? {} : { excessBlobGas: p.excessBlobGas }),
    ...(parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot }),
    ...(isthmus ? { requestsHash: EMPTY_REQUESTS_HASH } : {}),
  };
}

/** The block hash an execution payload must carry. */
export function computePayloadBlockHash(p: ExecutionPayload, parentBeaconBlockRoot?: Hash): Hash {
  return headerHash(executionPayloadHeader(p, parentBeaconBlockRoot));
}

/** Whether the payload's `blockHash` matches its contents. */
export function checkPayloadBlockHash(p: ExecutionPayload, parentBeaconBlockRoot?: Hash): boolean {
  return computePayloadBlockHash(p, parentBeaconBlockRoot) === p.blockHash.toLowerCase();
}
