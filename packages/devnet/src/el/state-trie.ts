import { keccak } from "supernode/protocol";

/**
 * A persistent (immutable, structurally shared) Merkle-Patricia trie over 32-byte keys (64 nibbles), as the
 * state and storage tries of the simulated execution client use it (secure tries: keys are keccak hashes, so all
 * keys have the same length and no branch carries a value).
 *
 * Updates copy only the nodes on the key's path and share every other subtree with the previous version, so an
 * older version stays valid and unchanged. Each node caches its reference (its RLP when shorter than 32 bytes,
 * else RLP(keccak(RLP))) once computed: the root of a new version rehashes only the nodes its updates created.
 * Node encodings themselves are not kept (a proof re-encodes the few nodes on one path).
 *
 * Leaves and extensions keep a full 64-nibble key of a leaf below them plus the range of it they cover, so moving
 * a node up or down (splits on insert, merges on delete) never copies nibbles.
 */
export type TrieNode<V> = Leaf<V> | Extension<V> | Branch<V>;

/** How a trie's values are encoded in its leaves. */
export type ValueEncoder<V> = (value: V) => Uint8Array;

const KEY_NIBBLES = 64;

class Leaf<V> {
  ref: Uint8Array | undefined = undefined;
  constructor(
    readonly key: Uint8Array,
    readonly from: number,
    readonly value: V,
  ) {}
}

class Extension<V> {
  ref: Uint8Array | undefined = undefined;
  constructor(
    /** A full key below this node; nibbles [from, to) are the shared path. */
    readonly key: Uint8Array,
    readonly from: number,
    readonly to: number,
    readonly child: Branch<V>,
  ) {}
}

class Branch<V> {
  ref: Uint8Array | undefined = undefined;
  constructor(readonly children: readonly (TrieNode<V> | undefined)[]) {}
}

/** The 64 nibbles of a 32-byte key. */
export function keyNibbles(key32: Uint8Array): Uint8Array {
  if (key32.length !== 32) throw new RangeError("state trie keys are 32 bytes");
  const out = new Uint8Array(KEY_NIBBLES);
  for (let i = 0; i < 32; i++) {
    const x = key32[i] as number;
    out[2 * i] = x >> 4;
    out[2 * i + 1] = x & 15;
  }
  return out;
}

/** The value at `key` (64 nibbles), if any. */
export function trieGet<V>(root: TrieNode<V> | undefined, key: Uint8Array): V | undefined {
  let node = root;
  let depth = 0;
  while (node !== undefined) {
    if (node instanceof Branch) {
      node = node.children[key[depth] as number];
      depth++;
    } else if (node instanceof Leaf) {
      for (let i = depth; i < KEY_NIBBLES; i++) if (node.key[i] !== key[i]) return undefined;
      return node.value;
    } else {
      for (let i = depth; i < node.to; i++) if (node.key[i] !== key[i]) return undefined;
      depth = node.to;
      node = node.child;
    }
  }
  return undefined;
}

function commonPrefix(a: Uint8Array, b: Uint8Array, from: number, to: number): number {
  let p = from;
  while (p < to && a[p] === b[p]) p++;
  return p;
}

function branchOf<V>(entries: [number, TrieNode<V>][]): Branch<V> {
  const children: (TrieNode<V> | undefined)[] = new Array(16).fill(undefined);
  for (const [n, c] of entries) children[n] = c;
  return new Branch(children);
}

/** `node` (which sits at depth `at`) moved up so that it starts at depth `depth` <= `at`, the path in between
 * being the node's own key nibbles. */
function lift<V>(node: TrieNode<V>, depth: number, at: number): TrieNode<V> {
  if (depth === at) return node;
  if (node instanceof Leaf) return new Leaf(node.key, depth, node.value);
  if (node instanceof Extension) return new Extension(node.key, depth, node.to, node.child);
  return new Extension(anyKey(node), depth, at, node);
}

function anyKey<V>(node: TrieNode<V>): Uint8Array {
  let n: TrieNode<V> = node;
  while (n instanceof Branch) n = n.children.find((c) => c !== undefined) as TrieNode<V>;
  return n.key;
}

