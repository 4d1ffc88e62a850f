import { describe, expect, it } from "vitest";
import type { Address, Hash } from "supernode/core";
import { EMPTY_TRIE_ROOT } from "supernode/protocol";
import { DEFAULT_EIP1559, buildBlock, makeGenesis } from "../../../src/el/block-builder.js";
import { SimChain } from "../../../src/el/chain.js";
import { LedgerState, LedgerWriter } from "../../../src/el/ledger.js";
import { TxPool } from "../../../src/el/tx-pool.js";
import type { SimTx } from "../../../src/el/types.js";

const A = "0x00000000000000000000000000000000000000aa" as Address;
const B = "0x00000000000000000000000000000000000000bb" as Address;

describe("ledger", () => {
  it("has the empty-trie state root when empty and a deterministic root otherwise", () => {
    expect(LedgerState.empty().stateRoot()).toBe(EMPTY_TRIE_ROOT);
    const w1 = new LedgerWriter(LedgerState.empty());
    w1.credit(A, 5n);
    w1.credit(B, 7n);
    const w2 = new LedgerWriter(LedgerState.empty());
    w2.credit(B, 7n);
    w2.credit(A, 5n);
    const s1 = w1.seal();
    expect(s1.stateRoot()).toBe(w2.seal().stateRoot());
    const w3 = new LedgerWriter(s1);
    w3.bumpNonce(A);
    const s3 = w3.seal();
    expect(s3.stateRoot()).not.toBe(s1.stateRoot());
    expect(s1.account(A)).toEqual({ balance: 5n, nonce: 0n }); // snapshots are immutable
    expect(s3.account(A)).toEqual({ balance: 5n, nonce: 1n });
    expect(() => new LedgerWriter(s1).debit(B, 8n)).toThrow(/insufficient/);
  });
  it("storage roots follow writes and copy on write", () => {
    const w = new LedgerWriter(LedgerState.empty());
    w.setStorage(A, `0x${"00".repeat(31)}01` as Hash, 1n);
    const s = w.seal();
    expect(s.storageRoot(A)).not.toBe(EMPTY_TRIE_ROOT);
    const w2 = new LedgerWriter(s);
    w2.setStorage(A, `0x${"00".repeat(31)}01` as Hash, 0n);
    expect(w2.seal().storageRoot(A)).toBe(EMPTY_TRIE_ROOT);
    expect(s.storageRoot(A)).not.toBe(EMPTY_TRIE_ROOT);
  });
});

const tx = (from: Address, nonce: bigint, h: string): SimTx =>
  ({
    raw: new Uint8Array([1]),
    hash: `0x${h.padStart(64, "0")}` as Hash,
    type: 2,
    from,
    to: B,
    value: 0n,
    gas: 21000n,
    input: "0x",
    nonce,
  }) as SimTx;

describe("tx pool", () => {
  it("separates pending from queued by nonce gaps and prunes executed nonces", () => {
    const pool = new TxPool();
    const w = new LedgerWriter(LedgerState.empty());
    w.bumpNonce(A);
    const s = w.seal(); // A's nonce is 1
    expect(() => pool.add(tx(A, 0n, "1"), s)).toThrow(/nonce too low/);
    pool.add(tx(A, 1n, "2"), s);
    pool.add(tx(A, 3n, "3"), s);
    expect(pool.status(s)).toEqual({ pending: 1, queued: 1 });
    pool.add(tx(A, 2n, "4"), s);
    expect(pool.pending(s).map((t) => t.nonce)).toEqual([1n, 2n, 3n]);
    expect(() => pool.add(tx(A, 2n, "4"), s)).toThrow(/already known/);
    const w2 = new LedgerWriter(s);
    w2.bumpNonce(A);
    w2.bumpNonce(A);
    const s2 = w2.seal();
    pool.prune(s2);
    expect(pool.size).toBe(1);
    expect(pool.status(s2)).toEqual({ pending: 1, queued: 0 });
  });
});

describe("chain fork choice", () => {
  const p = { chainId: 1n, forks: { regolith: 0, canyon: 0 }, eip1559: DEFAULT_EIP1559 };
  const g = makeGenesis(p, { timestamp: 100, gasLimit: 30_000_000n, alloc: { [A]: 10n } });
  const attrs = (t: number, randao: string) => ({
    timestamp: t,
    prevRandao: `0x${randao.repeat(32)}` as Hash,
    suggestedFeeRecipient: B,
    withdrawals: [],
    transactions: [],
    noTxPool: true,
  });
  it("reorgs to a sibling branch and reports added/removed blocks", async () => {
    const c = new SimChain(g);
    const a1 = await buildBlock(p, g, attrs(102, "01"), []);
    const a2 = await buildBlock(p, a1, attrs(104, "01"), []);
    const b1 = await buildBlock(p, g, attrs(102, "02"), []);
    for (const blk of [a1, a2, b1]) c.add(blk);
    const seen: number[][] = [];
    c.onHeadChange((ch) => seen.push([ch.added.length, ch.removed.length]));
    c.setHead(a2);
    expect(c.head).toBe(a2);
    c.setHead(b1);
    expect(c.head).toBe(b1);
    expect(c.byNumber(2)).toBeUndefined();
    expect(c.isCanonical(a1)).toBe(false);
    expect(seen).toEqual([
      [2, 0],
      [1, 2],
    ]);
    expect(c.isAncestor(g, a2)).toBe(true);
    expect(c.isAncestor(b1, a2)).toBe(false);
    await expect(buildBlock(p, a2, attrs(104, "03"), [])).rejects.toThrow(/timestamp/);
  });
});
