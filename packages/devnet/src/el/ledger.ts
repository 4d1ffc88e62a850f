import { type Address, bytesToHex, type Hash, type Hex, hexToBytes } from "supernode/core";
import { keccak } from "supernode/protocol";
import { type TrieNode, keyNibbles, trieDelete, trieGet, trieProof, trieRoot, trieSet } from "./state-trie.js";

/**
 * The simulated client's world state: balances, nonces, contract code and storage per account (the EVM of
 * `evm/` reads and writes it through a state-manager adapter; the natively modelled predeploys write storage too).
 *
 * A snapshot (`LedgerState`) is one version of a persistent Merkle-Patricia state trie (state-trie.ts) whose
 * leaves hold the accounts and their storage tries: snapshots are immutable and share every unchanged subtree,
 * and a new snapshot's state root rehashes only the paths its block changed (docs/adr/0091). A block executes
 * against a `LedgerWriter`, which buffers its changes and applies them to the parent's trie when sealed.
 */
export interface Account {
  readonly balance: bigint;
  readonly nonce: bigint;
}

/** Contract code and its keccak256 (kept together: the state trie leaf encodes the hash). */
export interface Code {
  readonly bytes: Uint8Array;
  readonly hash: Uint8Array;
}

/** A leaf of the state trie: the account, its storage trie (32-byte slot hash → value, non-zero values only), its code. */
export interface AccountLeaf {
  readonly account: Account;
  readonly storage: TrieNode<bigint> | undefined;
  readonly code?: Code | undefined;
}

const EMPTY_ACCOUNT: Account = { balance: 0n, nonce: 0n };

/** keccak256 of empty code. */
export const EMPTY_CODE_HASH: Hash = "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
const EMPTY_CODE_HASH_BYTES = hexToBytes(EMPTY_CODE_HASH);

/** Secure-trie keys (the nibbles of keccak256(address or slot)), cached: the same accounts recur every block. */
const keyCache = new Map<string, Uint8Array>();
function secureKey(hex: string): Uint8Array {
  let k = keyCache.get(hex);
  if (k === undefined) {
    k = keyNibbles(keccak(hexToBytes(hex)));
    if (keyCache.size > 200_000) keyCache.clear();
    keyCache.set(hex, k);
  }
  return k;
}

/** Minimal big-endian bytes of a non-negative bigint (0 → empty). */
function uintBytes(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array(0);
  if (v < 0x100000000n) {
    let n = Number(v);
    const len = n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
    const out = new Uint8Array(len);
    for (let i = len - 1; i >= 0; i--) {
      out[i] = n & 0xff;
      n >>>= 8;
    }
    return out;
  }
  const hex = v.toString(16);
  return hexToBytes(hex.length % 2 === 0 ? `0x${hex}` : `0x0${hex}`);
}

/** Appends the RLP of byte string `b` (at most 55 bytes) to `out` at `pos`; returns the new position. */
function putShortBytes(out: Uint8Array, pos: number, b: Uint8Array): number {
  if (b.length === 1 && (b[0] as number) < 0x80) {
    out[pos] = b[0] as number;
    return pos + 1;
  }
  out[pos] = 0x80 + b.length;
  out.set(b, pos + 1);
  return pos + 1 + b.length;
}

function shortBytesLength(b: Uint8Array): number {
  return b.length === 1 && (b[0] as number) < 0x80 ? 1 : 1 + b.length;
}

/** A storage trie leaf value: rlp(value). */
function encodeSlot(v: bigint): Uint8Array {
  const b = uintBytes(v);
  const out = new Uint8Array(shortBytesLength(b));
  putShortBytes(out, 0, b);
  return out;
}

function storageRootBytes(storage: TrieNode<bigint> | undefined): Uint8Array {
  return trieRoot(storage, encodeSlot);
}