/** A new version with `key` (64 nibbles) set to `value`; `node` is unchanged. */
export function trieSet<V>(node: TrieNode<V> | undefined, key: Uint8Array, value: V, depth = 0): TrieNode<V> {
  if (node === undefined) return new Leaf(key, depth, value);
  if (node instanceof Branch) {
    const n = key[depth] as number;
    const children = node.children.slice();
    children[n] = trieSet(children[n], key, value, depth + 1);
    return new Branch(children);
  }
  const end = node instanceof Leaf ? KEY_NIBBLES : node.to;
  const p = commonPrefix(node.key, key, depth, end);
  if (p === end) {
    if (node instanceof Leaf) return new Leaf(key, depth, value);
    return new Extension(node.key, depth, end, trieSet(node.child, key, value, end) as Branch<V>);
  }
  // Split at nibble p: a branch holding the old node's remainder and a new leaf.
  const old: TrieNode<V> =
    node instanceof Leaf
      ? new Leaf(node.key, p + 1, node.value)
      : p + 1 === node.to
        ? node.child
        : new Extension(node.key, p + 1, node.to, node.child);
  const branch = branchOf<V>([
    [node.key[p] as number, old],
    [key[p] as number, new Leaf(key, p + 1, value)],
  ]);
  return p === depth ? branch : new Extension(key, depth, p, branch);
}

/** A new version without `key` (the same node when the key is absent); `node` is unchanged. */
export function trieDelete<V>(node: TrieNode<V> | undefined, key: Uint8Array, depth = 0): TrieNode<V> | undefined {
  if (node === undefined) return undefined;
  if (node instanceof Leaf) return commonPrefix(node.key, key, depth, KEY_NIBBLES) === KEY_NIBBLES ? undefined : node;
  if (node instanceof Extension) {
    if (commonPrefix(node.key, key, depth, node.to) !== node.to) return node;
    const c = trieDelete(node.child, key, node.to);
    if (c === node.child) return node;
    // A branch never loses its last child in one deletion, so c is defined.
    return lift(c as TrieNode<V>, depth, node.to);
  }
  const n = key[depth] as number;
  const before = node.children[n];
  const c = trieDelete(before, key, depth + 1);
  if (c === before) return node;
  const children = node.children.slice();
  children[n] = c;
  let count = 0;
  let only = -1;
  for (let i = 0; i < 16; i++) {
    if (children[i] !== undefined) {
      count++;
      only = i;
    }
  }
  if (count >= 2) return new Branch(children);
  return lift(children[only] as TrieNode<V>, depth, depth + 1);
}

/** Every (key, value) of the trie, keys as 64 nibbles, in key order. */
export function* trieEntries<V>(node: TrieNode<V> | undefined): Generator<[Uint8Array, V]> {
  if (node === undefined) return;
  if (node instanceof Leaf) yield [node.key, node.value];
  else if (node instanceof Extension) yield* trieEntries(node.child);
  else for (const c of node.children) yield* trieEntries(c);
}

// ---- encoding -------------------------------------------------------------------------------------------------

/** Length of the RLP header of a payload of `len` bytes. */
function headerLength(len: number): number {
  return len < 56 ? 1 : len < 256 ? 2 : len < 65536 ? 3 : 4;
}

/** Writes the RLP header of a payload of `len` bytes at `pos`; returns the new position. */
function writeHeader(out: Uint8Array, pos: number, len: number, offset: number): number {
  if (len < 56) {
    out[pos] = offset + len;
    return pos + 1;
  }
  const n = headerLength(len) - 1;
  out[pos] = offset + 55 + n;
  for (let i = n; i >= 1; i--) {
    out[pos + i] = len & 0xff;
    len >>>= 8;
  }
  return pos + n + 1;
}

/** RLP byte-string length of a string of `n` bytes whose first byte is `first`. */
function bytesItemLength(n: number, first: number): number {
  return n === 1 && first < 0x80 ? 1 : headerLength(n) + n;
}

function writeBytesItem(out: Uint8Array, pos: number, b: Uint8Array): number {
  if (b.length === 1 && (b[0] as number) < 0x80) {
    out[pos] = b[0] as number;
    return pos + 1;
  }
  pos = writeHeader(out, pos, b.length, 0x80);
  out.set(b, pos);
  return pos + b.length;
}

/**
 * Node encodings are written into one scratch buffer (a node is hashed right after it is encoded, and only the
 * references are kept), so sealing a block allocates no encodings. Every child reference and leaf value is computed
 * before the writing starts, as computing them encodes other nodes into the same buffer.
 */
let scratch = new Uint8Array(1024);

function reserve(n: number): Uint8Array {
  if (scratch.length < n) scratch = new Uint8Array(Math.max(n, 2 * scratch.length));
  return scratch;
}

