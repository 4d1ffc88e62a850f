/**
 * Devnet end to end with span batches: an L1 reorg (`anvil_reorg`) that drops batcher transactions rolls
 * the verifier's safe head back, the batcher posts the lost blocks again and both nodes re-derive past the reorg
 * point on the sequencer's chain; a restarted verifier resumes from its SafeDB and EL without re-deriving from
 * genesis.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LogLine, loggedNumber, NodePair, recordingLogger, traceLogger, waitFor } from "./node-support.js";

const RESET = "reset: found L2 heads";
/** The pipeline's trace line for a batch turned into payload attributes (`parent`: the pending safe head). */
const ACCEPTED = "batch accepted";

describe("span batches (calldata): L1 reorg and restart", () => {
  let pair: NodePair;
  const logs: LogLine[] = [];

  beforeAll(async () => {
    pair = await NodePair.start({
      chainId: 902,
      variant: "b",
      dataMode: "calldata",
      batchType: "span",
      verifierLogger: recordingLogger(logs),
      // L1 finalized = head − 16: the reorg below stays clear of blocks L1 calls final
      l1SlotsInAnEpoch: 8,
    });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

  let lostSafeHead = 0;

  it("derives the sequencer's chain from span batches", async () => {
    const n = await pair.safeMatchingSequencer(4, 40_000);
    expect(await pair.differingBlocks(n)).toEqual([]);
    await waitFor(
      async () => (await pair.ver.safeDb.entries()).some((e) => e.safeHead.number >= 4),
      20_000,
      "a SafeDB entry with safe head ≥ 4",
    );
  }, 60_000);

  it("an L1 reorg is detected, rolls the safe head back and truncates the SafeDB", async () => {
    const anvil = pair.devnet.l1Node.anvil;
    const entries = await pair.ver.safeDb.entries();
    const entry = entries[entries.length - 1]!;
    expect(entry.safeHead.number).toBeGreaterThan(0);
    const finalized = Number(BigInt((await anvil.getBlock("finalized")).number));
    expect(entry.l1Block.number).toBeGreaterThan(finalized);
    // Reorg out everything from the L1 block that made the current safe head safe (its batch is dropped). Anvil
    // replaces the newest `depth` blocks: if it mined one between reading the head and the reorg, that block is
    // not reached, so reorg again until it is gone.
    let from = logs.length;
    for (let i = 0; i < 3 && (await anvil.getBlock(entry.l1Block.number)).hash === entry.l1Block.hash; i++) {
      const head = Number(BigInt((await anvil.getBlock("latest")).number));
      traceLogger("test").info({ head, depth: head - entry.l1Block.number + 1, entry, finalized }, "reorg");
      from = logs.length;
      await anvil.reorg(head - entry.l1Block.number + 1);
    }
    expect((await anvil.getBlock(entry.l1Block.number)).hash).not.toBe(entry.l1Block.hash);
    const reset = () => logs.slice(from).find((l) => l.msg === RESET);
    await waitFor(() => reset() !== undefined, 30_000, "the verifier's reset after the reorg");
    // The safe head derived from the dropped L1 block is no longer safe.
    expect(loggedNumber(reset()!.obj.safe)).toBeLessThan(entry.safeHead.number);
    // Every SafeDB entry left is canonical on the new L1 branch (entries written since are derived from it).
    const canonical = async (): Promise<boolean> => {
      for (const e of await pair.ver.safeDb.entries()) {
        if ((await anvil.getBlock(e.l1Block.number)).hash !== e.l1Block.hash) return false;
      }
      return true;
    };
    await waitFor(canonical, 10_000, "SafeDB truncated to the canonical L1 branch");
    expect((await pair.ver.safeDb.entries()).some((e) => e.l1Block.hash === entry.l1Block.hash)).toBe(false);
    lostSafeHead = entry.safeHead.number;
  }, 60_000);

  it("both nodes re-derive past the reorg point after the batcher resubmits", async () => {
    expect(lostSafeHead).toBeGreaterThan(0);
    const past = lostSafeHead + 1;
    const n = await pair.safeMatchingSequencer(past, 45_000);
    await pair.sequencerSafe(past, 45_000);
    expect(pair.chain.batcher.stats().resubmittedChannels).toBeGreaterThan(0);
    expect(n).toBeGreaterThan(lostSafeHead);
    expect(await pair.differingBlocks(n)).toEqual([]);
  }, 90_000);

  it("a restarted verifier resumes from its SafeDB and EL without re-deriving from genesis", async () => {
    const before = pair.ver.node.syncStatus().safe_l2;
    expect(before.number).toBeGreaterThan(0);
    const restartLogs: LogLine[] = [];
    await pair.restartVerifier(recordingLogger(restartLogs));
    await waitFor(() => restartLogs.some((l) => l.msg === RESET), 20_000, "the restarted verifier's reset");
    const start = restartLogs.find((l) => l.msg === RESET)!;
    expect(start.obj.reason).toBe("startup");
    const resumed = loggedNumber(start.obj.safe);
    expect(resumed).toBeGreaterThan(0);
    expect(resumed).toBeLessThanOrEqual(before.number);
    // It goes on deriving new blocks on the sequencer's chain ...
    const n = await pair.safeMatchingSequencer(resumed + 1, 30_000);
    expect(await pair.differingBlocks(n)).toEqual([]);
    // ... and every batch it accepted since the restart builds on the resumed safe head or later: nothing at or
    // below it (back to genesis) was derived again.
    const parents = restartLogs.filter((l) => l.msg === ACCEPTED).map((l) => l.obj.parent as number);
    expect(parents.length).toBeGreaterThan(0);
    expect(Math.min(...parents)).toBeGreaterThanOrEqual(resumed);
  }, 60_000);
});
