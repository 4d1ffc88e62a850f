import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../src/core/codec/hex.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import { Registry } from "prom-client";
import { BeaconClient } from "../../../src/io/beacon/beacon-client.js";
import { createBeaconMetrics } from "../../../src/io/beacon/metrics.js";
import { commitmentToVersionedHash } from "../../../src/io/beacon/kzg.js";
import { L1Client } from "../../../src/io/l1/l1-client.js";
import { useAnvil } from "../../support/anvil.js";
import { sendBlobTx } from "../../support/blob-tx.js";

const DIR = resolve(process.cwd(), "../shared/conformance/op-service/beacon");
const present = existsSync(DIR);
if (!present) console.warn(`skipping beacon conformance: ${DIR} not found`);
const load = (f: string) => JSON.parse(readFileSync(resolve(DIR, f), "utf8"));

interface Sidecar {
  index: string;
  blob: Hex;
  kzg_commitment: Hex;
  kzg_proof: Hex;
}

/** A fake beacon node serving the Goerli conformance responses; `mutate` can corrupt what it serves. */
async function fakeBeacon(opts: {
  sidecars: Sidecar[];
  withSpec?: boolean;
  blobsEndpoint?: "404" | "serve";
}): Promise<{ app: FastifyInstance; url: string; hits: string[] }> {
  const app = Fastify();
  const hits: string[] = [];
  app.addHook("onRequest", async (req) => {
    hits.push(req.url.split("?")[0] as string);
  });
  app.get("/eth/v1/beacon/genesis", async () => load("eth_v1_beacon_genesis_goerli.json"));
  app.get("/eth/v1/config/spec", async (_req, reply) =>
    opts.withSpec === false ? reply.code(404).send({ message: "not found" }) : load("eth_v1_config_spec_goerli.json"),
  );
  app.get("/eth/v1/beacon/blobs/:id", async (_req, reply) =>
    opts.blobsEndpoint === "serve"
      ? { data: opts.sidecars.map((s) => s.blob) }
      : reply.code(404).send({ message: "not found" }),
  );
  app.get("/eth/v1/beacon/blob_sidecars/:id", async (req, reply) => {
    if ((req.params as { id: string }).id !== "7422094") return reply.code(404).send({ message: "no block" });
    return { data: opts.sidecars };
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  return { app, url: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`, hits };
}

describe.skipIf(!present)("BeaconClient with the Goerli conformance responses (fake beacon on port 0)", () => {
  const servers: FastifyInstance[] = [];
  let sidecars: Sidecar[] = [];
  let hashes: { index: number; hash: Hash }[] = [];
  let ref = {
    hash: `0x${"00".repeat(32)}` as Hash,
    number: 1,
    parentHash: `0x${"00".repeat(32)}` as Hash,
    timestamp: 0,
  };

  beforeAll(() => {
    sidecars = load("eth_v1_beacon_blob_sidecars_7422094_goerli.json").data;
    hashes = sidecars.map((s) => ({
      index: Number(s.index),
      hash: commitmentToVersionedHash(hexToBytes(s.kzg_commitment)),
    }));
    const genesis = Number(load("eth_v1_beacon_genesis_goerli.json").data.genesis_time);
    ref = { ...ref, timestamp: genesis + 7422094 * 12 };
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it("computes the slot from genesis and spec, falls back to blob_sidecars, verifies proofs", async () => {
    const b = await fakeBeacon({ sidecars });
    servers.push(b.app);
    const client = BeaconClient.create({ url: b.url }, { clock: systemClock, logger: silentLogger });
    expect(await client.slotOf(ref.timestamp)).toBe(7422094);
    await expect(client.slotOf(ref.timestamp + 1)).rejects.toMatchObject({ code: "BEACON_SLOT" });
    // ask in a different order than the block's: results follow the request order
    const want = [hashes[3], hashes[0]] as { index: number; hash: Hash }[];
    const blobs = await client.getBlobs(ref, want);
    expect(blobs.map(bytesToHex)).toEqual([sidecars[3]?.blob, sidecars[0]?.blob]);
    expect(b.hits).toContain("/eth/v1/beacon/blobs/7422094");
    expect(b.hits).toContain("/eth/v1/beacon/blob_sidecars/7422094");
    // cached by versioned hash: no new requests
    const before = b.hits.length;
    await client.getBlobs(ref, want);
    expect(b.hits.length).toBe(before);
  }, 120_000);

  it("never uses a blob that fails verification; takes it from a fallback endpoint instead", async () => {
    const corrupt = sidecars.map((s) => ({ ...s, blob: `${s.blob.slice(0, 100)}ff${s.blob.slice(102)}` as Hex }));
    const bad = await fakeBeacon({ sidecars: corrupt, blobsEndpoint: "serve" });
    const good = await fakeBeacon({ sidecars });
    servers.push(bad.app, good.app);
    const client = BeaconClient.create(
      { url: bad.url, fallbacks: [good.url] },
      { clock: systemClock, logger: silentLogger },
    );
    const blobs = await client.getBlobs(ref, [hashes[1] as { index: number; hash: Hash }]);
    expect(bytesToHex(blobs[0] as Uint8Array)).toBe(sidecars[1]?.blob);
    expect(good.hits).toContain("/eth/v1/beacon/blob_sidecars/7422094");

    // a healthy blobs endpoint: blobs matched to their hashes by recomputed commitments, no sidecar request
    const modern = await fakeBeacon({ sidecars, blobsEndpoint: "serve" });
    servers.push(modern.app);
    const mc = BeaconClient.create({ url: modern.url }, { clock: systemClock, logger: silentLogger });
    const got = await mc.getBlobs(ref, [hashes[4], hashes[2]] as { index: number; hash: Hash }[]);
    expect(got.map(bytesToHex)).toEqual([sidecars[4]?.blob, sidecars[2]?.blob]);
    expect(modern.hits).not.toContain("/eth/v1/beacon/blob_sidecars/7422094");

    const onlyBad = BeaconClient.create({ url: bad.url }, { clock: systemClock, logger: silentLogger });
    await expect(onlyBad.getBlobs(ref, [hashes[2] as { index: number; hash: Hash }])).rejects.toMatchObject({
      code: "BLOB_NOT_FOUND",
    });
  }, 120_000);

  it("counts its failures by kind in supernode_beacon_errors_total (every kind from 0)", async () => {
    const reg = new Registry();
    const metrics = createBeaconMetrics(reg);
    const counts = async () =>
      Object.fromEntries(
        ((await reg.getSingleMetric("supernode_beacon_errors_total")?.get())?.values ?? []).map((v) => [
          v.labels.kind,
          v.value,
        ]),
      );
    expect(await counts()).toEqual({
      network: 0,
      http_error: 0,
      decode: 0,
      too_large: 0,
      invalid_blob: 0,
      unavailable: 0,
      genesis: 0,
    });
    // a primary answering HTTP 500 for blobs, then a fallback serving corrupted blobs: nothing usable anywhere
    const failing = Fastify();
    failing.get("/eth/v1/beacon/genesis", async () => load("eth_v1_beacon_genesis_goerli.json"));
    failing.get("/eth/v1/config/spec", async () => load("eth_v1_config_spec_goerli.json"));
    failing.get("/eth/v1/beacon/blobs/:id", async (_req, reply) => reply.code(500).send({ message: "boom" }));
    await failing.listen({ port: 0, host: "127.0.0.1" });
    const addr = failing.server.address();
    const corrupt = sidecars.map((s) => ({ ...s, blob: `${s.blob.slice(0, 100)}ff${s.blob.slice(102)}` as Hex }));
    const bad = await fakeBeacon({ sidecars: corrupt, blobsEndpoint: "serve" });
    servers.push(failing, bad.app);
    const client = BeaconClient.create(
      { url: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`, fallbacks: [bad.url] },
      { clock: systemClock, logger: silentLogger, onError: metrics.onError },
    );
    await expect(client.getBlobs(ref, [hashes[0] as { index: number; hash: Hash }])).rejects.toMatchObject({
      code: "BLOB_NOT_FOUND",
    });
    const c = await counts();
    expect(c.http_error).toBe(1);
    expect(c.invalid_blob).toBeGreaterThanOrEqual(1);
    expect(c.unavailable).toBe(1);
    expect(c.network).toBe(0);
  }, 120_000);
});

