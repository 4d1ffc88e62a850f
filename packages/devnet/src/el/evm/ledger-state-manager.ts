/**
 * The EVM library's state-manager interface over the simulated client's ledger (docs/adr/0111): the EVM reads the
 * block's working state (`LedgerWriter`) and writes into a stack of overlay frames, one per EVM checkpoint (call
 * frame); `flush` writes the transaction's surviving changes into the ledger, which keeps computing the state root
 * with its persistent trie. The ledger is the transaction-start state while the EVM runs, so it also answers the
 * original-storage reads of SSTORE gas metering.
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import {
  Account as EvmAccount,
  type Address as EvmAddress,
  bigIntToUnpaddedBytes,
  bytesToBigInt,
} from "@ethereumjs/util";
import { type Address, bytesToHex, type Hash } from "supernode/core";
import { keccak } from "supernode/protocol";
import type { LedgerWriter } from "../ledger.js";

interface AccountFields {
  readonly nonce: bigint;
  readonly balance: bigint;
}

/** One checkpoint's writes. `cleared`: accounts deleted in this frame (lower frames' state of them is gone). */
interface Frame {
  readonly accounts: Map<string, AccountFields | null>;
  readonly code: Map<string, Uint8Array>;
  /** `address + slot` (both 0x-hex, lowercase) → value. */
  readonly storage: Map<string, bigint>;
  readonly cleared: Set<string>;
}

const EMPTY_CODE = new Uint8Array(0);
const EMPTY_CODE_HASH = keccak(EMPTY_CODE);

function newFrame(): Frame {
  return { accounts: new Map(), code: new Map(), storage: new Map(), cleared: new Set() };
}

function unsupported(what: string): never {
  throw new Error(`ledger state manager: ${what} is not supported`);
}

export class LedgerStateManager implements StateManagerInterface {
  readonly #ledger: LedgerWriter;
  readonly #frames: Frame[] = [newFrame()];
  readonly originalStorageCache: StateManagerInterface["originalStorageCache"];

  constructor(ledger: LedgerWriter) {
    this.#ledger = ledger;
    this.originalStorageCache = {
      get: async (a: EvmAddress, key: Uint8Array) =>
        bigIntToUnpaddedBytes(ledger.storageAt(a.toString() as Address, bytesToHex(key) as Hash)),
      clear: () => {},
    };
  }

