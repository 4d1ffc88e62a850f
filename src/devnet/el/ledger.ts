import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { keccak } from "../../protocol/block/keccak.js";
import { rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "../../protocol/block/rlp.js";
import { EMPTY_TRIE_ROOT, trieRootBytes } from "../../protocol/block/trie.js";
import { trieProof } from "./mpt-proof.js";

/**
 * The simulated client's world state: balances and nonces per account, plus the storage of the few predeploys
 * the simulator models (the L2ToL1MessagePasser). There is no EVM and no code. Snapshots are immutable; a block
 * executes against a `LedgerWriter` (copy of its parent's maps) and seals a new snapshot.
 */
export interface Account {
  readonly balance: bigint;
  readonly nonce: bigint;
}

const EMPTY_ACCOUNT: Account = { balance: 0n, nonce: 0n };

/** keccak256 of empty code. */
export const EMPTY_CODE_HASH: Hash = "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";

/** keccak256(address) (the secure-trie key), cached: the devnet has few accounts and they recur every block. */
const hashedAddress = new Map<string, Uint8Array>();
function secureKey(addr: string): Uint8Array {
  let k = hashedAddress.get(addr);
  if (k === undefined) {
    k = keccak(hexToBytes(addr as Address));
    if (hashedAddress.size > 100_000) hashedAddress.clear();
    hashedAddress.set(addr, k);
  }
  return k;
}

/** Storage roots by storage map identity (maps are copied on write, so an unchanged map keeps its root). */
const storageRootOf = new WeakMap<ReadonlyMap<string, bigint>, Hash>();

export class LedgerState {
  #stateRoot: Hash | undefined;

  constructor(
    /** Keyed by lowercase address. */
    readonly accounts: ReadonlyMap<string, Account>,
    /** address → (32-byte slot hex → value), non-zero values only. */
    readonly storage: ReadonlyMap<string, ReadonlyMap<string, bigint>>,
  ) {}

  static empty(): LedgerState {
    return new LedgerState(new Map(), new Map());
  }

  account(addr: Address): Account {
    return this.accounts.get(addr.toLowerCase()) ?? EMPTY_ACCOUNT;
  }

  storageAt(addr: Address, slot: Hash): bigint {
    return this.storage.get(addr.toLowerCase())?.get(slot.toLowerCase()) ?? 0n;
  }

  /** The Merkle-Patricia storage root of an account (secure trie: keccak(slot) → rlp(value)). */
  storageRoot(addr: Address): Hash {
    const slots = this.storage.get(addr.toLowerCase());
    if (slots === undefined || slots.size === 0) return EMPTY_TRIE_ROOT;
    const cached = storageRootOf.get(slots);
    if (cached !== undefined) return cached;
    const root = bytesToHex(trieRootBytes(this.#storagePairs(addr)));
    storageRootOf.set(slots, root);
    return root;
  }

  #accountPairs(): { key: Uint8Array; value: Uint8Array }[] {
    const addrs = new Set<string>([...this.accounts.keys(), ...this.storage.keys()]);
    const pairs: { key: Uint8Array; value: Uint8Array }[] = [];
    for (const a of addrs) {
      const acc = this.accounts.get(a) ?? EMPTY_ACCOUNT;
      pairs.push({
        key: secureKey(a),
        value: rlpEncodeListRaw([
          rlpEncodeBytes(uintToBytes(acc.nonce)),
          rlpEncodeBytes(uintToBytes(acc.balance)),
          rlpEncodeBytes(hexToBytes(this.storageRoot(a as Address))),
          rlpEncodeBytes(hexToBytes(EMPTY_CODE_HASH)),
        ]),
      });
    }
    return pairs;
  }

  #storagePairs(addr: Address): { key: Uint8Array; value: Uint8Array }[] {
    const slots = this.storage.get(addr.toLowerCase());
    if (slots === undefined) return [];
    return [...slots].map(([slot, value]) => ({
      key: keccak(hexToBytes(slot as Hash)),
      value: rlpEncodeBytes(uintToBytes(value)),
    }));
  }

  /**
   * The state root: the root of a secure Merkle-Patricia trie keccak(address) → rlp([nonce, balance, storageRoot,
   * emptyCodeHash]) over every account the ledger knows (there is no code).
   */
  stateRoot(): Hash {
    if (this.#stateRoot !== undefined) return this.#stateRoot;
    const pairs = this.#accountPairs();
    this.#stateRoot = pairs.length === 0 ? EMPTY_TRIE_ROOT : bytesToHex(trieRootBytes(pairs));
    return this.#stateRoot;
  }

  /** EIP-1186 proofs: the account's path in the state trie and each slot's path in its storage trie. */
  proof(addr: Address, slots: readonly Hash[]): { accountProof: Hex[]; storageProofs: Hex[][] } {
    const account = trieProof(this.#accountPairs(), secureKey(addr.toLowerCase()));
    const storage = this.#storagePairs(addr);
    return {
      accountProof: account.proof.map(bytesToHex),
      storageProofs: slots.map((s) => trieProof(storage, keccak(hexToBytes(s))).proof.map(bytesToHex)),
    };
  }
}

/** A mutable working copy of a snapshot, used while executing one block. */
export class LedgerWriter {
  readonly #accounts: Map<string, Account>;
  readonly #storage: Map<string, Map<string, bigint>>;
  readonly #copiedStorage = new Set<string>();

  constructor(base: LedgerState) {
    this.#accounts = new Map(base.accounts);
    this.#storage = new Map(base.storage as Map<string, Map<string, bigint>>);
  }

  account(addr: Address): Account {
    return this.#accounts.get(addr.toLowerCase()) ?? EMPTY_ACCOUNT;
  }

  credit(addr: Address, amount: bigint): void {
    if (amount === 0n) return;
    const k = addr.toLowerCase();
    const a = this.#accounts.get(k) ?? EMPTY_ACCOUNT;
    this.#accounts.set(k, { balance: a.balance + amount, nonce: a.nonce });
  }

  /** Debits `amount`; the caller checks the balance first. */
  debit(addr: Address, amount: bigint): void {
    if (amount === 0n) return;
    const k = addr.toLowerCase();
    const a = this.#accounts.get(k) ?? EMPTY_ACCOUNT;
    if (a.balance < amount) throw new Error("ledger: insufficient balance");
    this.#accounts.set(k, { balance: a.balance - amount, nonce: a.nonce });
  }

  bumpNonce(addr: Address): bigint {
    const k = addr.toLowerCase();
    const a = this.#accounts.get(k) ?? EMPTY_ACCOUNT;
    this.#accounts.set(k, { balance: a.balance, nonce: a.nonce + 1n });
    return a.nonce;
  }

  storageAt(addr: Address, slot: Hash): bigint {
    return this.#storage.get(addr.toLowerCase())?.get(slot.toLowerCase()) ?? 0n;
  }

  setStorage(addr: Address, slot: Hash, value: bigint): void {
    const k = addr.toLowerCase();
    let slots = this.#storage.get(k);
    if (slots === undefined || !this.#copiedStorage.has(k)) {
      slots = new Map(slots);
      this.#storage.set(k, slots);
      this.#copiedStorage.add(k);
    }
    if (value === 0n) slots.delete(slot.toLowerCase());
    else slots.set(slot.toLowerCase(), value);
  }

  seal(): LedgerState {
    return new LedgerState(this.#accounts, this.#storage);
  }
}
