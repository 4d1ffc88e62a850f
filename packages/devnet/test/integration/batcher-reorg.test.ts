/**
 * The batcher after reorgs.
 * - An L1 reorg that drops one of its transactions while a later one is still in the pool: the later transaction's
 *   nonce now leaves a gap (it can never be mined as is), so the batcher must notice the drop on its next poll,
 *   restart from the canonical nonce, replace the stranded transaction and get everything included again quickly,
 *   instead of waiting for receipts that never come.
 * - An L2 reorg of blocks it already posted (what a sequencer does after an L1 reorg takes away its blocks' L1
 *   origins): the channel holding the replaced blocks is stale (the derivation drops its batches), so the batcher
 *   must post the replacement blocks at those numbers again, not only the blocks above the highest number it had
 *   posted. Otherwise no node can ever derive past the replaced blocks.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet.js";
import { blocksFromBatches, type BuiltBlock, L2BlockBuilder, readBatchesFromL1 } from "../support/batcher-support.js";

describe("batcher: reorgs", () => {
  let dir: string;
  let devnet: Devnet;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-batcher-reorg-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 0,
      // L2 timestamps far ahead of the automined L1 blocks: any L1 block of the test can be an L2 block's origin
      l2BlockTimeSec: 60,
      // Far beyond the test's time: a stranded transaction is replaced because the batcher noticed the reorg, never
      // because it stayed unmined too long (what "within seconds" means, without a wall-clock bound).
      batcherPendingTimeoutMs: 3_600_000,
      chains: [
        { chainId: 901, variant: "a", dataMode: "calldata", batchType: "singular" },
        { chainId: 902, variant: "a", dataMode: "calldata", batchType: "singular" },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await devnet?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("resubmits the dropped channel and replaces the stranded one within seconds", async () => {
    const chain = devnet.chain(901);
    const anvil = devnet.l1Node.anvil;
    const builder = new L2BlockBuilder(chain.rollupConfig, devnet.l1Node, chain.el, chain.jwtSecret);
    const built: BuiltBlock[] = [];
    built.push(await builder.buildNext(), await builder.buildNext());
    await chain.batcher.flush(30_000);
    const first = chain.batcher.submitted[chain.batcher.submitted.length - 1]!;
    expect(first.l1Block).toBeDefined();

    // the next channel stays in the pool: no mining
    await anvil.setAutomine(false);
    built.push(await builder.buildNext(), await builder.buildNext());
    await chain.batcher.step({ flush: true });
    const stranded = chain.batcher.submitted[chain.batcher.submitted.length - 1]!;
    expect(stranded.nonce).toBe(first.nonce + 1);
    expect(stranded.l1Block).toBeUndefined();

    // drop the block holding the first channel; the stranded transaction's nonce now leaves a gap
    const head = await anvil.blockNumber();
    await anvil.reorg(head - first.l1Block!.number + 1);
    await anvil.setAutomine(true);
    await anvil.mine(1);

    const stats = await chain.batcher.flush(40_000);
    expect(stats.resubmittedChannels).toBeGreaterThanOrEqual(1);
    expect(stats.confirmedThrough).toBe(built[built.length - 1]!.number);
    expect(stats.unconfirmed).toBe(0);
    // every built block is decodable from the canonical L1 again
    const l1Head = await anvil.blockNumber();
    const decoded = blocksFromBatches(
      await readBatchesFromL1(devnet.l1Node, chain.rollupConfig, devnet.l1.genesis.number, l1Head),
    );
    for (const b of built) expect(decoded.some((d) => d.timestamp === b.timestamp)).toBe(true);
    // the replacement reused the canonical nonce
    const resent = chain.batcher.submitted.filter((t) => t.nonce === first.nonce);
    expect(resent.length).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it("posts the replacement blocks at the numbers a stale, included channel covered", async () => {
    const chain = devnet.chain(902);
    const first = new L2BlockBuilder(chain.rollupConfig, devnet.l1Node, chain.el, chain.jwtSecret);
    const g = devnet.l1.genesis.number;
    const old = [await first.build(g), await first.build(g)];
    const before = await chain.batcher.flush(30_000);
    expect(before.confirmedThrough).toBe(old[1]!.number);

    // A second builder from genesis, on another L1 origin (the EL would hand out its cached payload for the same
    // attributes), with a transfer: it replaces blocks 1 and 2.
    const second = new L2BlockBuilder(chain.rollupConfig, devnet.l1Node, chain.el, chain.jwtSecret);
    const tx = await second.signTransfer("0x00000000000000000000000000000000000000aa", 1n);
    const replaced = [await second.build(g + 1, [tx]), await second.buildNext(), await second.buildNext()];
    expect(replaced[0]!.userTxs).toEqual([tx]);
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