  /** Searches the frames top-down; `undefined` when no frame decides (the ledger does). */
  #lookup<T>(
    addr: string,
    pick: (f: Frame) => T | undefined,
  ): { found: true; value: T } | { found: false; cleared: boolean } {
    for (let i = this.#frames.length - 1; i >= 0; i--) {
      const f = this.#frames[i]!;
      const v = pick(f);
      if (v !== undefined) return { found: true, value: v };
      if (f.cleared.has(addr)) return { found: false, cleared: true };
    }
    return { found: false, cleared: false };
  }

  #fields(addr: string): AccountFields | null {
    const r = this.#lookup(addr, (f) => f.accounts.get(addr));
    if (r.found) return r.value;
    if (r.cleared) return null;
    const a = this.#ledger.account(addr as Address);
    return a.nonce === 0n && a.balance === 0n && this.#ledger.code(addr as Address) === undefined ? null : a;
  }

  #code(addr: string): Uint8Array {
    const r = this.#lookup(addr, (f) => f.code.get(addr));
    if (r.found) return r.value;
    if (r.cleared) return EMPTY_CODE;
    return this.#ledger.code(addr as Address)?.bytes ?? EMPTY_CODE;
  }

  #codeHash(addr: string): Uint8Array {
    const r = this.#lookup(addr, (f) => f.code.get(addr));
    if (r.found) return keccak(r.value);
    if (r.cleared) return EMPTY_CODE_HASH;
    return this.#ledger.code(addr as Address)?.hash ?? EMPTY_CODE_HASH;
  }

  get #top(): Frame {
    return this.#frames[this.#frames.length - 1]!;
  }

  async getAccount(address: EvmAddress): Promise<EvmAccount | undefined> {
    const addr = address.toString();
    const a = this.#fields(addr);
    if (a === null) return undefined;
    return new EvmAccount(a.nonce, a.balance, undefined, this.#codeHash(addr));
  }

  async putAccount(address: EvmAddress, account?: EvmAccount): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    this.#top.accounts.set(address.toString(), { nonce: account.nonce, balance: account.balance });
  }

  async deleteAccount(address: EvmAddress): Promise<void> {
    const addr = address.toString();
    const top = this.#top;
    top.accounts.set(addr, null);
    top.code.delete(addr);
    for (const k of top.storage.keys()) if (k.startsWith(addr)) top.storage.delete(k);
    top.cleared.add(addr);
  }

  async modifyAccountFields(address: EvmAddress, fields: { nonce?: bigint; balance?: bigint }): Promise<void> {
    const a = this.#fields(address.toString()) ?? { nonce: 0n, balance: 0n };
    this.#top.accounts.set(address.toString(), {
      nonce: fields.nonce ?? a.nonce,
      balance: fields.balance ?? a.balance,
    });
  }

  async putCode(address: EvmAddress, value: Uint8Array): Promise<void> {
    const addr = address.toString();
    if (this.#fields(addr) === null) this.#top.accounts.set(addr, { nonce: 0n, balance: 0n });
    this.#top.code.set(addr, value);
  }

  async getCode(address: EvmAddress): Promise<Uint8Array> {
    return this.#code(address.toString());
  }

  async getCodeSize(address: EvmAddress): Promise<number> {
    return this.#code(address.toString()).length;
  }

  async getStorage(address: EvmAddress, key: Uint8Array): Promise<Uint8Array> {
    const addr = address.toString();
    const slot = bytesToHex(key);
    const r = this.#lookup(addr, (f) => f.storage.get(addr + slot));
    if (r.found) return bigIntToUnpaddedBytes(r.value);
    if (r.cleared) return EMPTY_CODE;
    return bigIntToUnpaddedBytes(this.#ledger.storageAt(addr as Address, slot as Hash));
  }

  async putStorage(address: EvmAddress, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.#top.storage.set(address.toString() + bytesToHex(key), bytesToBigInt(value));
  }

  async clearStorage(address: EvmAddress): Promise<void> {
    const addr = address.toString();
    const a = this.#fields(addr);
    const code = this.#code(addr);
    await this.deleteAccount(address);
    if (a !== null) this.#top.accounts.set(addr, a);
    if (code.length > 0) this.#top.code.set(addr, code);
  }

  async checkpoint(): Promise<void> {
    this.#frames.push(newFrame());
  }

  async commit(): Promise<void> {
    const top = this.#frames.pop()!;
    const below = this.#top;
    for (const addr of top.cleared) {
      below.cleared.add(addr);
      below.code.delete(addr);
      for (const k of below.storage.keys()) if (k.startsWith(addr)) below.storage.delete(k);
    }
    for (const [k, v] of top.accounts) below.accounts.set(k, v);
    for (const [k, v] of top.code) below.code.set(k, v);
    for (const [k, v] of top.storage) below.storage.set(k, v);
  }

  async revert(): Promise<void> {
    this.#frames.pop();
  }

  /** Writes the committed changes into the ledger and starts over (after each transaction). */
  flush(): void {
    if (this.#frames.length !== 1) throw new Error("ledger state manager: flush inside a checkpoint");
    const f = this.#frames[0]!;
    const w = this.#ledger;
    for (const addr of f.cleared) w.deleteAccount(addr as Address);
    for (const [addr, a] of f.accounts) if (a !== null) w.setAccount(addr as Address, a);
    for (const [addr, code] of f.code) w.setCode(addr as Address, code);
    for (const [k, v] of f.storage) w.setStorage(k.slice(0, 42) as Address, k.slice(42) as Hash, v);
    this.#frames[0] = newFrame();
  }

  /** Drops every change (a call whose effects are not kept). */
  discard(): void {
    this.#frames.length = 0;
    this.#frames.push(newFrame());
  }

  clearCaches(): void {}

  getStateRoot(): Promise<Uint8Array> {
    unsupported("getStateRoot (the ledger computes the state root)");
  }

  setStateRoot(): Promise<void> {
    unsupported("setStateRoot");
  }

  hasStateRoot(): Promise<boolean> {
    unsupported("hasStateRoot");
  }

  shallowCopy(): StateManagerInterface {
    unsupported("shallowCopy");
  }
}
