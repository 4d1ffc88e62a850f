import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Address, bytesToHex, type Hash, hexToBytes } from "supernode/core";
import { EMPTY_TRIE_ROOT, keccak, rlpEncode, trieRootBytes, uintToBytes } from "supernode/protocol";
import { EMPTY_CODE_HASH, LedgerState, LedgerWriter } from "../../../src/el/ledger.js";
import { runs } from "../../../../../test/support/property.js";

/**
 * The ledger's incremental state root against a from-scratch model: plain maps of accounts and storage whose root
 * is computed by trieRootBytes over every pair, as the ledger did before it kept a persistent trie.
 */
interface Model {
  accounts: Map<string, { balance: bigint; nonce: bigint }>;
  storage: Map<string, Map<string, bigint>>;
}

function storageRoot(slots: Map<string, bigint> | undefined): Hash {
  if (slots === undefined || slots.size === 0) return EMPTY_TRIE_ROOT;
  const pairs = [...slots].map(([s, v]) => ({ key: keccak(hexToBytes(s)), value: rlpEncode(uintToBytes(v)) }));
  return bytesToHex(trieRootBytes(pairs));
}

function modelRoot(m: Model): Hash {
  const addrs = new Set([...m.accounts.keys(), ...m.storage.keys()]);
  if (addrs.size === 0) return EMPTY_TRIE_ROOT;
  const pairs = [...addrs].map((a) => {
    const acc = m.accounts.get(a) ?? { balance: 0n, nonce: 0n };
    const value = rlpEncode([
      uintToBytes(acc.nonce),
      uintToBytes(acc.balance),
      hexToBytes(storageRoot(m.storage.get(a))),
      hexToBytes(EMPTY_CODE_HASH),
    ]);
    return { key: keccak(hexToBytes(a)), value };
  });
  return bytesToHex(trieRootBytes(pairs));
}

const addrs = Array.from({ length: 10 }, (_, i) => `0x${(i * 0x1111 + 1).toString(16).padStart(40, "0")}` as Address);
const slots = Array.from({ length: 6 }, (_, i) => `0x${(i * 7).toString(16).padStart(64, "0")}` as Hash);
const amount = fc.oneof(fc.bigInt({ min: 0n, max: 300n }), fc.bigInt({ min: 0n, max: 1n << 80n }));
type Op =
  | { t: "credit"; a: number; v: bigint }
  | { t: "debit"; a: number; v: bigint }
  | { t: "nonce"; a: number }
  | { t: "store"; a: number; s: number; v: bigint };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant("credit" as const), a: fc.nat(9), v: amount }),
  fc.record({ t: fc.constant("debit" as const), a: fc.nat(9), v: amount }),
  fc.record({ t: fc.constant("nonce" as const), a: fc.nat(9) }),
  fc.record({ t: fc.constant("store" as const), a: fc.nat(2), s: fc.nat(5), v: fc.oneof(fc.constant(0n), amount) }),
);

function apply(w: LedgerWriter, m: Model, o: Op): void {
  const a = addrs[o.a]!;
  const acc = m.accounts.get(a) ?? { balance: 0n, nonce: 0n };
  if (o.t === "credit" && o.v !== 0n) {
    w.credit(a, o.v);
    m.accounts.set(a, { ...acc, balance: acc.balance + o.v });
  } else if (o.t === "debit" && o.v !== 0n && o.v <= acc.balance) {
    w.debit(a, o.v);
    m.accounts.set(a, { ...acc, balance: acc.balance - o.v });
  } else if (o.t === "nonce") {
    expect(w.bumpNonce(a)).toBe(acc.nonce);
    m.accounts.set(a, { ...acc, nonce: acc.nonce + 1n });
  } else if (o.t === "store") {
    w.setStorage(a, slots[o.s]!, o.v);
    const s = new Map(m.storage.get(a));
    if (o.v === 0n) s.delete(slots[o.s]!);
    else s.set(slots[o.s]!, o.v);
    m.storage.set(a, s);
  }
}

describe("ledger state root", () => {
  it("equals the from-scratch root across blocks of random writes, and older snapshots keep their roots", () => {
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 12 }), { minLength: 1, maxLength: 8 }), (blocks) => {
        let state: LedgerState = LedgerState.empty();
        const m: Model = { accounts: new Map(), storage: new Map() };
        const seen: { state: LedgerState; root: Hash; storage: Hash; balance: bigint }[] = [];
        for (const ops of blocks) {
          const w = new LedgerWriter(state);
          for (const o of ops) apply(w, m, o);
          state = w.seal();
          const root = modelRoot(m);
          expect(state.stateRoot()).toBe(root);
          for (const a of addrs.slice(0, 3)) expect(state.storageRoot(a)).toBe(storageRoot(m.storage.get(a)));
          for (const s of slots) expect(state.storageAt(addrs[0]!, s)).toBe(m.storage.get(addrs[0]!)?.get(s) ?? 0n);
          const balance = m.accounts.get(addrs[0]!)?.balance ?? 0n;
          expect(state.account(addrs[0]!).balance).toBe(balance);
          seen.push({ state, root, storage: storageRoot(m.storage.get(addrs[0]!)), balance });
        }
        for (const s of seen) {
          // A fresh LedgerState on the same trie recomputes nothing it cached, so this checks the shared nodes too.
          expect(new LedgerState(s.state.trie).stateRoot()).toBe(s.root);
          expect(s.state.storageRoot(addrs[0]!)).toBe(s.storage);
          expect(s.state.account(addrs[0]!).balance).toBe(s.balance);
        }
      }),
      { numRuns: runs(120) },
    );
  }, 60_000); // property runs: generous under a loaded machine
});
