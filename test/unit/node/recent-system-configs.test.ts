/**
 * The attributes builder remembers the read-back SystemConfig of a bounded number of recent blocks: the next
 * block's parent always hits (no Engine API read), a block older than the bound is read from the execution client,
 * and the memory stays at the bound however many blocks are derived.
 */
import { describe, expect, it } from "vitest";
import type { BlockId, L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { FetchingAttributesBuilder } from "../../../src/node/derivation/attributes-builder.js";
import { RECENT_SYSTEM_CONFIGS, RecentSystemConfigs } from "../../../src/node/derivation/recent-system-configs.js";
import type { SystemConfig } from "../../../src/protocol/rollup-config.js";
import { FakeL1, h, testRollupConfig } from "./fakes.js";
import { transactionsHex } from "../../../src/protocol/l2/attributes.js";

const sys = (n: number) => ({ gasLimit: BigInt(n) }) as unknown as SystemConfig;

/** The ref of the block built on `parent` at `timestamp` with the prepared origin and sequence number. */
function childRef(parent: L2BlockRef, timestamp: number, l1origin: BlockId, sequenceNumber: number): L2BlockRef {
  return {
    hash: h(`l2-${parent.number + 1}`),
    number: parent.number + 1,
    parentHash: parent.hash,
    timestamp,
    l1origin: { hash: l1origin.hash, number: l1origin.number },
    sequenceNumber,
  };
}

/** The L2 genesis block of `cfg` as a block ref (the first parent of a derivation from genesis). */
function genesisRef(cfg: ReturnType<typeof testRollupConfig>): L2BlockRef {
  const g = cfg.genesis;
  return {
    hash: g.l2.hash,
    number: g.l2.number,
    parentHash: `0x${"00".repeat(32)}`,
    timestamp: g.l2_time,
    l1origin: g.l1,
    sequenceNumber: 0,
  };
}

describe("RecentSystemConfigs", () => {
  it("holds at most its capacity, newest entries kept, oldest dropped", () => {
    const ring = new RecentSystemConfigs(8);
    for (let n = 1; n <= 100; n++) {
      ring.set(h(`p${n}`), h(`o${n >> 2}`), n, sys(n));
      expect(ring.size).toBe(Math.min(n, 8));
      // The entry just written is found at once, with its value.
      expect(ring.get(h(`p${n}`), h(`o${n >> 2}`), n)?.gasLimit).toBe(BigInt(n));
    }
    for (let n = 93; n <= 100; n++) expect(ring.get(h(`p${n}`), h(`o${n >> 2}`), n)?.gasLimit).toBe(BigInt(n));
    for (let n = 1; n <= 92; n++) expect(ring.get(h(`p${n}`), h(`o${n >> 2}`), n)).toBeUndefined();
  });

  it("matches on every part of the key and overwrites an entry written again", () => {
    const ring = new RecentSystemConfigs(4);
    ring.set(h("p"), h("o"), 7, sys(1));
    expect(ring.get(h("q"), h("o"), 7)).toBeUndefined();
    expect(ring.get(h("p"), h("x"), 7)).toBeUndefined();
    expect(ring.get(h("p"), h("o"), 8)).toBeUndefined();
    ring.set(h("p"), h("o"), 7, sys(2));
    expect(ring.size).toBe(1);
    expect(ring.get(h("p"), h("o"), 7)?.gasLimit).toBe(2n);
  });

  it("refuses a capacity that is not a positive count", () => {
    expect(() => new RecentSystemConfigs(0)).toThrow(RangeError);
    expect(() => new RecentSystemConfigs(1.5)).toThrow(RangeError);
  });
});

describe("FetchingAttributesBuilder's SystemConfig memory", () => {
  const cfg = testRollupConfig();

  /** Derives `blocks` blocks on genesis (one epoch: the genesis origin); each block's ref is made up from its attributes. */
  async function derive(blocks: number, recent?: number) {
    const reads: Hash[] = [];
    const engine = {
      async payloadByHash(hash: Hash) {
        reads.push(hash);
        return undefined;
      },
    };
    const builder = new FetchingAttributesBuilder(cfg, new FakeL1(3), engine as never, undefined, {}, recent);
    let parent = genesisRef(cfg);
    const refs: L2BlockRef[] = [];
    const configs: SystemConfig[] = [];
    for (let k = 0; k < blocks; k++) {
      // Each prepare reads its parent's config: from the memory (or genesis), never from the engine.
      const { attributes, l1origin, sequenceNumber } = await builder.prepare(parent, cfg.genesis.l1);
      parent = childRef(parent, attributes.fields.timestamp, l1origin, sequenceNumber);
      refs.push(parent);
      configs.push(await builder.systemConfigOf(parent));
    }
    return { builder, refs, configs, reads };
  }

  it("finds the parent of every next block without reading the engine, and forgets blocks past the bound", async () => {
    const { builder, refs, configs, reads } = await derive(200);
    expect(reads).toEqual([]);
    // Every block read back with the genesis config's values (no SystemConfig update in this chain).
    for (const c of configs) expect(c).toEqual(configs[0]);
    expect(configs[0]!.batcherAddr).toBe(cfg.genesis.system_config.batcherAddr);
    // The last RECENT_SYSTEM_CONFIGS blocks are remembered …
    for (const ref of refs.slice(-RECENT_SYSTEM_CONFIGS)) expect(await builder.systemConfigOf(ref)).toEqual(configs[0]);
    expect(reads).toEqual([]);
    // … an older one is read from the execution client (absent there: a reset error).
    const old = refs[refs.length - RECENT_SYSTEM_CONFIGS - 1]!;
    await expect(builder.systemConfigOf(old)).rejects.toMatchObject({ code: "UNKNOWN_L2_PARENT" });
    expect(reads).toEqual([old.hash]);
  });

  it("keeps the bound it is given", async () => {
    const { builder, refs, reads } = await derive(20, 4);
    for (const ref of refs.slice(-4)) await builder.systemConfigOf(ref);
    expect(reads).toEqual([]);
    await expect(builder.systemConfigOf(refs[15]!)).rejects.toMatchObject({ code: "UNKNOWN_L2_PARENT" });
    expect(reads).toEqual([refs[15]!.hash]);
  });
});

describe("FetchingAttributesBuilder's L1 reads", () => {
  const cfg = testRollupConfig();

  /** An L1 that counts header reads by hash. */
  class CountingL1 extends FakeL1 {
    headerReads: Hash[] = [];
    override async infoByHash(hash: Hash) {
      this.headerReads.push(hash);
      return super.infoByHash(hash);
    }
  }

  /** Derives `perEpoch` blocks in each of `epochs` epochs from genesis, each on the one before. */
  async function derive(l1: CountingL1, builder: FetchingAttributesBuilder, epochs: number, perEpoch: number) {
    let parent = genesisRef(cfg);
    const out: { parent: L2BlockRef; transactions: readonly string[]; origin: Hash }[] = [];
    for (let e = 0; e < epochs; e++) {
      const epoch = l1.blocks[e]!;
      for (let k = 0; k < perEpoch; k++) {
        const { attributes, l1origin, sequenceNumber } = await builder.prepare(parent, epoch);
        out.push({ parent, transactions: transactionsHex(attributes), origin: l1origin.hash });
        parent = childRef(parent, attributes.fields.timestamp, l1origin, sequenceNumber);
      }
    }
    return out;
  }

  it("reads an epoch's header once: the blocks after its first take the header read for the one before", async () => {
    const l1 = new CountingL1(6);
    const builder = new FetchingAttributesBuilder(cfg, l1, {} as never);
    const blocks = await derive(l1, builder, 4, 3);
    // One read per epoch (epoch 0 starts on genesis, the same origin; epochs 1–3 read theirs with their receipts),
    // not one per block.
    expect(l1.headerReads).toEqual(l1.blocks.slice(0, 4).map((b) => b.hash));
    // The same blocks as a builder that reads the header for every block (a new builder each block, its parent's
    // SystemConfig handed over): the L1-info deposit carries each epoch's own origin.
    for (const [i, b] of blocks.entries()) {
      expect(b.origin).toBe(l1.blocks[Math.floor(i / 3)]!.hash);
      const fresh = new FetchingAttributesBuilder(cfg, l1, {} as never);
      fresh.systemConfigOf = async () => cfg.genesis.system_config;
      const again = await fresh.prepare(b.parent, { hash: b.origin, number: Math.floor(i / 3) });
      expect(transactionsHex(again.attributes)).toEqual(b.transactions);
    }
  });

  it("reads the header of an epoch it did not see start", async () => {
    const l1 = new CountingL1(3);
    const builder = new FetchingAttributesBuilder(cfg, l1, {} as never);
    await derive(l1, builder, 2, 2);
    const before = l1.headerReads.length;
    // Another builder picks up in the middle of epoch 1 (after a restart): it reads epoch 1's header once.
    const other = new FetchingAttributesBuilder(cfg, l1, {} as never);
    const parent: L2BlockRef = {
      hash: h("l2-mid"),
      number: 0,
      parentHash: h("l2-genesis"),
      timestamp: cfg.genesis.l2_time + 2,
      l1origin: { hash: l1.blocks[1]!.hash, number: 1 },
      sequenceNumber: 0,
    };
    other.systemConfigOf = async () => cfg.genesis.system_config;
    await other.prepare(parent, l1.blocks[1]!);
    expect(l1.headerReads.slice(before)).toEqual([l1.blocks[1]!.hash]);
  });
});
