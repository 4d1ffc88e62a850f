/**
 * The devnet L1's beacon API (packages/devnet/src/l1/beacon-api.ts) answers as a consensus client does: genesis
 * and config/spec, blobs by *slot* (anvil's own endpoint takes an execution block number and has no config/spec,
 * so op-node's beacon client could not use it), 404 for a slot without a block. Our beacon client, seeing
 * config/spec, addresses blocks by slot and gets the blob.
 */
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { BeaconClient } from "../../../src/io/beacon/beacon-client.js";
import { DevnetL1 } from "supernode-devnet/l1/l1";
import { sendBlobTx } from "../../support/blob-tx.js";

let l1: DevnetL1 | undefined;
afterAll(async () => {
  await l1?.stop();
});

const get = async (url: string) => {
  const r = await fetch(url, { headers: { accept: "application/json" } });
  return { status: r.status, body: (await r.json()) as { data?: unknown } };
};

describe("devnet beacon API", () => {
  it("serves config/spec and genesis, blobs by slot, 404 for an empty slot; our client reads blobs by slot", async () => {
    l1 = await DevnetL1.start({ chainId: 900, blockTimeSec: 1, slotsInAnEpoch: 2, beaconApi: true });
    expect(l1.beaconUrl).not.toBe(l1.anvil.beaconUrl);
    expect((await get(`${l1.beaconUrl}/eth/v1/config/spec`)).body.data).toEqual({
      SECONDS_PER_SLOT: "1",
      SLOTS_PER_EPOCH: "2",
    });
    // anvil's own endpoint: no config/spec (what op-node's beacon client failed on)
    expect((await get(`${l1.anvil.beaconUrl}/eth/v1/config/spec`).catch(() => ({ status: 404 }))).status).toBe(404);
    const genesis = (await get(`${l1.beaconUrl}/eth/v1/beacon/genesis`)).body.data as { genesis_time: string };
    const genesisTime = Number(genesis.genesis_time);

    const sent = await sendBlobTx(l1.rpcUrl, 900, "0x0badc0de");
    const block = await l1.anvil.getBlock(sent.blockNumber);
    const slot = Number(block.timestamp) - genesisTime;
    const q = `versioned_hashes=${sent.versionedHashes[0]}`;
    const bySlot = await get(`${l1.beaconUrl}/eth/v1/beacon/blobs/${slot}?${q}`);
    expect(bySlot.status).toBe(200);
    expect(bySlot.body.data).toEqual([sent.blobs[0]]);
    expect((await get(`${l1.beaconUrl}/eth/v1/beacon/blobs/${slot + 10_000}`)).status).toBe(404);

    const client = BeaconClient.create({ url: l1.beaconUrl }, { clock: systemClock, logger: silentLogger });
    expect((await client.getTiming()).mode).toBe("slot");
    const ref = {
      hash: block.hash,
      number: sent.blockNumber,
      parentHash: block.parentHash,
      timestamp: Number(block.timestamp),
    };
    const blobs = await client.getBlobs(ref, [{ index: 0, hash: sent.versionedHashes[0] as Hash }]);
    expect(Buffer.from(blobs[0] as Uint8Array).toString("hex")).toBe((sent.blobs[0] as string).slice(2));
  }, 60_000);
});