/** Writes the RLP of the hex-prefix encoding of nibbles [from, to) of `key` at `pos`; returns the new position. */
function writePath(out: Uint8Array, pos: number, key: Uint8Array, from: number, to: number, leaf: boolean): number {
  const n = to - from;
  const odd = (n & 1) === 1;
  const len = (n >> 1) + 1;
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0);
  let i = from;
  const first = odd ? (flag << 4) | (key[i++] as number) : flag << 4;
  if (len === 1 && first < 0x80) {
    out[pos] = first;
    return pos + 1;
  }
  out[pos++] = 0x80 + len; // at most 33 bytes
  out[pos++] = first;
  for (; i < to; i += 2) out[pos++] = ((key[i] as number) << 4) | (key[i + 1] as number);
  return pos;
}

function pathItemLength(from: number, to: number): number {
  const len = ((to - from) >> 1) + 1;
  return len === 1 ? 1 : 1 + len; // a one-byte path (flag nibble ≤ 3) is below 0x80
}

/** Encodes `node` into the scratch buffer; returns its length. */
function encodeInto<V>(node: TrieNode<V>, enc: ValueEncoder<V>): number {
  if (node instanceof Branch) {
    let len = 1; // the (always empty) value slot
    for (let i = 0; i < 16; i++) {
      const c = node.children[i];
      len += c === undefined ? 1 : nodeRef(c, enc).length;
    }
    const out = reserve(headerLength(len) + len);
    let pos = writeHeader(out, 0, len, 0xc0);
    for (let i = 0; i < 16; i++) {
      const c = node.children[i];
      if (c === undefined) out[pos++] = 0x80;
      else {
        const r = c.ref as Uint8Array;
        out.set(r, pos);
        pos += r.length;
      }
    }
    out[pos] = 0x80;
    return pos + 1;
  }
  let second: Uint8Array;
  let secondLen: number;
  let to: number;
  if (node instanceof Leaf) {
    second = enc(node.value);
    secondLen = bytesItemLength(second.length, second[0] as number);
    to = KEY_NIBBLES;
  } else {
    second = nodeRef(node.child, enc);
    secondLen = second.length; // already an RLP item
    to = node.to;
  }
  const len = pathItemLength(node.from, to) + secondLen;
  const out = reserve(headerLength(len) + len);
  let pos = writeHeader(out, 0, len, 0xc0);
  pos = writePath(out, pos, node.key, node.from, to, node instanceof Leaf);
  if (node instanceof Leaf) return writeBytesItem(out, pos, second);
  out.set(second, pos);
  return pos + second.length;
}

/** The RLP encoding of a node (its children's references computed and cached as needed). */
export function encodeNode<V>(node: TrieNode<V>, enc: ValueEncoder<V>): Uint8Array {
  return scratch.slice(0, encodeInto(node, enc));
}

/** A child reference: the node's RLP when shorter than 32 bytes, else RLP(keccak(RLP)); cached on the node. */
function nodeRef<V>(node: TrieNode<V>, enc: ValueEncoder<V>): Uint8Array {
  let r = node.ref;
  if (r === undefined) {
    const len = encodeInto(node, enc);
    if (len < 32) r = scratch.slice(0, len);
    else {
      r = new Uint8Array(33);
      r[0] = 0xa0;
      r.set(keccak(scratch.subarray(0, len)), 1);
    }
    node.ref = r;
  }
  return r;
}

/** keccak256(rlp("")): the root of the empty trie. */
const EMPTY_ROOT = keccak(Uint8Array.of(0x80));

/** The root hash (32 bytes) of a trie version. */
export function trieRoot<V>(root: TrieNode<V> | undefined, enc: ValueEncoder<V>): Uint8Array {
  if (root === undefined) return EMPTY_ROOT;
  const r = nodeRef(root, enc);
  return r.length === 33 ? r.subarray(1) : keccak(r);
}

/**
 * The EIP-1186 proof of `key` (64 nibbles): the RLP of every node on its path from the root, root first, leaving
 * out nodes shorter than 32 bytes (embedded in their parent) except the root. Also a proof of absence.
 */
export function trieProof<V>(root: TrieNode<V> | undefined, key: Uint8Array, enc: ValueEncoder<V>): Uint8Array[] {
  const proof: Uint8Array[] = [];
  let node = root;
  let depth = 0;
  while (node !== undefined) {
    const e = encodeNode(node, enc);
    if (node === root || e.length >= 32) proof.push(e);
    if (node instanceof Leaf) break;
    if (node instanceof Extension) {
      if (commonPrefix(node.key, key, depth, node.to) !== node.to) break;
      depth = node.to;
      node = node.child;
    } else {
      node = node.children[key[depth] as number];
      depth++;
    }
  }
  return proof;
}
