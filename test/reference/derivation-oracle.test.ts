/**
 * Derivation oracle: op-node (the Go reference) in verifier mode and the supernode follow the same devnet L1, each
 * driving its own op-geth started from the devnet's L2 genesis (test/support/reference-oracle.ts). Every block up
 * to the compared height must have the same hash on both execution clients and the same output root on both
 * rollup nodes (`optimism_outputAtBlock`); the first mismatches are named with both sides' values.
 *
 * Blocks per case: REFERENCE_BLOCKS (default 20; `npm run reference` asks for 200). Figures per case:
 * blocks_compared, block_mismatches, outputs_compared.
 */
import { describe, expect, it } from "vitest";
import { devnetForkOffsets } from "supernode-devnet/config";
import { printReferenceFigure, referenceSkipReason } from "../support/reference.js";
import { type OracleCase, runOracle } from "../support/reference-oracle.js";

const BLOCKS = Number(process.env.REFERENCE_BLOCKS ?? 20);
const skip = referenceSkipReason("derivation oracle", ["geth", "op-node"]);

const CASES: OracleCase[] = [
  // Ecotone → Jovian activating one after the other on the running chain (upgrade transactions on op-geth's EVM).
  {
    name: "calldata-span-forks-at-offsets",
    dataMode: "calldata",
    batchType: "span",
    forkOffsets: devnetForkOffsets({ ecotone: 4, fjord: 6, granite: 8, holocene: 10, isthmus: 12, jovian: 14 }),
  },
  { name: "calldata-singular-jovian-at-genesis", dataMode: "calldata", batchType: "singular" },
  // Blobs: both rollup nodes fetch them through the devnet's beacon API (config/spec, blobs by slot).
  { name: "blobs-span-jovian-at-genesis", dataMode: "blobs", batchType: "span" },
  // P2P on loopback: the blocks the supernode sequences reach op-node by gossip before their batches do, on the v2
  // (Canyon), v3 (Ecotone) and v4 (Isthmus) topics in turn.
  {
    name: "gossip-to-op-node",
    dataMode: "calldata",
    batchType: "span",
    gossip: true,
    forkOffsets: devnetForkOffsets({ ecotone: 6, fjord: 8, granite: 10, holocene: 12, isthmus: 14, jovian: 16 }),
  },
];

describe.skipIf(skip !== undefined)("derivation oracle: op-node and the supernode on one devnet L1", () => {
  it.each(CASES)(
    `$name: every block hash and output root agree up to ${BLOCKS} safe blocks`,
    async (c) => {
      const r = await runOracle(c, BLOCKS);
      const extra = { case: c.name, user_txs: r.userTxs, deposits: r.deposits };
      printReferenceFigure("blocks_compared", r.blocksCompared, "blocks", extra);
      printReferenceFigure("block_mismatches", r.blockMismatches, "blocks", extra);
      printReferenceFigure("outputs_compared", r.outputsCompared, "outputs", extra);
      if (r.gossip !== undefined) {
        printReferenceFigure("gossip_to_opnode", r.gossip.toOpNode, "blocks", extra);
        expect(r.gossip.opNodeListsUs, "op-node's opp2p_peers lists the supernode").toBe(true);
        expect(r.gossip.weListOpNode, "stackp2p_peers lists op-node").toBe(true);
        expect(r.gossip.toOpNode).toBeGreaterThan(0);
      }
      expect(r.mismatches).toEqual([]);
      expect(r.userTxs).toBeGreaterThan(0);
    },
    900_000,
  );
});
