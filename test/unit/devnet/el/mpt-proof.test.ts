import { createMPT, createMerkleProof, verifyMerkleProof } from "@ethereumjs/mpt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../../src/core/codec/hex.js";
import type { Address, Hash } from "../../../../src/core/types/primitives.js";
import { keccak } from "../../../../src/protocol/block/keccak.js";
import { trieRootBytes } from "../../../../src/protocol/block/trie.js";
import { LedgerState, LedgerWriter } from "../../../../src/devnet/el/ledger.js";
import { trieProof } from "../../../../src/devnet/el/mpt-proof.js";

const key32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const value = fc.uint8Array({ minLength: 1, maxLength: 70 });

describe("Merkle-Patricia proofs (eth_getProof)", () => {
  it("match @ethereumjs/mpt roots and proofs, for present and absent keys", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(key32, value), { minLength: 1, maxLength: 24, selector: (t) => bytesToHex(t[0]) }),
        key32,
        async (entries, absent) => {
          const pairs = entries.map(([key, v]) => ({ key, value: v }));
          const ref = await createMPT();
          for (const p of pairs) await ref.put(p.key, p.value);
          const probe = pairs[entries.length >> 1]!.key;
          const mine = trieProof(pairs, probe);
          expect(bytesToHex(mine.root)).toBe(bytesToHex(ref.root()));
          expect(bytesToHex(mine.root)).toBe(bytesToHex(trieRootBytes(pairs)));
          expect(mine.proof.map(bytesToHex)).toEqual((await createMerkleProof(ref, probe)).map(bytesToHex));
          expect(bytesToHex(keccak(mine.proof[0]!))).toBe(bytesToHex(mine.root));
          const got = await verifyMerkleProof(probe, mine.proof);
          expect(got && bytesToHex(got)).toBe(bytesToHex(pairs[entries.length >> 1]!.value));
          const excl = trieProof(pairs, absent);
          if (!pairs.some((p) => bytesToHex(p.key) === bytesToHex(absent)))
            expect(await verifyMerkleProof(absent, excl.proof)).toBeNull();
        },
      ),
      { numRuns: 60 },
    );
  });

  it("ledger proofs verify against the state root and the storage root", async () => {
    const w = new LedgerWriter(LedgerState.empty());
    const addrs = Array.from({ length: 12 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}` as Address);
    for (const [i, a] of addrs.entries()) w.credit(a, BigInt(i + 1) * 1000n);
    const mp = "0x4200000000000000000000000000000000000016" as Address;
    const slot = `0x${"00".repeat(31)}01` as Hash;
    w.setStorage(mp, slot, 3n);
    w.setStorage(mp, `0x${"ab".repeat(32)}` as Hash, 1n);
    const s = w.seal();
    const { accountProof, storageProofs } = s.proof(mp, [slot, `0x${"cd".repeat(32)}` as Hash]);
    expect(bytesToHex(keccak(Buffer.from(accountProof[0]!.slice(2), "hex")))).toBe(s.stateRoot());
    const toBytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), "hex"));
    const acct = await verifyMerkleProof(keccak(toBytes(mp)), accountProof.map(toBytes));
    expect(acct).not.toBeNull();
    expect(bytesToHex(keccak(toBytes(storageProofs[0]![0]!)))).toBe(s.storageRoot(mp));
    const v = await verifyMerkleProof(keccak(toBytes(slot)), storageProofs[0]!.map(toBytes));
    expect(v && bytesToHex(v)).toBe("0x03");
    expect(await verifyMerkleProof(keccak(toBytes(`0x${"cd".repeat(32)}`)), storageProofs[1]!.map(toBytes))).toBeNull();
  });
});
