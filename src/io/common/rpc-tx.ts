import { bytesToHex, isHex } from "../../core/codec/hex.js";
import { quantityToNumber } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { keccakHex } from "../../protocol/block/keccak.js";
import { encodeRpcTransaction } from "../../protocol/block/rpc-transaction.js";

/** A transaction as the node needs it, decoded from an `eth_getBlockBy*` JSON object. */
export interface RpcTransaction {
  readonly hash: Hash;
  readonly type: number;
  readonly from: Address;
  /** null for contract creation. */
  readonly to: Address | null;
  readonly input: Hex;
  readonly blobVersionedHashes: readonly Hash[];
  /** The EIP-2718 encoding, reconstructed from the JSON fields (deposits included) and checked against `hash`. */
  readonly raw: Hex;
}

type Json = Record<string, unknown>;

function hexOf(o: Json, key: string, bytes?: number): Hex {
  const v = o[key];
  if (!isHex(v) || v.length % 2 !== 0 || (bytes !== undefined && v.length !== 2 + 2 * bytes)) {
    throw new DecodeError(`transaction field ${key} invalid`, { value: String(v).slice(0, 80) });
  }
  return v.toLowerCase() as Hex;
}

/**
 * Decodes a full transaction object. `raw` may be given when the bytes were already re-encoded (block
 * validation does it); otherwise they are rebuilt here. The bytes must hash to the object's `hash`.
 */
export function decodeRpcTransaction(value: unknown, raw?: Uint8Array): RpcTransaction {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new DecodeError("transaction is not an object (was the block fetched without full transactions?)");
  }
  const tx = value as Json;
  const bytes = raw ?? encodeRpcTransaction(tx);
  const computed = keccakHex(bytes);
  const claimed = hexOf(tx, "hash", 32);
  if (computed !== claimed) throw new DecodeError("transaction hash does not match its fields", { claimed, computed });
  const hashes = Array.isArray(tx.blobVersionedHashes) ? tx.blobVersionedHashes : [];
  return {
    hash: computed,
    type: tx.type === undefined || tx.type === null ? 0 : quantityToNumber(tx.type),
    from: hexOf(tx, "from", 20),
    to: tx.to === null || tx.to === undefined ? null : hexOf(tx, "to", 20),
    input: tx.input === undefined && tx.data !== undefined ? hexOf(tx, "data") : hexOf(tx, "input"),
    blobVersionedHashes: hashes.map((h) => hexOf({ h }, "h", 32)),
    raw: bytesToHex(bytes),
  };
}
