/**
 * The real derivation pipeline (frames → channel bank → batch queue → attributes, pre-Holocene here) and attributes
 * builder against an in-memory L1 with signed batcher transactions and fake execution clients: a verifier derives
 * exactly the sequencer's chain, a batch from an unauthorised sender is ignored, and the fork activation block
 * mid-chain carries the upgrade transactions.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../src/core/codec/hex.js";
import { severityOf, TemporaryError } from "../../../src/core/errors/supernode-error.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock, type Clock } from "../../../src/core/time/clock.js";
import type { L1BlockRef } from "../../../src/core/types/block-ref.js";
import { type Hash, type Hex, ZERO_HASH } from "../../../src/core/types/primitives.js";
import type { ChainNode } from "../../../src/node/chain-node.js";
import { createChainNode } from "../../../src/node/create.js";
import { l2RefFromPayload } from "../../../src/node/derivation/l2-block.js";
import type { BlockLabel, L1BlockInfo, L1Source, L1Transaction } from "../../../src/node/ports.js";
import { SINGULAR_BATCH_TYPE } from "../../../src/protocol/derive/batch.js";
import { encodeChannel, splitIntoFrames } from "../../../src/protocol/derive/channel-out.js";
import { encodeFrames } from "../../../src/protocol/derive/frame.js";
import { ecotoneUpgradeDeposits } from "../../../src/protocol/l2/upgrade-txs.js";
import { encodeDepositTxHex } from "../../../src/protocol/l2/deposit-tx.js";
import { L1DerivationPipeline } from "../../../src/node/derivation/pipeline.js";
import { FakeEngine, fakeAttributesBuilder, GENESIS_TIME, MemorySafeDb, testRollupConfig, waitFor } from "./fakes.js";

const BATCHER = privateKeyToAccount(`0x${"ab".repeat(32)}`);
const MALLORY = privateKeyToAccount(`0x${"cd".repeat(32)}`);
const h = (s: string): Hash => bytesToHex(keccak_256(new TextEncoder().encode(s)));

const cfg = testRollupConfig({
  genesis: {
    ...testRollupConfig().genesis,
    l1: { hash: h("mem-l1-0"), number: 0 },
    system_config: { ...testRollupConfig().genesis.system_config, batcherAddr: BATCHER.address.toLowerCase() as Hex },
  },
  canyon_time: 0,
  delta_time: 0,
  ecotone_time: GENESIS_TIME + 24,
  chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
});

class MemL1 implements L1Source {
  readonly blocks: { ref: L1BlockRef; txs: L1Transaction[] }[] = [];
  constructor() {
    this.push([]);
  }
  /** Appends a block; `branch` names the blocks an L1 reorg put in place of the first ones. */
  push(txs: L1Transaction[], branch = ""): void {
    const parent = this.blocks[this.blocks.length - 1];
    const number = parent === undefined ? 0 : parent.ref.number + 1;
    this.blocks.push({
      ref: {
        hash: h(`mem-l1-${number}${branch}`),
        number,
        parentHash: parent?.ref.hash ?? ZERO_HASH,
        timestamp: GENESIS_TIME + 6 * number,
      },
      txs,
    });
  }
  private get(hash: Hash) {
    const b = this.blocks.find((x) => x.ref.hash === hash);
    if (b === undefined) throw new TemporaryError("NOT_FOUND", "unknown L1 block");
    return b;
  }
  private info(ref: L1BlockRef): L1BlockInfo {
    return { ...ref, baseFeePerGas: 7n, mixHash: h(`mix-${ref.number}`), excessBlobGas: 0n };
  }
  getLabel(label: BlockLabel) {
    return label === "latest" ? this.blocks[this.blocks.length - 1]!.ref : this.blocks[0]!.ref;
  }
  async l1BlockRefByLabel(label: BlockLabel) {
    return this.getLabel(label);
  }
  async l1BlockRefByNumber(n: number) {
    const b = this.blocks[n];
    if (b === undefined) throw new TemporaryError("NOT_FOUND", "unknown L1 block");
    return b.ref;
  }
  async l1BlockRefByHash(hash: Hash) {
    return this.get(hash).ref;
  }
  async infoByHash(hash: Hash) {
    return this.info(this.get(hash).ref);
  }
  async infoAndTxsByHash(hash: Hash) {
    const b = this.get(hash);
    return { info: this.info(b.ref), txs: b.txs };
  }
  async fetchReceipts(hash: Hash) {
    return { info: this.info(this.get(hash).ref), receipts: [] };
  }
}

const running: ChainNode[] = [];
afterEach(async () => {
  for (const n of running.splice(0)) await n.stop();
});

async function node(l1: MemL1, engine: FakeEngine, sequencer: boolean, clock: Clock): Promise<ChainNode> {
  const n = await createChainNode(
    {
      rollup: cfg,
      engineKind: "variant_b",
      syncMode: "consensus-layer",
      sequencer: { enabled: sequencer, stopped: false, l1Confs: 0, maxSafeLag: 0, recoverMode: false },
      verifierL1Confs: 0,
      idlePollMs: 5,
    },
    { l1, engine, safeDb: new MemorySafeDb(), clock, logger: silentLogger },
  );
  await n.start();
  running.push(n);
  return n;
}

