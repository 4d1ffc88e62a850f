import type { Hash } from "../../core/types/primitives.js";
import { bytesToHex } from "../../core/codec/hex.js";
import { keccak } from "./keccak.js";
import { rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "./rlp.js";

/** Root of the empty Merkle-Patricia trie: keccak256(rlp("")). */
export const EMPTY_TRIE_ROOT: Hash = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
/** keccak256(rlp([])): the ommers hash of every post-merge block. */
export const EMPTY_OMMERS_HASH: Hash = "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347";
/** sha256 of nothing: the EIP-7685 requests hash of an empty request list. */
export const EMPTY_REQUESTS_HASH: Hash = "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

interface Entry {
  readonly key: Uint8Array; // nibbles
  readonly value: Uint8Array;
}

function toNibbles(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length * 2);
  for (let i = 0; i < b.length; i++) {
    const x = b[i] as number;
    out[2 * i] = x >> 4;
    out[2 * i + 1] = x & 0x0f;
  }
  return out;
}

/** Hex-prefix (compact) encoding of a nibble path. */
function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const n = to - from;
  const odd = n % 2 === 1;
  const out = new Uint8Array(Math.floor(n / 2) + 1);
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0);
  let i = from;
  if (odd) {
    out[0] = (flag << 4) | (nibbles[i] as number);
    i++;
  } else {
    out[0] = flag << 4;
  }
  for (let o = 1; i < to; i += 2, o++) out[o] = ((nibbles[i] as number) << 4) | (nibbles[i + 1] as number);
  return out;
}

/** Reference to a child node: the node itself when its encoding is < 32 bytes, else its hash as a string. */
function ref(encodedNode: Uint8Array): Uint8Array {
  return encodedNode.length < 32 ? encodedNode : rlpEncodeBytes(keccak(encodedNode));
}

const EMPTY_STRING_RLP = Uint8Array.of(0x80);

/** Encodes the node holding entries[lo, hi) (sorted, sharing the first `depth` nibbles). */
function buildNode(entries: readonly Entry[], lo: number, hi: number, depth: number): Uint8Array {
  const first = entries[lo] as Entry;
  if (hi - lo === 1) {
    return rlpEncodeListRaw([
      rlpEncodeBytes(hexPrefix(first.key, depth, first.key.length, true)),
      rlpEncodeBytes(first.value),
    ]);
  }
  // Common prefix of first and last (sorted ⇒ common to all).
  const last = (entries[hi - 1] as Entry).key;
  let p = depth;
  const maxP = Math.min(first.key.length, last.length);
  while (p < maxP && first.key[p] === last[p]) p++;
  if (p > depth) {
    const child = buildNode(entries, lo, hi, p);
    return rlpEncodeListRaw([rlpEncodeBytes(hexPrefix(first.key, depth, p, false)), ref(child)]);
  }
  const slots: Uint8Array[] = new Array(17).fill(EMPTY_STRING_RLP);
  let i = lo;
  if (first.key.length === depth) {
    slots[16] = rlpEncodeBytes(first.value);
    i++;
  }
  while (i < hi) {
    const nib = (entries[i] as Entry).key[depth] as number;
    let j = i + 1;
    while (j < hi && (entries[j] as Entry).key[depth] === nib) j++;
    slots[nib] = ref(buildNode(entries, i, j, depth + 1));
    i = j;
  }
  return rlpEncodeListRaw(slots);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Root hash (bytes) of a trie holding the given (key, value) pairs; keys must be distinct. */
export function trieRootBytes(pairs: readonly { key: Uint8Array; value: Uint8Array }[]): Uint8Array {
  if (pairs.length === 0) return keccak(EMPTY_STRING_RLP);
  const entries: Entry[] = pairs.map((p) => ({ key: toNibbles(p.key), value: p.value }));
  entries.sort((a, b) => compareBytes(a.key, b.key));
  return keccak(buildNode(entries, 0, entries.length, 0));
}

/** The ordered trie root of `values` (key of item i = RLP(i)), as used for tx, receipt and withdrawal roots. */
export function orderedTrieRootBytes(values: readonly Uint8Array[]): Uint8Array {
  return trieRootBytes(values.map((value, i) => ({ key: rlpEncodeBytes(uintToBytes(i)), value })));
}

/** {@link orderedTrieRootBytes} as a hex hash. */
export function orderedTrieRoot(values: readonly Uint8Array[]): Hash {
  return bytesToHex(orderedTrieRootBytes(values));
}
