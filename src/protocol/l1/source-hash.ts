import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hash } from "../../core/types/primitives.js";
import { keccak } from "../block/keccak.js";

/** Deposit source-hash domains. */
export const SourceDomain = {
  UserDeposit: 0,
  L1Info: 1,
  Upgrade: 2,
  /** Interop: replacement of an invalidated block. */
  InvalidatedBlock: 4,
} as const;

function word(n: bigint | number): Uint8Array {
  const out = new Uint8Array(32);
  if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) {
    for (let i = 31, x = n; i >= 0 && x > 0; i--, x = Math.floor(x / 256)) out[i] = x % 256;
    return out;
  }
  let v = BigInt(n);
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function hash32(h: Hash, what: string): Uint8Array {
  const b = hexToBytes(h);
  if (b.length !== 32) throw new DecodeError(`${what} must be 32 bytes`);
  return b;
}

/** `keccak256(uint256(domain) ‖ inner)`. */
export function sourceHash(domain: number, inner: Uint8Array): Hash {
  const pre = new Uint8Array(64);
  pre.set(word(domain), 0);
  pre.set(inner, 32);
  return bytesToHex(keccak(pre));
}

function blockAndIndex(blockHash: Hash, index: bigint | number): Uint8Array {
  const pre = new Uint8Array(64);
  pre.set(hash32(blockHash, "block hash"), 0);
  pre.set(word(index), 32);
  return keccak(pre);
}

/** Domain 0: user deposit from the log at `logIndex` (index within the whole L1 block). */
export function userDepositSourceHash(l1BlockHash: Hash, logIndex: bigint | number): Hash {
  return sourceHash(SourceDomain.UserDeposit, blockAndIndex(l1BlockHash, logIndex));
}

/** Domain 1: the L1-info deposit of the L2 block with `seqNumber` in the epoch of `l1BlockHash`. */
export function l1InfoDepositSourceHash(l1BlockHash: Hash, seqNumber: bigint | number): Hash {
  return sourceHash(SourceDomain.L1Info, blockAndIndex(l1BlockHash, seqNumber));
}

/** {@link l1InfoDepositSourceHash} as bytes, from the L1 block hash as bytes (32). */
export function l1InfoDepositSourceHashBytes(l1BlockHash: Uint8Array, seqNumber: number): Uint8Array {
  if (l1BlockHash.length !== 32) throw new DecodeError("block hash must be 32 bytes");
  const pre = new Uint8Array(64);
  pre.set(l1BlockHash, 0);
  pre.set(word(seqNumber), 32);
  const outer = new Uint8Array(64);
  outer[31] = SourceDomain.L1Info;
  outer.set(keccak(pre), 32);
  return keccak(outer);
}

/** Domain 2: a network-upgrade transaction identified by its intent string. */
export function upgradeDepositSourceHash(intent: string): Hash {
  return sourceHash(SourceDomain.Upgrade, keccak(new TextEncoder().encode(intent)));
}

/** Domain 4: interop replacement of an invalidated block, over its output root. */
export function invalidatedBlockSourceHash(outputRoot: Hash): Hash {
  return sourceHash(SourceDomain.InvalidatedBlock, hash32(outputRoot, "output root"));
}
