import { keccak } from "../../protocol/block/keccak.js";
import { rlpEncodeBytes, rlpEncodeListRaw } from "../../protocol/block/rlp.js";

/**
 * A Merkle-Patricia trie over fixed-length keys, built in one pass from all its entries, that also collects the
 * EIP-1186 proof of one key: the RLP of every node on the key's path from the root (nodes shorter than 32 bytes
 * are embedded in their parent and not listed). Works for absent keys too (proof of exclusion).
 */
interface Entry {
  readonly nibbles: Uint8Array;
  readonly value: Uint8Array;
}

function toNibbles(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length * 2);
  for (let i = 0; i < b.length; i++) {
    out[2 * i] = (b[i] as number) >> 4;
    out[2 * i + 1] = (b[i] as number) & 15;
  }
  return out;
}

function compact(n: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from;
  const odd = len % 2 === 1;
  const out = new Uint8Array((len >> 1) + 1);
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0);
  let i = from;
  out[0] = odd ? (flag << 4) | (n[i++] as number) : flag << 4;
  for (let o = 1; i < to; i += 2, o++) out[o] = ((n[i] as number) << 4) | (n[i + 1] as number);
  return out;
}

function ref(node: Uint8Array): Uint8Array {
  return node.length < 32 ? node : rlpEncodeBytes(keccak(node));
}

function build(es: readonly Entry[], depth: number, target: Uint8Array | undefined, proof: Uint8Array[]): Uint8Array {
  let node: Uint8Array;
  const first = es[0]!;
  if (es.length === 1) {
    node = rlpEncodeListRaw([
      rlpEncodeBytes(compact(first.nibbles, depth, first.nibbles.length, true)),
      rlpEncodeBytes(first.value),
    ]);
  } else {
    const last = es[es.length - 1]!; // entries are sorted: the common prefix of all is that of first and last
    let p = depth;
    while (p < first.nibbles.length && first.nibbles[p] === last.nibbles[p]) p++;
    if (p > depth) {
      let onPath = target;
      for (let i = depth; onPath !== undefined && i < p; i++) if (target![i] !== first.nibbles[i]) onPath = undefined;
      const child = build(es, p, onPath, proof);
      node = rlpEncodeListRaw([rlpEncodeBytes(compact(first.nibbles, depth, p, false)), ref(child)]);
    } else {
      const slots: Uint8Array[] = [];
      let lo = 0;
      for (let nib = 0; nib < 16; nib++) {
        let hi = lo;
        while (hi < es.length && es[hi]!.nibbles[depth] === nib) hi++;
        if (hi === lo) slots.push(Uint8Array.of(0x80));
        else {
          const onPath = target !== undefined && target[depth] === nib ? target : undefined;
          slots.push(ref(build(es.slice(lo, hi), depth + 1, onPath, proof)));
        }
        lo = hi;
      }
      slots.push(Uint8Array.of(0x80));
      node = rlpEncodeListRaw(slots);
    }
  }
  if (target !== undefined && (node.length >= 32 || depth === 0)) proof.push(node);
  return node;
}

/** The trie root of `pairs` and the proof of `key` (root node first). Keys must be distinct and of equal length. */
export function trieProof(
  pairs: readonly { key: Uint8Array; value: Uint8Array }[],
  key: Uint8Array,
): { root: Uint8Array; proof: Uint8Array[] } {
  if (pairs.length === 0) return { root: keccak(Uint8Array.of(0x80)), proof: [] };
  const es = pairs
    .map((p) => ({ nibbles: toNibbles(p.key), value: p.value }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.nibbles), Buffer.from(b.nibbles)));
  const proof: Uint8Array[] = [];
  const root = build(es, 0, toNibbles(key), proof);
  proof.reverse();
  return { root: keccak(root), proof };
}
