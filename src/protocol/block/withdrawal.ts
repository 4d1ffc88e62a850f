import type { Address } from "../../core/types/primitives.js";
import { hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import { asObject, jsonBig, jsonBytes } from "./json.js";
import { rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "./rlp.js";
import { orderedTrieRoot } from "./trie.js";
import type { Hash } from "../../core/types/primitives.js";

/** An EIP-4895 beacon-chain withdrawal. `amount` is in gwei. */
export interface Withdrawal {
  readonly index: bigint;
  readonly validatorIndex: bigint;
  readonly address: Address;
  readonly amount: bigint;
}

/** RLP([index, validatorIndex, address, amount]). */
export function encodeWithdrawal(w: Withdrawal): Uint8Array {
  const addr = hexToBytes(w.address);
  if (addr.length !== 20) throw new DecodeError("withdrawal address must be 20 bytes");
  return rlpEncodeListRaw(
    [uintToBytes(w.index), uintToBytes(w.validatorIndex), addr, uintToBytes(w.amount)].map(rlpEncodeBytes),
  );
}

/** The header's `withdrawalsRoot` for a list of withdrawals (EMPTY_TRIE_ROOT for `[]`). */
export function withdrawalsRoot(ws: readonly Withdrawal[]): Hash {
  return orderedTrieRoot(ws.map(encodeWithdrawal));
}

/** Parses an `eth_getBlockBy*` withdrawal object. */
export function parseRpcWithdrawal(json: unknown): Withdrawal {
  const o = asObject(json, "withdrawal");
  const what = "withdrawal";
  return {
    index: jsonBig(o, "index", what),
    validatorIndex: jsonBig(o, "validatorIndex", what),
    address: `0x${Buffer.from(jsonBytes(o, "address", what, 20)).toString("hex")}`,
    amount: jsonBig(o, "amount", what),
  };
}
