/**
 * End to end on the devnet: a sequencing node (its own simulated EL) builds blocks, the devnet batcher posts them
 * to anvil as calldata (singular batches), and a verifying node with its own simulated EL derives the same chain
 * from L1 alone; `stack_outputAtBlock` on both nodes matches an output root computed here from the EL's block.
 */
import { concat, keccak256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hash } from "../../../src/core/types/primitives.js";
import { createChainRpcMethods } from "../../../src/rpc/namespaces/stack.js";
import { NodePair, waitFor } from "./node-support.js";

const MESSAGE_PASSER = "0x4200000000000000000000000000000000000016";

describe("sequencer + verifier on the devnet (calldata, singular batches)", () => {
  let pair: NodePair;

  beforeAll(async () => {
    pair = await NodePair.start({ chainId: 901, variant: "a", dataMode: "calldata", batchType: "singular" });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

  it("the verifier derives the sequencer's blocks from L1 and reaches the same safe head", async () => {
    const n = await pair.safeMatchingSequencer(4, 30_000);
    // every block up to the safe head is the sequencer's block
    expect(await pair.differingBlocks(n)).toEqual([]);
    const target = pair.ver.node.syncStatus().safe_l2;
    expect(target.number).toBeGreaterThanOrEqual(n);
    const sequenced = await pair.seq.engine.l2BlockRefByNumber(n);
    expect(sequenced?.l1origin).toEqual((await pair.ver.engine.l2BlockRefByNumber(n))?.l1origin);
    // The sequencer consolidates its own blocks against the batches on L1.
    await pair.sequencerSafe(n, 20_000);
    expect((await pair.seq.engine.l2BlockRefByNumber(n))?.hash).toBe(sequenced?.hash);
  }, 60_000);

  it("stack_outputAtBlock on both nodes matches an independent computation", async () => {
    const n = await pair.safeMatchingSequencer(1, 20_000);
    const table = createChainRpcMethods(pair.ver.node, { version: "test" });
    const res = (await table.get("stack_outputAtBlock")!.handler([`0x${n.toString(16)}`], {})) as string[];
    // version 0: keccak256(version ‖ state root ‖ message passer storage root ‖ block hash)
    const p = (await pair.seq.engine.payloadByNumber(n))!.executionPayload;
    const proof = await pair.seq.engine.getProof(MESSAGE_PASSER, [], p.blockHash);
    if (p.withdrawalsRoot !== undefined && p.withdrawalsRoot !== null)
      expect(p.withdrawalsRoot).toBe(proof.storageHash);
    const zero: Hash = `0x${"00".repeat(32)}`;
    const expected = keccak256(concat([zero, p.stateRoot, proof.storageHash, p.blockHash]));
    expect(res).toEqual([zero, expected]);
    const seqTable = createChainRpcMethods(pair.seq.node, { version: "test" });
    expect(await seqTable.get("stack_outputAtBlock")!.handler([`0x${n.toString(16)}`], {})).toEqual(res);
  }, 30_000);

  it("records the SafeDB and answers stack_safeHeadAtL1Block", async () => {
    await waitFor(() => pair.ver.node.syncStatus().current_l1.number > 0, 10_000, "a derivation origin");
    const s = pair.ver.node.syncStatus();
    const r = await pair.ver.node.safeHeadAtL1Block(s.current_l1.number);
    expect(r.safeHead.number).toBeGreaterThan(0);
    expect(r.l1Block.number).toBeLessThanOrEqual(s.current_l1.number);
    // the entry's safe head is a block of the verifier's chain
    expect((await pair.ver.engine.l2BlockRefByNumber(r.safeHead.number))?.hash).toBe(r.safeHead.hash);
  });
});