describe("BeaconClient against anvil's beacon API (blobs by EL block id)", () => {
  const anvil = useAnvil({ blockTimeSec: 0, hardfork: "prague" });

  it("fetches and KZG-verifies the blobs of a real blob transaction", async () => {
    const a = anvil();
    const sent = await sendBlobTx(a.rpcUrl, a.chainId, "0x736861726564206c31206275742066756e");
    const l1 = L1Client.create(
      { url: a.rpcUrl, pollIntervalMs: 60_000, maxConcurrency: 2, cacheSize: 10 },
      { clock: systemClock, logger: silentLogger },
    );
    const ref = await l1.l1BlockRefByHash(sent.blockHash as Hash);
    // the L1 client validates the block (anvil commits blob txs in network form) and reads the versioned hashes
    const { info, txs } = await l1.infoAndTxsByHash(ref.hash);
    expect(info.blobGasUsed).toBe(131072n);
    const tx = txs.find((t) => t.hash === sent.txHash);
    expect(tx?.type).toBe(3);
    expect(tx?.blobVersionedHashes).toEqual(sent.versionedHashes);
    const { receipts } = await l1.fetchReceipts(ref.hash);
    expect(receipts.some((r) => r.transactionHash === sent.txHash)).toBe(true);
    const beacon = BeaconClient.create({ url: a.beaconUrl }, { clock: systemClock, logger: silentLogger });
    expect((await beacon.getTiming()).mode).toBe("el");
    const blobs = await beacon.getBlobs(
      ref,
      (tx?.blobVersionedHashes ?? []).map((hash, index) => ({ index, hash })),
    );
    expect(blobs.length).toBe(1);
    expect(bytesToHex(blobs[0] as Uint8Array)).toBe(sent.blobs[0]);
    // a hash that is not in the block is not found (anvil has no fallback here)
    await expect(beacon.getBlobs(ref, [{ index: 1, hash: `0x01${"22".repeat(31)}` }])).rejects.toMatchObject({
      code: "BLOB_NOT_FOUND",
    });
  }, 120_000);
});
