import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { keccakHex } from "../block/keccak.js";
import { asBytes, asList, asUint, rlpDecode, rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "../block/rlp.js";

/** EIP-2718 type byte of OP deposit transactions. */
export const DEPOSIT_TX_TYPE = 0x7e;

/** An OP Stack deposit transaction (type 0x7E). `mint` 0 means "no mint"; `to` null is a contract creation. */
export interface DepositTx {
  readonly sourceHash: Hash;
  readonly from: Address;
  readonly to: Address | null;
  readonly mint: bigint;
  readonly value: bigint;
  readonly gas: bigint;
  readonly isSystemTx: boolean;
  readonly data: Hex;
}

function sized(hex: Hex, n: number, what: string): Uint8Array {
  const b = hexToBytes(hex);
  if (b.length !== n) throw new DecodeError(`deposit ${what} must be ${n} bytes`);
  return b;
}

/** A deposit with its byte fields already as bytes (sizes as in {@link DepositTx}: 32, 20, 20 or empty). */
export interface DepositTxBytes {
  readonly sourceHash: Uint8Array;
  readonly from: Uint8Array;
  readonly to: Uint8Array | null;
  readonly mint: bigint;
  readonly value: bigint;
  readonly gas: bigint;
  readonly isSystemTx: boolean;
  readonly data: Uint8Array;
}

/** `0x7E ‖ rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data])`. */
export function encodeDepositTx(tx: DepositTx): Uint8Array {
  return encodeDepositTxBytes({
    sourceHash: sized(tx.sourceHash, 32, "sourceHash"),
    from: sized(tx.from, 20, "from"),
    to: tx.to === null ? null : sized(tx.to, 20, "to"),
    mint: tx.mint,
    value: tx.value,
    gas: tx.gas,
    isSystemTx: tx.isSystemTx,
    data: hexToBytes(tx.data),
  });
}

/** {@link encodeDepositTx} of a deposit whose byte fields are bytes already (no hex round trip). */
export function encodeDepositTxBytes(tx: DepositTxBytes): Uint8Array {
  if (tx.sourceHash.length !== 32) throw new DecodeError("deposit sourceHash must be 32 bytes");
  if (tx.from.length !== 20) throw new DecodeError("deposit from must be 20 bytes");
  if (tx.to !== null && tx.to.length !== 20) throw new DecodeError("deposit to must be 20 bytes");
  const body = rlpEncodeListRaw([
    rlpEncodeBytes(tx.sourceHash),
    rlpEncodeBytes(tx.from),
    rlpEncodeBytes(tx.to ?? EMPTY),
    rlpEncodeBytes(uintToBytes(tx.mint)),
    rlpEncodeBytes(uintToBytes(tx.value)),
    rlpEncodeBytes(uintToBytes(tx.gas)),
    rlpEncodeBytes(tx.isSystemTx ? ONE : EMPTY),
    rlpEncodeBytes(tx.data),
  ]);
  const out = new Uint8Array(body.length + 1);
  out[0] = DEPOSIT_TX_TYPE;
  out.set(body, 1);
  return out;
}

const EMPTY = new Uint8Array(0);
const ONE = Uint8Array.of(1);

export function encodeDepositTxHex(tx: DepositTx): Hex {
  return bytesToHex(encodeDepositTx(tx));
}

/** Decodes a full 0x7E-prefixed deposit transaction. Throws DecodeError on anything else. */
export function decodeDepositTx(raw: Uint8Array): DepositTx {
  if (raw.length === 0 || raw[0] !== DEPOSIT_TX_TYPE) throw new DecodeError("not a deposit transaction");
  const fields = asList(rlpDecode(raw.subarray(1)), "deposit");
  if (fields.length !== 8) throw new DecodeError(`deposit: expected 8 fields, got ${fields.length}`);
  const sourceHash = asBytes(fields[0], "sourceHash");
  const from = asBytes(fields[1], "from");
  const to = asBytes(fields[2], "to");
  const sys = asBytes(fields[6], "isSystemTx");
  if (sourceHash.length !== 32) throw new DecodeError("deposit: sourceHash must be 32 bytes");
  if (from.length !== 20) throw new DecodeError("deposit: from must be 20 bytes");
  if (to.length !== 0 && to.length !== 20) throw new DecodeError("deposit: to must be empty or 20 bytes");
  if (sys.length > 1 || (sys.length === 1 && sys[0] !== 1)) throw new DecodeError("deposit: invalid isSystemTx bool");
  return {
    sourceHash: bytesToHex(sourceHash),
    from: bytesToHex(from),
    to: to.length === 0 ? null : bytesToHex(to),
    mint: asUint(fields[3], "mint"),
    value: asUint(fields[4], "value"),
    gas: asUint(fields[5], "gas", 8),
    isSystemTx: sys.length === 1,
    data: bytesToHex(asBytes(fields[7], "data")),
  };
}

/**
 * The calldata of a full 0x7E-prefixed deposit transaction, with the same checks as {@link decodeDepositTx} but
 * without converting the other fields (the L1-info deposit of every L2 block read back is decoded for its data).
 */
export function depositTxData(raw: Uint8Array): Uint8Array {
  if (raw.length === 0 || raw[0] !== DEPOSIT_TX_TYPE) throw new DecodeError("not a deposit transaction");
  const fields = asList(rlpDecode(raw.subarray(1)), "deposit");
  if (fields.length !== 8) throw new DecodeError(`deposit: expected 8 fields, got ${fields.length}`);
  const to = asBytes(fields[2], "to");
  const sys = asBytes(fields[6], "isSystemTx");
  if (asBytes(fields[0], "sourceHash").length !== 32) throw new DecodeError("deposit: sourceHash must be 32 bytes");
  if (asBytes(fields[1], "from").length !== 20) throw new DecodeError("deposit: from must be 20 bytes");
  if (to.length !== 0 && to.length !== 20) throw new DecodeError("deposit: to must be empty or 20 bytes");
  if (sys.length > 1 || (sys.length === 1 && sys[0] !== 1)) throw new DecodeError("deposit: invalid isSystemTx bool");
  asUint(fields[3], "mint");
  asUint(fields[4], "value");
  asUint(fields[5], "gas", 8);
  return asBytes(fields[7], "data");
}

/** Transaction hash of a deposit: keccak256 of its full encoding. */
export function depositTxHash(tx: DepositTx): Hash {
  return keccakHex(encodeDepositTx(tx));
}
