import { verifyMerkleProof } from "@ethereumjs/mpt";
import { describe, expect, it } from "vitest";
import { type Address, bytesToHex, type Hash } from "supernode/core";
import { keccak } from "supernode/protocol";
import { LedgerState, LedgerWriter } from "../../../src/el/ledger.js";

// The trie-level proofs are checked against @ethereumjs/mpt in state-trie.test.ts.
describe("Merkle-Patricia proofs (eth_getProof)", () => {
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