/** A state trie leaf value: rlp([nonce, balance, storageRoot, codeHash]). */
function encodeAccount(leaf: AccountLeaf): Uint8Array {
  const nonce = uintBytes(leaf.account.nonce);
  const balance = uintBytes(leaf.account.balance);
  const len = shortBytesLength(nonce) + shortBytesLength(balance) + 66;
  const out = new Uint8Array((len < 56 ? 1 : 2) + len);
  let pos: number;
  if (len < 56) {
    out[0] = 0xc0 + len;
    pos = 1;
  } else {
    out[0] = 0xf8;
    out[1] = len;
    pos = 2;
  }
  pos = putShortBytes(out, pos, nonce);
  pos = putShortBytes(out, pos, balance);
  pos = putShortBytes(out, pos, storageRootBytes(leaf.storage));
  putShortBytes(out, pos, leaf.code?.hash ?? EMPTY_CODE_HASH_BYTES);
  return out;
}

export class LedgerState {
  #stateRoot: Hash | undefined;

  /** Use `LedgerState.empty()` or a `LedgerWriter`. */
  constructor(
    /** The state trie: keccak(address) → account leaf. */
    readonly trie: TrieNode<AccountLeaf> | undefined,
  ) {}

  static empty(): LedgerState {
    return new LedgerState(undefined);
  }

