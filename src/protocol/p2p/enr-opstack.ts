/**
 * The `opstack` ENR entry: an RLP byte string holding `uvarint(chainId) ‖ uvarint(version)` (version 0). The decoder
 * reads the two uvarints and ignores trailing bytes, as op-node does.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";

export const OPSTACK_ENR_KEY = "opstack";

function uvarint(n: bigint): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80n) {
    out.push(Number((v & 0x7fn) | 0x80n));
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

function readUvarint(b: Uint8Array, at: number): [bigint, number] {
  let v = 0n;
  let shift = 0n;
  for (let i = at; i < b.length && i < at + 10; i++) {
    const c = b[i] as number;
    v |= BigInt(c & 0x7f) << shift;
    if ((c & 0x80) === 0) {
      if (v >= 1n << 64n) break;
      return [v, i + 1];
    }
    shift += 7n;
  }
  throw new DecodeError("opstack ENR entry: bad uvarint");
}

/** The entry's content (what the ENR stores as the value, before the RLP string header). */
export function encodeOpStackEntry(chainId: bigint, version = 0n): Uint8Array {
  return Uint8Array.from([...uvarint(chainId), ...uvarint(version)]);
}

/** The entry as RLP (what op-node writes into the record), e.g. chain 10 → `820a00`. */
export function encodeOpStackEntryRlp(chainId: bigint, version = 0n): Uint8Array {
  const c = encodeOpStackEntry(chainId, version);
  if (c.length > 55) throw new DecodeError("opstack ENR entry too long");
  return Uint8Array.from([0x80 + c.length, ...c]);
}

export function decodeOpStackEntry(content: Uint8Array): { chainId: bigint; version: bigint } {
  const [chainId, at] = readUvarint(content, 0);
  const [version] = readUvarint(content, at);
  return { chainId, version };
}

/** Discovery filter: the record's entry content (RLP string already unwrapped) is for our chain, version 0. */
export function opStackEntryMatches(value: Uint8Array | undefined, chainId: bigint): boolean {
  if (value === undefined) return false;
  try {
    const e = decodeOpStackEntry(value);
    return e.chainId === chainId && e.version === 0n;
  } catch {
    return false;
  }
}
