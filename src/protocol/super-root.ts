import { bytesToHex, hexToBytes } from "../core/codec/hex.js";
import { DecodeError } from "../core/errors/supernode-error.js";
import type { ChainId, Hash } from "../core/types/primitives.js";
import { keccak } from "./block/keccak.js";
import { bytesToBigint } from "./block/rlp.js";

export const SUPER_ROOT_VERSION_V1 = 1;

export interface ChainOutput {
  readonly chainId: ChainId;
  readonly output: Hash;
}

/** A version-1 super root: a timestamp and the output root of every chain of the dependency set. */
export interface SuperV1 {
  readonly timestamp: number;
  readonly chains: readonly ChainOutput[];
}

const U256_MAX = (1n << 256n) - 1n;

/**
 * `0x01 ‖ timestamp u64 BE ‖ (chainId u256 BE ‖ output root)*`, chains sorted ascending by chain ID.
 * Throws DecodeError on duplicate chain IDs or malformed values.
 */
export function encodeSuperV1(s: SuperV1): Uint8Array {
  if (!Number.isSafeInteger(s.timestamp) || s.timestamp < 0) throw new DecodeError("super root: bad timestamp");
  const chains = [...s.chains].sort((a, b) => (a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : 0));
  const out = new Uint8Array(9 + 64 * chains.length);
  out[0] = SUPER_ROOT_VERSION_V1;
  new DataView(out.buffer).setBigUint64(1, BigInt(s.timestamp));
  chains.forEach((c, i) => {
    if (c.chainId < 0n || c.chainId > U256_MAX) throw new DecodeError("super root: chain id out of range");
    if (i > 0 && chains[i - 1]?.chainId === c.chainId) throw new DecodeError("super root: duplicate chain id");
    const off = 9 + 64 * i;
    let v = c.chainId;
    for (let j = 31; j >= 0; j--) {
      out[off + j] = Number(v & 0xffn);
      v >>= 8n;
    }
    const o = hexToBytes(c.output);
    if (o.length !== 32) throw new DecodeError("super root: output root must be 32 bytes");
    out.set(o, off + 32);
  });
  return out;
}

/** Decodes a version-1 super-root preimage (length ≥ 73, (length − 9) divisible by 64, version byte 1). */
export function decodeSuperV1(data: Uint8Array): SuperV1 {
  if (data.length < 73 || (data.length - 9) % 64 !== 0)
    throw new DecodeError(`super root: invalid preimage length ${data.length}`);
  if (data[0] !== SUPER_ROOT_VERSION_V1) throw new DecodeError(`super root: unsupported version ${data[0]}`);
  const ts = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1);
  if (ts > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError("super root: timestamp too large");
  const chains: ChainOutput[] = [];
  for (let off = 9; off < data.length; off += 64) {
    chains.push({
      chainId: bytesToBigint(data.subarray(off, off + 32)),
      output: bytesToHex(data.subarray(off + 32, off + 64)),
    });
  }
  return { timestamp: Number(ts), chains };
}

/** keccak256 of the version-1 preimage. */
export function superRootV1(s: SuperV1): Hash {
  return bytesToHex(keccak(encodeSuperV1(s)));
}

/** The `super` JSON of the RPC: `{"timestamp":"0x…","chains":[{"ChainID":"10","Output":"0x…"}]}`, sorted. */
export function superV1ToJson(s: SuperV1): { timestamp: string; chains: { ChainID: string; Output: Hash }[] } {
  const chains = [...s.chains].sort((a, b) => (a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : 0));
  return {
    timestamp: `0x${s.timestamp.toString(16)}`,
    chains: chains.map((c) => ({ ChainID: c.chainId.toString(10), Output: c.output })),
  };
}
