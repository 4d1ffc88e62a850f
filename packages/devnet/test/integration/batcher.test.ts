/**
 * The batcher against real parts: anvil L1, simulated execution clients of both variants, blocks built through the
 * Engine API with attributes from the protocol layer; the batches it posts (calldata and blobs, singular and span)
 * are read back from anvil and decoded by the protocol layer into the blocks that were built. Also: an L1 reorg that
 * drops batcher transactions makes the batcher post those blocks again.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "supernode/core";
import { Batcher } from "../../src/batcher/batcher.js";
import { type Devnet, type DevnetChain, startDevnet } from "../../src/devnet.js";
import type { L1Client } from "../../src/l1/l1-client.js";
import {
  blocksFromBatches,
  type BuiltBlock,
  checkHashes,
  L2BlockBuilder,
  readBatchesFromL1,
} from "../support/batcher-support.js";

const BOB: Address = "0x00000000000000000000000000000000000000b0";

function expectDecodedEqualsBuilt(decoded: ReturnType<typeof blocksFromBatches>, built: readonly BuiltBlock[]): void {
  const byTime = new Map(decoded.map((d) => [d.timestamp, d]));
  const checks = { parent: 0, epoch: 0 };
  for (const b of built) {
    const d = byTime.get(b.timestamp);
    expect(d, `block ${b.number} (ts ${b.timestamp}) missing from L1`).toBeDefined();
    if (d === undefined) continue;
    expect(d.epochNum).toBe(b.l1Origin.number);
    // Parent and epoch hashes: in full for singular batches, by their 20-byte checks for span batches.
    const c = checkHashes(d, b);
    checks.parent += c.parent;
    checks.epoch += c.epoch;
    expect(d.txs).toEqual(b.userTxs);
  }
  expect(checks.parent, "no parent hash was checked").toBeGreaterThan(0);
  expect(checks.epoch, "no epoch hash was checked").toBeGreaterThan(0);
}

async function buildSome(
  chain: DevnetChain,
  devnet: Devnet,
  builder: L2BlockBuilder,
  count: number,
): Promise<BuiltBlock[]> {
  const out: BuiltBlock[] = [];
  for (let i = 0; i < count; i++) {
    const txs: Hex[] = [];
    for (let k = 0; k < i % 3; k++) txs.push(await builder.signTransfer(BOB, BigInt(1000 + i)));
    if (i === 1) await devnet.deposit(chain.chainId, { to: BOB, mint: 10n ** 15n, value: 1n, gasLimit: 60_000n });
    out.push(await builder.buildNext(txs));
  }
  // The deposit lands once an L2 block adopts its L1 block as origin, which needs an L2 timestamp at or past that L1
  // block's: on a loaded machine the wall clock (L1 time) runs ahead of the blocks built here, so build on until it
  // is in (bounded: one origin step per block).
  const depositMade = count > 1;
  for (let extra = 0; depositMade && !out.some((b) => b.depositCount > 0) && extra < 200; extra++) {
    out.push(await builder.buildNext([]));
  }
  return out;
}

describe("batcher on anvil with simulated execution clients", () => {
  let dir: string;
  let devnet: Devnet;
  const builders = new Map<bigint, L2BlockBuilder>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-batcher-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 0,
      chains: [
        { chainId: 901, variant: "a", dataMode: "calldata", batchType: "singular" },
        { chainId: 902, variant: "b", dataMode: "blobs", batchType: "span" },
      ],
    });
    for (const c of devnet.chains) {
      builders.set(c.chainId, new L2BlockBuilder(c.rollupConfig, devnet.l1Node, c.el, c.jwtSecret));
    }
  });
  afterAll(async () => {
    await devnet?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("posts calldata singular batches (variant A) and blob span batches (variant B) that decode into the built blocks", async () => {
    for (const chain of devnet.chains) {
      const builder = builders.get(chain.chainId) as L2BlockBuilder;
      const built = await buildSome(chain, devnet, builder, 7);
      expect(built.some((b) => b.depositCount > 0)).toBe(true);
      expect(built.some((b) => b.userTxs.length > 0)).toBe(true);
      const stats = await chain.batcher.flush();
      expect(stats.confirmedThrough).toBe(built[built.length - 1]?.number);
      const head = await devnet.l1Node.anvil.blockNumber();
      const batches = await readBatchesFromL1(devnet.l1Node, chain.rollupConfig, devnet.l1.genesis.number, head);
      expect(batches.length).toBeGreaterThan(0);
      const isA = chain.variant === "a";
      for (const b of batches) {
        expect(b.source).toBe(isA ? "calldata" : "blob");
        expect(b.batch.kind).toBe(isA ? "singular" : "span");
      }
      expectDecodedEqualsBuilt(blocksFromBatches(batches), built);
    }
  }, 120_000);

  it("resubmits the channels an L1 reorg dropped", async () => {
    const chain = devnet.chain(901);
    const builder = builders.get(chain.chainId) as L2BlockBuilder;
    const built = await buildSome(chain, devnet, builder, 3);
    const before = chain.batcher.stats();
    await chain.batcher.flush();
    const posted = chain.batcher.submitted[chain.batcher.submitted.length - 1];
    const landed = posted?.l1Block?.number;
    expect(landed).toBeDefined();
    const head = await devnet.l1Node.anvil.blockNumber();
    // replace every block from the one holding the last batcher tx
    await devnet.l1Node.anvil.reorg(head - (landed as number) + 1);
    const stats = await chain.batcher.flush();
    expect(stats.resubmittedChannels).toBeGreaterThan(before.resubmittedChannels);
    expect(stats.confirmedThrough).toBe(built[built.length - 1]?.number);
    const newHead = await devnet.l1Node.anvil.blockNumber();
    const batches = await readBatchesFromL1(devnet.l1Node, chain.rollupConfig, devnet.l1.genesis.number, newHead);
    expectDecodedEqualsBuilt(blocksFromBatches(batches), [...builder.blocks]);
  });

  it("re-queues a channel whose transaction could not be sent and posts it on the next step", async () => {
    const chain = devnet.chain(901);
    const builder = builders.get(chain.chainId) as L2BlockBuilder;
    await buildSome(chain, devnet, builder, 2);
    const real = devnet.l1Node.client;
    let failures = 1;
    const flaky = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === "send") {
          return async (...args: Parameters<L1Client["send"]>) => {
            if (failures-- > 0) throw new Error("injected send failure");
            return target.send(...args);
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    // A second batcher for the same chain that starts from genesis: it posts every block again.
    const second = new Batcher({
      rollupConfig: chain.rollupConfig,
      l2RpcUrl: chain.el.httpUrl,
      l1: flaky,
      accountIndex: 1,
      mode: "calldata",
    });
    await expect(second.flush()).rejects.toThrow(/injected/);
    expect(second.stats().queued).toBe(builder.blocks.length);
    expect(second.submitted).toHaveLength(0);
    const stats = await second.flush();
    expect(stats.confirmedThrough).toBe(builder.blocks.at(-1)?.number);
    expect(second.submitted.length).toBeGreaterThan(0);
  });
});
