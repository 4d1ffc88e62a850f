/**
 * Batcher authentication end to end: valid batches of the sequencer's own blocks, posted to the chain's batch
 * inbox by an account that is not the configured batcher, are ignored by both nodes (no safe head moves while the
 * nodes read past them); the same blocks posted by the authorised batcher are then derived.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Batcher } from "supernode-devnet/batcher/batcher";
import { devAccount } from "supernode-devnet/l1/dev-accounts";
import { NodePair, waitFor } from "./node-support.js";

/** A funded anvil dev account that no devnet batcher uses. */
const ROGUE = 7;

describe("a batch from an unauthorised sender is ignored", () => {
  let pair: NodePair;
  let rogue: Batcher;

  beforeAll(async () => {
    pair = await NodePair.start({
      chainId: 905,
      variant: "a",
      dataMode: "calldata",
      batchType: "singular",
      startBatchers: false,
    });
    rogue = new Batcher({
      rollupConfig: pair.chain.rollupConfig,
      l2RpcUrl: pair.chain.el.httpUrl,
      l1: pair.devnet.l1Node.client,
      accountIndex: ROGUE,
      mode: "calldata",
      batchType: "singular",
      pollIntervalMs: 200,
    });
  }, 60_000);

  afterAll(async () => {
    await rogue?.stop();
    await pair?.close();
  });

  it("ignores the unauthorised sender's batches and derives the authorised batcher's", async () => {
    const authorised = pair.chain.rollupConfig.genesis.system_config.batcherAddr.toLowerCase();
    expect(devAccount(ROGUE).address.toLowerCase()).not.toBe(authorised);
    await waitFor(() => pair.seq.node.syncStatus().unsafe_l2.number >= 3, 20_000, "three sequenced blocks");
    const posted = await rogue.flush(30_000);
    expect(posted.confirmedThrough).toBeGreaterThanOrEqual(3);
    const rogueTxs = rogue.submitted.filter((t) => t.l1Block !== undefined);
    expect(rogueTxs.length).toBeGreaterThan(0);
    const lastL1 = Math.max(...rogueTxs.map((t) => t.l1Block!.number));
    // Both nodes read past every L1 block holding the unauthorised batches ...
    for (const n of [pair.ver, pair.seq]) {
      await waitFor(() => n.node.syncStatus().current_l1.number > lastL1, 20_000, "derivation past the rogue batches");
    }
    // ... and derived nothing from them.
    expect(pair.ver.node.syncStatus().safe_l2.number).toBe(0);
    expect(pair.seq.node.syncStatus().safe_l2.number).toBe(0);
    expect(await pair.ver.safeDb.entries()).toSatisfy((es: { safeHead: { number: number } }[]) =>
      es.every((e) => e.safeHead.number === 0),
    );

    // The authorised batcher posts the same blocks: now they are derived.
    pair.devnet.startBatchers();
    const n = await pair.safeMatchingSequencer(posted.confirmedThrough, 30_000);
    expect(await pair.differingBlocks(n)).toEqual([]);
    await pair.sequencerSafe(posted.confirmedThrough, 30_000);
  }, 60_000);
});
