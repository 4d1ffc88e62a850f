/**
 * The Jovian activation-block rule end to end: a misbehaving sequencer (blocks built straight through the Engine API)
 * puts a user transaction into the Jovian activation block; the batcher posts every block as a singular batch. A
 * verifying node must derive blocks 1 and 2 as built, drop the batch of the activation block (and, Holocene, the
 * rest of its channel), and once the sequencing window of that block's epoch has passed, derive the activation
 * block from an empty batch: the L1-info deposit and exactly the five Jovian upgrade deposits.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Hex, keccak256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "supernode-devnet";
import type { SimulatedExecutionClient } from "supernode-devnet/el";
import type { L1Client } from "../../../src/io/l1/l1-client.js";
import type { Fork } from "../../../src/protocol/rollup-config.js";
import { type BuiltBlock, L2BlockBuilder } from "supernode-devnet/test-support/batcher-support";
import {
  depositTxBytes,
  expectedUpgradeTxs,
  getBlock,
  type RpcBlock,
  upgradeTxVectorsDir,
  waitFor,
} from "./fork-support.js";
import { sharedL1, startNode, startVerifierEl, type TestNode } from "./node-support.js";

const CHAIN_ID = 903;
const JOVIAN = 3;
const OFFSETS: Partial<Record<Fork, number>> = {
  regolith: 0,
  canyon: 0,
  delta: 0,
  ecotone: 0,
  fjord: 0,
  granite: 0,
  holocene: 0,
  isthmus: 0,
  jovian: JOVIAN,
};
const SEQ_WINDOW = 6;
const BLOCKS = 6;
const DAVE: Hex = "0x00000000000000000000000000000000000000d0";
const L1_INFO_DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";

describe("Jovian activation block with a user transaction: the verifier drops it and derives deposits only", () => {
  let dir: string;
  let devnet: Devnet;
  let l1: L1Client | undefined;
  let verifierEl: SimulatedExecutionClient | undefined;
  let ver: TestNode | undefined;
  const built: BuiltBlock[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-jovian-rule-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 1,
      // the L1 stays at its genesis until the batcher starts, so batches land within the (short) sequencing
      // window however slowly the setup runs
      holdL1AtGenesis: true,
      l2BlockTimeSec: 1,
      batcherPollIntervalMs: 200,
      chains: [
        {
          chainId: CHAIN_ID,
          variant: "a",
          dataMode: "calldata",
          batchType: "singular",
          forkOffsets: OFFSETS,
          seqWindowSize: SEQ_WINDOW,
        },
      ],
    });
    const chain = devnet.chain(CHAIN_ID);
    const builder = new L2BlockBuilder(chain.rollupConfig, devnet.l1Node, chain.el, chain.jwtSecret);
    // one user transaction in every block, the Jovian activation block included
    for (let i = 1; i <= BLOCKS; i++) built.push(await builder.buildNext([await builder.signTransfer(DAVE, 1n)]));
    l1 = sharedL1(devnet);
    verifierEl = await startVerifierEl(devnet, chain);
    ver = await startNode({ chain, l1, authUrl: verifierEl.authUrl, dataDir: join(dir, "ver"), sequencer: false });
    await devnet.resumeL1Mining();
    devnet.startBatchers();
  }, 60_000);

  afterAll(async () => {
    await ver?.close();
    await verifierEl?.stop();
    await l1?.stop();
    await devnet?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("blocks before the activation are derived as built; the activation block from an empty batch", async () => {
    const g = devnet.chain(CHAIN_ID).rollupConfig.genesis.l2_time;
    const activation = built[JOVIAN - 1]!;
    expect(activation.timestamp - g).toBe(JOVIAN);
    expect(activation.userTxs).toHaveLength(1);
    const v = ver as TestNode;
    const url = (verifierEl as SimulatedExecutionClient).httpUrl;
    await waitFor(
      async () => {
        const ref = v.node.syncStatus().safe_l2;
        return ref.number > JOVIAN && (await getBlock(url, ref.number))?.hash === ref.hash;
      },
      40_000,
      `verifier safe head past the Jovian activation block ${JOVIAN}`,
    );
    const blocks: RpcBlock[] = [];
    for (let n = 1; n <= JOVIAN + 1; n++) blocks.push((await getBlock(url, n)) as RpcBlock);
    // before the activation: the batches were valid and are derived as built, user transactions included
    for (let n = 1; n < JOVIAN; n++) {
      expect(blocks[n - 1]?.hash, `block ${n}`).toBe(built[n - 1]?.hash);
      expect(blocks[n - 1]?.transactions.some((t) => t.type !== "0x7e")).toBe(true);
    }
    // the activation block: the batch with a user transaction was dropped, so it comes from an empty batch
    const derived = blocks[JOVIAN - 1]!;
    expect(derived.hash).not.toBe(activation.hash);
    const jovian = expectedUpgradeTxs(upgradeTxVectorsDir()).jovian;
    expect(derived.transactions).toHaveLength(1 + jovian.length);
    expect(derived.transactions[0]?.from).toBe(L1_INFO_DEPOSITOR);
    derived.transactions.slice(1).forEach((tx, i) => {
      expect(depositTxBytes(tx), `upgrade deposit ${i}`).toBe(jovian[i]);
      expect(tx.hash).toBe(keccak256(jovian[i]!));
    });
    // and the chain goes on from there with empty batches (the later batches build on the dropped block)
    const next = blocks[JOVIAN]!;
    expect(next.parentHash).toBe(derived.hash);
    expect(next.transactions.every((t) => t.type === "0x7e")).toBe(true);
  }, 50_000);
});
