import { createMPT, createMerkleProof, verifyMerkleProof } from "@ethereumjs/mpt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "supernode/core";
import { trieRootBytes } from "supernode/protocol";
import {
  type TrieNode,
  keyNibbles,
  trieDelete,
  trieEntries,
  trieGet,
  trieProof,
  trieRoot,
  trieSet,
} from "../../../src/el/state-trie.js";
import { runs } from "../../../../../test/support/property.js";

const id = (v: Uint8Array) => v;
/** Keys that often share long prefixes (so extensions, splits and merges all happen) but stay 32 bytes. */
const key32 = fc
  .tuple(fc.constantFrom(0, 1, 0x10, 0xff), fc.constantFrom(0, 1), fc.uint8Array({ minLength: 30, maxLength: 30 }))
  .map(([a, b, rest]) => Uint8Array.from([a, b, ...rest.map((x) => x & 0x11)]));
const value = fc.uint8Array({ minLength: 1, maxLength: 70 });
type Op = { key: Uint8Array; value: Uint8Array | null };
/** Operations on a small pool of keys, so that keys are overwritten and deleted as often as added. */
const ops = (max: number): fc.Arbitrary<Op[]> =>
  fc.uniqueArray(key32, { minLength: 1, maxLength: 14, selector: bytesToHex }).chain((pool) =>
    fc.array(fc.record({ key: fc.constantFrom(...pool), value: fc.option(value, { freq: 3 }) }), {
      minLength: 1,
      maxLength: max,
    }),
  );

function rootOfModel(model: Map<string, { key: Uint8Array; value: Uint8Array }>): string {
  return bytesToHex(trieRootBytes([...model.values()]));
}

describe("persistent state trie", () => {
  it("its incremental root equals the from-scratch root after any sequence of sets and deletes, and older versions keep theirs", () => {
    fc.assert(
      fc.property(ops(60), (ops) => {
        const model = new Map<string, { key: Uint8Array; value: Uint8Array }>();
        let trie: TrieNode<Uint8Array> | undefined;
        const versions: { trie: TrieNode<Uint8Array> | undefined; root: string; size: number }[] = [];
        for (const o of ops) {
          const hex = bytesToHex(o.key);
          if (o.value === null) {
            model.delete(hex);
            trie = trieDelete(trie, keyNibbles(o.key));
          } else {
            model.set(hex, { key: o.key, value: o.value });
            trie = trieSet(trie, keyNibbles(o.key), o.value);
          }
          const root = rootOfModel(model);
          expect(bytesToHex(trieRoot(trie, id))).toBe(root);
          versions.push({ trie, root, size: model.size });
        }
        for (const [k, v] of model) expect(trieGet(trie, keyNibbles(v.key)), k).toEqual(v.value);
        for (const v of versions) {
          expect(bytesToHex(trieRoot(v.trie, id))).toBe(v.root);
          expect([...trieEntries(v.trie)].length).toBe(v.size);
        }
      }),
      { numRuns: runs(150) },
    );
  }, 60_000); // property runs: generous under a loaded machine

  it("proves present and absent keys as @ethereumjs/mpt does, embedded nodes left out as geth does", async () => {
    await fc.assert(
      fc.asyncProperty(ops(30), key32, async (ops, absent) => {
        const ref = await createMPT();
        const model = new Map<string, Uint8Array>();
        let trie: TrieNode<Uint8Array> | undefined;
        for (const o of ops) {
          if (o.value === null) {
            model.delete(bytesToHex(o.key));
            await ref.del(o.key);
            trie = trieDelete(trie, keyNibbles(o.key));
          } else {
            model.set(bytesToHex(o.key), o.value);
            await ref.put(o.key, o.value);
            trie = trieSet(trie, keyNibbles(o.key), o.value);
          }
        }
        expect(bytesToHex(trieRoot(trie, id))).toBe(bytesToHex(ref.root()));
        for (const probe of [...ops.map((o) => o.key), absent]) {
          const mine = trieProof(trie, keyNibbles(probe), id);
          // @ethereumjs/mpt lists every node on the path; geth's eth_getProof (and ours) leaves out a node whose
          // RLP is shorter than 32 bytes, since it is embedded in its parent — except the root.
          const theirs = (await createMerkleProof(ref, probe)).filter((n, i) => i === 0 || n.length >= 32);
          expect(mine.map(bytesToHex)).toEqual(theirs.map(bytesToHex));
          if (mine.length === 0) {
            expect(model.size).toBe(0); // the empty trie has no nodes to prove with
            continue;
          }
          const got = await verifyMerkleProof(probe, mine);
          const want = model.get(bytesToHex(probe));
          expect(got === null ? null : bytesToHex(got)).toBe(want === undefined ? null : bytesToHex(want));
        }
      }),
      { numRuns: runs(40) },
    );
  }, 60_000); // property runs: generous under a loaded machine
});