async function batcherTx(
  signer: typeof BATCHER,
  nonce: number,
  batches: { parentHash: Hash; epochNum: number; epochHash: Hash; timestamp: number; transactions: Uint8Array[] }[],
  tag: string,
): Promise<L1Transaction> {
  const data = encodeChannel(
    batches.map((b) => ({ type: SINGULAR_BATCH_TYPE, batch: b }) as const),
    { compression: "zlib" },
  );
  const [frame] = splitIntoFrames(bytesToHex(keccak_256(new TextEncoder().encode(tag)).subarray(0, 16)), data, 120_000);
  const input = bytesToHex(encodeFrames([frame!]));
  const raw = await signer.signTransaction({
    chainId: 900,
    type: "eip1559",
    nonce,
    to: cfg.batch_inbox_address,
    data: input,
    gas: 1_000_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1n,
  });
  return {
    hash: bytesToHex(keccak_256(hexToBytes(raw))),
    type: 2,
    from: signer.address.toLowerCase() as Hex,
    to: cfg.batch_inbox_address,
    input,
    raw,
  };
}

describe("L1 derivation pipeline (pre-Holocene channel bank + batch queue)", () => {
  it("derives the sequencer's chain, ignores an unauthorised batch and inserts the Ecotone upgrade txs", async () => {
    const refOf = (env: Parameters<typeof l2RefFromPayload>[1]) => l2RefFromPayload(cfg, env);
    const l1 = new MemL1();
    for (let i = 0; i < 8; i++) l1.push([]);
    // 1. Sequence 20 blocks (block time 2 s, L1 every 6 s) with the clock far ahead.
    const seqEngine = new FakeEngine(cfg, refOf);
    const future: Clock = { nowMs: () => (GENESIS_TIME + 40) * 1000, sleep: systemClock.sleep };
    const seq = await node(l1, seqEngine, true, future);
    await waitFor(() => seq.syncStatus().unsafe_l2.number >= 20);
    await seq.stop();
    const blocks = [];
    for (let n = 1; n <= 20; n++) {
      const env = (await seqEngine.payloadByNumber(n))!;
      const ref = refOf(env);
      blocks.push({
        parentHash: env.executionPayload.parentHash,
        epochNum: ref.l1origin.number,
        epochHash: ref.l1origin.hash,
        timestamp: ref.timestamp,
        transactions: [] as Uint8Array[],
      });
    }
    // 2. Mallory's forged batches (an extra tx in block 5) land first; the authorised batcher's after.
    const forged = blocks.map((b, i) => (i === 4 ? { ...b, transactions: [hexToBytes("0x02c0ffee")] } : b));
    l1.push([await batcherTx(MALLORY, 0, forged, "forged")]);
    l1.push([await batcherTx(BATCHER, 0, blocks, "real")]);
    // 3. A verifier with its own EL derives from L1 alone.
    const verEngine = new FakeEngine(cfg, refOf);
    const ver = await node(l1, verEngine, false, systemClock);
    await waitFor(() => ver.syncStatus().safe_l2.number >= 20);
    for (let n = 0; n <= 20; n++) expect(verEngine.canonical[n]).toBe(seqEngine.canonical[n]);
    const b5 = (await verEngine.payloadByNumber(5))!.executionPayload;
    expect(b5.transactions.every((t) => t.startsWith("0x7e"))).toBe(true);
    // Ecotone activates at genesis + 24 s = block 12: L1-info deposit, then the six upgrade deposits.
    const b12 = (await verEngine.payloadByNumber(12))!.executionPayload;
    expect(b12.timestamp).toBe(GENESIS_TIME + 24);
    const upgrades = ecotoneUpgradeDeposits().map((d) => encodeDepositTxHex(d));
    expect(b12.transactions.slice(1)).toEqual(upgrades);
    const b11 = (await verEngine.payloadByNumber(11))!.executionPayload;
    expect(b11.transactions).toHaveLength(1);
  });
});

describe("L1 derivation pipeline: an L1 reorg under an origin not read yet", () => {
  it("resets (as op-node's data sources do) instead of retrying a block that is gone for good", async () => {
    const l1 = new MemL1();
    l1.push([]);
    l1.push([]);
    const engine = new FakeEngine(cfg);
    const pipeline = new L1DerivationPipeline({
      cfg,
      l1,
      engine,
      builder: { ...fakeAttributesBuilder(cfg, l1), systemConfigOf: async () => cfg.genesis.system_config },
      refFromPayload: (env) => l2RefFromPayload(cfg, env),
      logger: silentLogger,
      l1Confs: 0,
    });
    const genesis = (await engine.l2BlockRefByNumber(0))!;
    while (pipeline.origin.number < 1) await pipeline.step(genesis);
    // L1 block 1 (the origin, its data not read yet) and 2 are replaced: by hash the origin is found no more.
    l1.blocks.splice(1);
    l1.push([], "-fork");
    l1.push([], "-fork");
    const err = await pipeline.step(genesis).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(severityOf(err)).toBe("reset");
    expect((err as { code?: string }).code).toBe("L1_ORIGIN_NOT_FOUND");
  });
});
