/**
 * The batcher after the sequencer replaced L2 blocks it had already posted (what a sequencer does after an L1
 * reorg takes away its blocks' L1 origins): the channel holding the replaced blocks is stale (the derivation drops
 * its batches), so the batcher must post the replacement blocks at those numbers again, not only the blocks above
 * the highest number it had posted. Otherwise no node can ever derive past the replaced blocks.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../../src/devnet/devnet.js";
import { blocksFromBatches, L2BlockBuilder, readBatchesFromL1 } from "./batcher-support.js";

describe("batcher: L2 reorg of blocks it already posted", () => {
  let dir: string;
  let devnet: Devnet;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-batcher-l2-reorg-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 0,
      chains: [{ chainId: 901, variant: "a", dataMode: "calldata", batchType: "singular" }],
    });
  }, 60_000);

  afterAll(async () => {
    await devnet?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("posts the replacement blocks at the numbers a stale, included channel covered", async () => {
    const chain = devnet.chain(901);
    const first = new L2BlockBuilder(chain.rollupConfig, devnet.l1Node, chain.el, chain.jwtSecret);
    const old = [await first.buildNext(), await first.buildNext()];
    const before = await chain.batcher.flush(30_000);
    expect(before.confirmedThrough).toBe(old[1]!.number);

    // A second builder from genesis: its first block carries a transfer, so it replaces blocks 1 and 2.
    const second = new L2BlockBuilder(chain.rollupConfig, devnet.l1Node, chain.el, chain.jwtSecret);
    const tx = await second.signTransfer("0x00000000000000000000000000000000000000aa", 1n);
    const replaced = [await second.buildNext([tx]), await second.buildNext(), await second.buildNext()];
    expect(replaced[0]!.hash).not.toBe(old[0]!.hash);
    expect(replaced[1]!.number).toBe(old[1]!.number);

    const stats = await chain.batcher.flush(30_000);
    // Every replacement block is on L1 as a batch on its new parent (singular batches carry the parent hash).
    const l1Head = await devnet.l1Node.anvil.blockNumber();
    const decoded = blocksFromBatches(
      await readBatchesFromL1(devnet.l1Node, chain.rollupConfig, devnet.l1.genesis.number, l1Head),
    );
    for (const b of replaced) {
      const found = decoded.filter((d) => d.parentHash === b.parentHash && d.timestamp === b.timestamp);
      expect(
        found.some((d) => JSON.stringify(d.txs) === JSON.stringify(b.userTxs)),
        `batch of replacement block ${b.number}`,
      ).toBe(true);
    }
    expect(stats.confirmedThrough).toBe(replaced[2]!.number);
    expect(stats.unconfirmed).toBe(0);
    // the stale channel counts as resubmitted
    expect(stats.resubmittedChannels).toBe(1);
  }, 60_000);
});
