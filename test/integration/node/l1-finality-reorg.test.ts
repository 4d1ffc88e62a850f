/**
 * L1 reorgs against a sequencing and a verifying node on the devnet (real anvil, `anvil_reorg`):
 * - a reorg deeper than most (16 blocks) but inside L1 finality (finalized = head − 2·16) is survived by both,
 *   and the verifier ends on the sequencer's chain;
 * - a reorg that replaces blocks L1 had already finalized (finalized = head − 4, depth 10) is a critical error for
 *   both nodes, surfaced once (`L1_FINALIZED_REORG`), instead of a silent reset loop.
 */
import { afterAll, describe, expect, it } from "vitest";
import { NodePair, traceLogger, waitFor } from "./node-support.js";

async function l1Head(pair: NodePair): Promise<number> {
  return Number(BigInt((await pair.devnet.l1Node.anvil.getBlock("latest")).number));
}

describe("L1 reorgs and L1 finality", () => {
  const pairs: NodePair[] = [];
  afterAll(async () => {
    for (const p of pairs) await p.close().catch(() => {});
  });

  it("a 16-block reorg inside L1 finality is survived by the sequencer and the verifier", async () => {
    const pair = await NodePair.start({
      chainId: 901,
      variant: "a",
      dataMode: "calldata",
      batchType: "singular",
      l1SlotsInAnEpoch: 16,
    });
    pairs.push(pair);
    const anvil = pair.devnet.l1Node.anvil;
    await pair.safeMatchingSequencer(3, 40_000);
    await waitFor(async () => (await l1Head(pair)) > 20, 40_000, "L1 head > 20");
    const head = await l1Head(pair);
    const finalized = Number(BigInt((await anvil.getBlock("finalized")).number));
    expect(head - 16).toBeGreaterThan(finalized);
    const replaced = (await anvil.getBlock(head - 15)).hash;
    traceLogger("test").info({ head, finalized }, "reorg 16");
    await anvil.reorg(16);
    expect((await anvil.getBlock(head - 15)).hash).not.toBe(replaced);
    // both go on: the verifier's safe head passes the L1 head of the reorg time, on the sequencer's chain
    const before = pair.ver.node.syncStatus().safe_l2.number;
    const n = await pair.safeMatchingSequencer(before + 3, 60_000);
    await pair.sequencerSafe(n, 30_000);
    expect(await pair.differingBlocks(n)).toEqual([]);
    expect(pair.ver.node.status).toBe("running");
    expect(pair.seq.node.status).toBe("running");
  }, 150_000);

  it("a reorg of finalized L1 blocks is a critical error for both nodes, once", async () => {
    const pair = await NodePair.start({
      chainId: 902,
      variant: "b",
      dataMode: "calldata",
      batchType: "singular",
      l1SlotsInAnEpoch: 2,
    });
    pairs.push(pair);
    const anvil = pair.devnet.l1Node.anvil;
    await pair.safeMatchingSequencer(2, 40_000);
    // both nodes have seen a finalized L1 block
    await waitFor(
      () => pair.ver.node.syncStatus().finalized_l1.number > 2 && pair.seq.node.syncStatus().finalized_l1.number > 2,
      30_000,
      "finalized L1 seen by both nodes",
    );
    const seen = pair.ver.node.syncStatus().finalized_l1;
    const depth = (await l1Head(pair)) - seen.number + 2;
    traceLogger("test").info({ seen, depth }, "reorg across finality");
    await anvil.reorg(depth);
    const outcome = (p: Promise<void>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      );
    const [ver, seq] = await Promise.all([outcome(pair.ver.node.done()), outcome(pair.seq.node.done())]);
    expect(ver?.code).toBe("L1_FINALIZED_REORG");
    expect(seq?.code).toBe("L1_FINALIZED_REORG");
    expect(pair.ver.node.status).toBe("failed");
    expect(pair.seq.node.status).toBe("failed");
  }, 120_000);
});
