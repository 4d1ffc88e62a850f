/**
 * Devnet end to end with blob-carried batches, singular and span (two chains on one L1): each batcher posts blob
 * transactions, each verifying node fetches the blobs through the beacon client (KZG-verified) and derives its
 * sequencer's chain.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodePair, waitFor } from "./node-support.js";

describe("sequencer + verifier on the devnet (blobs; singular and span batches)", () => {
  let pairs: NodePair[] = [];

  beforeAll(async () => {
    pairs = await NodePair.startAll([
      { chainId: 903, variant: "a", dataMode: "blobs", batchType: "singular" },
      { chainId: 904, variant: "b", dataMode: "blobs", batchType: "span" },
    ]);
    // loading the KZG setups (anvil's and ours) takes tens of seconds on a loaded 2-core machine
  }, 120_000);

  afterAll(async () => {
    for (const p of pairs) await p.close();
  });

  it.each([
    [903, "singular"],
    [904, "span"],
  ])(
    "chain %i derives the same blocks from blob data (%s batches)",
    async (chainId) => {
      const pair = pairs.find((p) => p.chain.chainId === BigInt(chainId))!;
      const n = await pair.safeMatchingSequencer(3, 45_000);
      expect(await pair.differingBlocks(n)).toEqual([]);
      const derived = await pair.ver.engine.l2BlockRefByNumber(n);
      const sequenced = await pair.seq.engine.l2BlockRefByNumber(n);
      expect(derived?.l1origin).toEqual(sequenced?.l1origin);
      // the batches really came as blobs (the batcher records a transaction's L1 block when it next polls the
      // receipt, which can be after a fast verifier has already derived from it)
      const posted = () => pair.chain.batcher.submitted.filter((t) => t.l1Block !== undefined);
      await waitFor(() => posted().length > 0, 30_000, "the batcher to see its blob transaction included");
      expect(posted().length).toBeGreaterThan(0);
      expect(posted().every((t) => t.blobs > 0)).toBe(true);
      // and the sequencer's own safe head follows from the same blobs
      await pair.sequencerSafe(n, 30_000);
      expect((await pair.seq.engine.l2BlockRefByNumber(n))?.hash).toBe(sequenced?.hash);
    },
    60_000,
  );
});
