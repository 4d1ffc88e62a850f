/**
 * EngineRpcClient's walk back along parent hashes (finding the heads after a restart) against the simulated execution
 * client: the read-ahead asks for each block's header and its transaction 0 (the L1-info deposit) only, and every
 * ref it serves equals the ref read on its own with full transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import type { SimulatedExecutionClient } from "supernode-devnet/el";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import {
  GENESIS_TIME,
  SECRET,
  buildAndSeal,
  jovianAttrs,
  l1InfoDeposit,
  l1InfoJovian,
  startEl,
} from "supernode-devnet/test-support/el-support";
import { EVERY_FORK_AT_GENESIS } from "../../support/fork-times.js";

const BLOCKS = 90;

describe("EngineRpcClient walk read-ahead against the simulated EL", () => {
  let el: SimulatedExecutionClient;
  beforeAll(async () => {
    el = await startEl({ variant: "a" });
    for (let n = 1; n <= BLOCKS; n++) {
      const ts = GENESIS_TIME + 2 * n;
      const seq = n % 6;
      const info = l1InfoJovian({ number: 100 + Math.floor(n / 6), time: ts - 1 - seq * 2, seq });
      await buildAndSeal(el, jovianAttrs(ts, [l1InfoDeposit(info, n)]));
    }
  }, 60_000);
  afterAll(async () => {
    await el?.stop();
  });

  it("serves the walk from batched header + transaction 0 reads, refs equal to the full-block reads", async () => {
    const cfg = {
      genesis: { l1: { hash: `0x${"00".repeat(32)}`, number: 0 }, l2: { hash: el.genesisHash, number: 0 } },
      block_time: 2,
      ...EVERY_FORK_AT_GENESIS,
    } as unknown as RollupConfig;
    const calls: string[] = [];
    const engine = EngineRpcClient.create(
      { url: el.authUrl, jwtSecret: SECRET, kind: "variant_a", rollupConfig: cfg },
      { clock: systemClock, logger: silentLogger, onRequest: (e) => calls.push(e.method) },
    );
    const expected: L2BlockRef[] = [];
    for (let n = 0; n <= BLOCKS; n++) expected.push((await engine.l2BlockRefByNumber(n))!);
    expect(expected[BLOCKS]?.sequenceNumber).toBe(BLOCKS % 6);
    calls.length = 0;

    const walked: L2BlockRef[] = [];
    let hash: Hash = expected[BLOCKS]!.hash;
    for (let n = BLOCKS; n >= 0; n--) {
      const ref = await engine.l2BlockRefByHash(hash);
      if (ref === undefined) throw new Error(`walk: block ${n} not found`);
      walked.push(ref);
      hash = ref.parentHash;
    }
    expect(walked.reverse()).toEqual(expected);
    // Two single reads start the walk; the rest came from the read-ahead, two calls per block, no full block.
    expect(calls.filter((m) => m === "eth_getBlockByHash").length).toBe(2);
    expect(calls.filter((m) => m === "eth_getTransactionByBlockNumberAndIndex").length).toBe(BLOCKS - 1);
    expect(calls.filter((m) => m === "eth_getBlockByNumber").length).toBe(BLOCKS - 1);
  });
});
