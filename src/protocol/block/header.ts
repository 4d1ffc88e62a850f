import { bytesToHex, hexToBytes, isHex } from "../../core/codec/hex.js";
import { quantityToBigint, quantityToNumber } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { keccak } from "./keccak.js";
import { rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "./rlp.js";

/**
 * An execution-layer block header with the fields of every fork. Optional fields appear from the fork
 * that introduced them: London (`baseFeePerGas`), Shanghai (`withdrawalsRoot`), Cancun (`blobGasUsed`,
 * `excessBlobGas`, `parentBeaconBlockRoot`), Prague (`requestsHash`).
 */
export interface BlockHeader {
  readonly parentHash: Hash;
  readonly sha3Uncles: Hash;
  readonly miner: Address;
  readonly stateRoot: Hash;
  readonly transactionsRoot: Hash;
  readonly receiptsRoot: Hash;
  /** 256 bytes. */
  readonly logsBloom: Hex;
  readonly difficulty: bigint;
  readonly number: number;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly timestamp: number;
  readonly extraData: Hex;
  /** `prevRandao` after the merge. */
  readonly mixHash: Hash;
  /** 8 bytes. */
  readonly nonce: Hex;
  readonly baseFeePerGas?: bigint;
  readonly withdrawalsRoot?: Hash;
  readonly blobGasUsed?: bigint;
  readonly excessBlobGas?: bigint;
  readonly parentBeaconBlockRoot?: Hash;
  readonly requestsHash?: Hash;
}

function fixed(hex: Hex, size: number, name: string): Uint8Array {
  const b = hexToBytes(hex);
  if (b.length !== size) throw new DecodeError(`header ${name}: expected ${size} bytes, got ${b.length}`);
  return b;
}

/** The header's RLP encoding (the preimage of its hash). */
export function encodeHeader(h: BlockHeader): Uint8Array {
  const items: Uint8Array[] = [
    fixed(h.parentHash, 32, "parentHash"),
    fixed(h.sha3Uncles, 32, "sha3Uncles"),
    fixed(h.miner, 20, "miner"),
    fixed(h.stateRoot, 32, "stateRoot"),
    fixed(h.transactionsRoot, 32, "transactionsRoot"),
    fixed(h.receiptsRoot, 32, "receiptsRoot"),
    fixed(h.logsBloom, 256, "logsBloom"),
    uintToBytes(h.difficulty),
    uintToBytes(h.number),
    uintToBytes(h.gasLimit),
    uintToBytes(h.gasUsed),
    uintToBytes(h.timestamp),
    hexToBytes(h.extraData),
    fixed(h.mixHash, 32, "mixHash"),
    fixed(h.nonce, 8, "nonce"),
  ];
  // Optional trailing fields, in fork order; stop at the first absent one.
  const tail: (Uint8Array | undefined)[] = [
    h.baseFeePerGas === undefined ? undefined : uintToBytes(h.baseFeePerGas),
    h.withdrawalsRoot === undefined ? undefined : fixed(h.withdrawalsRoot, 32, "withdrawalsRoot"),
    h.blobGasUsed === undefined ? undefined : uintToBytes(h.blobGasUsed),
    h.excessBlobGas === undefined ? undefined : uintToBytes(h.excessBlobGas),
    h.parentBeaconBlockRoot === undefined ? undefined : fixed(h.parentBeaconBlockRoot, 32, "parentBeaconBlockRoot"),
    h.requestsHash === undefined ? undefined : fixed(h.requestsHash, 32, "requestsHash"),
  ];
  for (const t of tail) {
    if (t === undefined) break;
    items.push(t);
  }
  return rlpEncodeListRaw(items.map(rlpEncodeBytes));
}

/** keccak256 of the header RLP: the block hash. */
export function headerHashBytes(h: BlockHeader): Uint8Array {
  return keccak(encodeHeader(h));
}

/** The block hash of a header. */
export function headerHash(h: BlockHeader): Hash {
  return bytesToHex(headerHashBytes(h));
}

type Json = Record<string, unknown>;

function field(obj: Json, name: string): unknown {
  const v = obj[name];
  if (v === undefined || v === null) throw new DecodeError(`rpc header: missing ${name}`);
  return v;
}

function hexField(obj: Json, name: string, size?: number): Hex {
  const v = field(obj, name);
  if (!isHex(v) || v.length % 2 !== 0) throw new DecodeError(`rpc header: ${name} is not hex`, { value: String(v) });
  if (size !== undefined && v.length !== 2 + size * 2)
    throw new DecodeError(`rpc header: ${name} must be ${size} bytes`, { value: v });
  return v.toLowerCase() as Hex;
}

function optional<T>(obj: Json, name: string, read: (o: Json, n: string) => T): T | undefined {
  const v = obj[name];
  return v === undefined || v === null ? undefined : read(obj, name);
}

const qBig = (o: Json, n: string): bigint => quantityToBigint(field(o, n));
const qNum = (o: Json, n: string): number => quantityToNumber(field(o, n));
const h32 = (o: Json, n: string): Hash => hexField(o, n, 32);

/**
 * Parses the header fields of an `eth_getBlockBy*` (or `eth_getHeaderBy*`) JSON object. Extra fields
 * (`hash`, `transactions`, `size`, …) are ignored. Throws DecodeError on malformed input.
 */
export function parseRpcHeader(json: unknown): BlockHeader {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new DecodeError("rpc header: not an object");
  const o = json as Json;
  const base = {
    parentHash: h32(o, "parentHash"),
    sha3Uncles: h32(o, "sha3Uncles"),
    miner: hexField(o, "miner", 20),
    stateRoot: h32(o, "stateRoot"),
    transactionsRoot: h32(o, "transactionsRoot"),
    receiptsRoot: h32(o, "receiptsRoot"),
    logsBloom: hexField(o, "logsBloom", 256),
    difficulty: qBig(o, "difficulty"),
    number: qNum(o, "number"),
    gasLimit: qBig(o, "gasLimit"),
    gasUsed: qBig(o, "gasUsed"),
    timestamp: qNum(o, "timestamp"),
    extraData: hexField(o, "extraData"),
    mixHash: h32(o, "mixHash"),
    nonce: hexField(o, "nonce", 8),
  };
  const baseFeePerGas = optional(o, "baseFeePerGas", qBig);
  const withdrawalsRoot = optional(o, "withdrawalsRoot", h32);
  const blobGasUsed = optional(o, "blobGasUsed", qBig);
  const excessBlobGas = optional(o, "excessBlobGas", qBig);
  const parentBeaconBlockRoot = optional(o, "parentBeaconBlockRoot", h32);
  const requestsHash = optional(o, "requestsHash", h32);
  return {
    ...base,
    ...(baseFeePerGas === undefined ? {} : { baseFeePerGas }),
    ...(withdrawalsRoot === undefined ? {} : { withdrawalsRoot }),
    ...(blobGasUsed === undefined ? {} : { blobGasUsed }),
    ...(excessBlobGas === undefined ? {} : { excessBlobGas }),
    ...(parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot }),
    ...(requestsHash === undefined ? {} : { requestsHash }),
  };
}
