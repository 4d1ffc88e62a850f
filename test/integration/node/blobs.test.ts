/**
 * Devnet end to end with blob-carried batches: the batcher posts blob transactions, the verifying node fetches
 * the blobs through the beacon client (KZG-verified) and derives the sequencer's chain.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import { type Devnet, startDevnet } from "../../../src/devnet/devnet.js";
import type { SimulatedExecutionClient } from "../../../src/devnet/el/index.js";
import { BeaconClient } from "../../../src/io/beacon/beacon-client.js";
import type { L1Client } from "../../../src/io/l1/l1-client.js";
import { sharedL1, startNode, startVerifierEl, type TestNode } from "./node-support.js";

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("sequencer + verifier on the devnet (blobs, singular batches)", () => {
  let dir: string;
  let devnet: Devnet;
  let l1: L1Client;
  let verifierEl: SimulatedExecutionClient;
  let seq: TestNode;
  let ver: TestNode;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-node-blobs-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 1,
      l2BlockTimeSec: 1,
      batcherPollIntervalMs: 200,
      chains: [{ chainId: 903, variant: "a", dataMode: "blobs", batchType: "singular" }],
    });
    const chain = devnet.chain(903);
    l1 = sharedL1(devnet);
    const beacon = BeaconClient.create(
      { url: devnet.l1.beaconUrl, blockIdMode: "el" },
      { clock: systemClock, logger: silentLogger },
    );
    verifierEl = await startVerifierEl(devnet, chain);
    seq = await startNode({
      chain,
      l1,
      blobs: beacon,
      authUrl: chain.el.authUrl,
      dataDir: join(dir, "seq"),
      sequencer: true,
    });
    ver = await startNode({
      chain,
      l1,
      blobs: beacon,
      authUrl: verifierEl.authUrl,
      dataDir: join(dir, "ver"),
      sequencer: false,
    });
    devnet.startBatchers();
  }, 60_000);

  afterAll(async () => {
    await seq?.close();
    await ver?.close();
    await verifierEl?.stop();
    await l1?.stop();
    await devnet?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("derives the same blocks from blob data", async () => {
    await waitFor(() => ver.node.syncStatus().safe_l2.number >= 3, 75_000);
    const safe = ver.node.syncStatus().safe_l2;
    const sequenced = await seq.engine.l2BlockRefByNumber(safe.number);
    expect(sequenced?.hash).toBe(safe.hash);
    expect(safe.l1origin).toEqual(sequenced?.l1origin);
  }, 90_000);
});
