/**
 * The batcher after an L1 reorg that drops one of its transactions while a later one is still in the pool: the
 * later transaction's nonce now leaves a gap (it can never be mined as is), so the batcher must notice the drop on
 * its next poll, restart from the canonical nonce, replace the stranded transaction and get everything included
 * again quickly, instead of waiting for receipts that never come.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../../src/devnet/devnet.js";
import { blocksFromBatches, type BuiltBlock, L2BlockBuilder, readBatchesFromL1 } from "./batcher-support.js";

describe("batcher: reorg with a stranded pending transaction", () => {
  let dir: string;
  let devnet: Devnet;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-batcher-reorg-"));
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

    const t0 = Date.now();
    const stats = await chain.batcher.flush(30_000);
    const took = Date.now() - t0;
    expect(took).toBeLessThan(15_000);
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
});
