/**
 * Payload ids of the simulated execution client, computed as op-geth does (`BuildPayloadArgs.Id`; the formula:
 * protocol/payload-id.ts, docs/performance.md), so that a node predicting ids meets the same behaviour
 * here as against op-geth.
 */
import { type Hash, type Hex, hexToBytes } from "supernode/core";
import { payloadId } from "supernode/protocol";
import type { BuildAttributes } from "./block-builder.js";

/** RLP of an empty list (op-geth hashes the withdrawals list always: `0xc0` when there are none). */
const EMPTY_LIST_RLP = Uint8Array.of(0xc0);

/**
 * The payload id of attributes parsed (and checked) by the client, built on `parent`, by forkchoiceUpdated version
 * `version` (undefined for a field out of range). Withdrawals that are not empty are refused by the block builder,
 * so only the empty list's RLP is ever hashed.
 */
export function payloadIdOf(parent: Hash, a: BuildAttributes, version: number): Hex | undefined {
  return payloadId({
    parentHash: parent,
    timestamp: a.timestamp,
    prevRandao: a.prevRandao,
    feeRecipient: a.suggestedFeeRecipient,
    withdrawalsRlp: EMPTY_LIST_RLP,
    parentBeaconBlockRoot: a.parentBeaconBlockRoot,
    noTxPool: a.noTxPool,
    txHashes: a.transactions.map((t) => hexToBytes(t.hash)),
    gasLimit: a.gasLimit,
    eip1559Params: a.eip1559Params,
    // Hashed whenever given, as op-reth does (one op-geth version hashed it only when non-zero: docs/performance.md).
    minBaseFee: a.minBaseFee,
    version,
  });
}

/** The version byte of a payload id (its first byte), or undefined when `id` is not an 8-byte hex string. */
export function payloadIdVersion(id: unknown): number | undefined {
  if (typeof id !== "string" || !/^0x[0-9a-fA-F]{16}$/.test(id)) return undefined;
  return Number.parseInt(id.slice(2, 4), 16);
}