  /** The state trie leaf of an address, if the ledger knows it. */
  #leaf(addr: string): AccountLeaf | undefined {
    return trieGet(this.trie, secureKey(addr.toLowerCase()));
  }

  account(addr: Address): Account {
    return this.#leaf(addr)?.account ?? EMPTY_ACCOUNT;
  }

  /** The account's code (undefined: none). */
  code(addr: Address): Code | undefined {
    return this.#leaf(addr)?.code;
  }

  /** keccak256 of the account's code (the empty code's hash for accounts without code). */
  codeHash(addr: Address): Hash {
    const c = this.code(addr);
    return c === undefined ? EMPTY_CODE_HASH : bytesToHex(c.hash);
  }

  storageAt(addr: Address, slot: Hash): bigint {
    const storage = this.#leaf(addr)?.storage;
    return storage === undefined ? 0n : (trieGet(storage, secureKey(slot.toLowerCase())) ?? 0n);
  }

  /** The Merkle-Patricia storage root of an account (secure trie: keccak(slot) → rlp(value)). */
  storageRoot(addr: Address): Hash {
    return bytesToHex(storageRootBytes(this.#leaf(addr)?.storage));
  }

  /**
   * The state root: the root of a secure Merkle-Patricia trie keccak(address) → rlp([nonce, balance, storageRoot,
   * codeHash]) over every account the ledger knows.
   */
  stateRoot(): Hash {
    this.#stateRoot ??= bytesToHex(trieRoot(this.trie, encodeAccount));
    return this.#stateRoot;
  }

  /** EIP-1186 proofs: the account's path in the state trie and each slot's path in its storage trie. */
  proof(addr: Address, slots: readonly Hash[]): { accountProof: Hex[]; storageProofs: Hex[][] } {
    const storage = this.#leaf(addr)?.storage;
    return {
      accountProof: trieProof(this.trie, secureKey(addr.toLowerCase()), encodeAccount).map(bytesToHex),
      storageProofs: slots.map((s) => trieProof(storage, secureKey(s.toLowerCase()), encodeSlot).map(bytesToHex)),
    };
  }
}

/** A mutable working copy of a snapshot, used while executing one block: changes are buffered until `seal`. */
export class LedgerWriter {
  readonly #base: LedgerState;
  /** Accounts written in this block, by lowercase address. */
  readonly #accounts = new Map<string, Account>();
  /** Storage written in this block: lowercase address → (lowercase slot → value, 0 = deleted). */
  readonly #storage = new Map<string, Map<string, bigint>>();
  /** Accounts read from the base (a block reads the same few accounts many times: senders, vaults). */
  readonly #read = new Map<string, Account>();
  /** Code written in this block (null: the account was deleted). */
  readonly #code = new Map<string, Code | null>();
  /** Accounts deleted in this block (EIP-6780 self-destruct, EIP-161 empty accounts): their base state is gone. */
  readonly #deleted = new Set<string>();

  constructor(base: LedgerState) {
    this.#base = base;
  }

  account(addr: Address): Account {
    const k = addr.toLowerCase();
    let a = this.#accounts.get(k) ?? this.#read.get(k);
    if (a === undefined) {
      a = this.#base.account(k as Address);
      this.#read.set(k, a);
    }
    return a;
  }

  credit(addr: Address, amount: bigint): void {
    if (amount === 0n) return;
    const a = this.account(addr);
    this.#accounts.set(addr.toLowerCase(), { balance: a.balance + amount, nonce: a.nonce });
  }

  /** Debits `amount`; the caller checks the balance first. */
  debit(addr: Address, amount: bigint): void {
    if (amount === 0n) return;
    const a = this.account(addr);
    if (a.balance < amount) throw new Error("ledger: insufficient balance");
    this.#accounts.set(addr.toLowerCase(), { balance: a.balance - amount, nonce: a.nonce });
  }

  /** Sets balance and nonce (the EVM adapter's writes). */
  setAccount(addr: Address, account: Account): void {
    this.#accounts.set(addr.toLowerCase(), account);
  }

  code(addr: Address): Code | undefined {
    const k = addr.toLowerCase();
    const c = this.#code.get(k);
    if (c !== undefined) return c ?? undefined;
    return this.#deleted.has(k) ? undefined : this.#base.code(k as Address);
  }

  /** Sets the account's code (empty code clears it: an EIP-7702 delegation to the zero address). */
  setCode(addr: Address, bytes: Uint8Array): void {
    this.#code.set(addr.toLowerCase(), bytes.length === 0 ? null : { bytes, hash: keccak(bytes) });
  }

  /** Removes the account, its code and its storage. */
  deleteAccount(addr: Address): void {
    const k = addr.toLowerCase();
    this.#accounts.set(k, EMPTY_ACCOUNT);
    this.#code.set(k, null);
    this.#storage.delete(k);
    this.#deleted.add(k);
  }

  /** Whether the account was deleted in this block (its storage in the base no longer counts). */
  isDeleted(addr: Address): boolean {
    return this.#deleted.has(addr.toLowerCase());
  }

  bumpNonce(addr: Address): bigint {
    const a = this.account(addr);
    this.#accounts.set(addr.toLowerCase(), { balance: a.balance, nonce: a.nonce + 1n });
    return a.nonce;
  }

  storageAt(addr: Address, slot: Hash): bigint {
    const k = addr.toLowerCase();
    const written = this.#storage.get(k)?.get(slot.toLowerCase());
    if (written !== undefined) return written;
    return this.#deleted.has(k) ? 0n : this.#base.storageAt(addr, slot);
  }

  /** Writes a slot (0 deletes it). Writing storage makes the account known to the state trie, as a credit does. */
  setStorage(addr: Address, slot: Hash, value: bigint): void {
    const k = addr.toLowerCase();
    let slots = this.#storage.get(k);
    if (slots === undefined) {
      slots = new Map();
      this.#storage.set(k, slots);
    }
    slots.set(slot.toLowerCase(), value);
  }

  /** The post-state: the base trie with this block's writes applied (the base snapshot is unchanged). */
  seal(): LedgerState {
    let trie = this.#base.trie;
    const addrs = new Set([...this.#accounts.keys(), ...this.#storage.keys(), ...this.#code.keys()]);
    for (const addr of addrs) {
      const key = secureKey(addr);
      const deleted = this.#deleted.has(addr);
      const before = deleted ? undefined : trieGet(trie, key);
      let storage = before?.storage;
      const slots = this.#storage.get(addr);
      if (slots !== undefined) {
        for (const [slot, value] of slots) {
          const sk = secureKey(slot);
          storage = value === 0n ? trieDelete(storage, sk) : trieSet(storage, sk, value);
        }
      }
      const account = this.#accounts.get(addr) ?? before?.account ?? EMPTY_ACCOUNT;
      const written = this.#code.get(addr);
      const code = written === undefined ? before?.code : (written ?? undefined);
      if (deleted && account.balance === 0n && account.nonce === 0n && storage === undefined && code === undefined)
        trie = trieDelete(trie, key);
      else trie = trieSet(trie, key, code === undefined ? { account, storage } : { account, storage, code });
    }
    return new LedgerState(trie);
  }
}
