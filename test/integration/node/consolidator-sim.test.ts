/**
 * Consolidation against the simulated execution client through the real EngineRpcClient: blocks the EL already has are
 * read ahead as headers with transaction hashes (batched `eth_getBlockByNumber(n, false)`, nothing else per block),
 * a match yields the ref the EL's full block gives, and any difference (a field, one transaction's bytes, a denied
 * block) is decided on a fresh read of the whole block and leaves the block to be built.
 */
import { hexToBytes } from "../../../src/core/codec/hex.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import type { SimulatedExecutionClient } from "supernode-devnet/el";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import { Consolidator } from "../../../src/node/engine/consolidator.js";
import type { DerivedAttributes } from "../../../src/node/engine/derived-attributes.js";
import type { PayloadAttributes } from "../../../src/node/ports.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import {
  FEE_RECIPIENT,
  GENESIS_TIME,
  SECRET,
  buildAndSeal,
  l1InfoDeposit,
  l1InfoJovian,
  signTransfer,
  startEl,
} from "supernode-devnet/test-support/el-support";
import { EVERY_FORK_AT_GENESIS } from "../../support/fork-times.js";
import { attributesFromHex, transactionsHex } from "../../../src/protocol/l2/attributes.js";

const BLOCKS = 40;
const L1_HASH: Hash = `0x${"11".repeat(32)}`;
const EIP1559: Hex = "0x000000fa00000006";

/** Block n's attributes: the L1-info deposit (origin 100 + ⌊n/6⌋, sequence number n mod 6) and two transfers. */
async function attributesOf(
  n: number,
  nonce: number,
): Promise<{ attrs: PayloadAttributes; origin: number; seq: number }> {
  const ts = GENESIS_TIME + 2 * n;
  const seq = n % 6;
  const origin = 100 + Math.floor(n / 6);
  const info = l1InfoJovian({ number: origin, time: ts - 1 - seq * 2, seq });
  const txs = [l1InfoDeposit(info, n), await signTransfer({ nonce }), await signTransfer({ nonce: nonce + 1 })];
  const attrs: PayloadAttributes = attributesFromHex(
    {
      timestamp: ts,
      prevRandao: `0x${"ab".repeat(32)}`,
      suggestedFeeRecipient: FEE_RECIPIENT,
      withdrawals: [],
      parentBeaconBlockRoot: `0x${"cd".repeat(32)}`,
      noTxPool: true,
      gasLimit: 30_000_000n,
      eip1559Params: EIP1559,
      minBaseFee: 0n,
    },
    txs,
  );
  return { attrs, origin, seq };
}

const asJson = (a: PayloadAttributes): Record<string, unknown> => ({
  timestamp: `0x${a.fields.timestamp.toString(16)}`,
  prevRandao: a.fields.prevRandao,
  suggestedFeeRecipient: a.fields.suggestedFeeRecipient,
  withdrawals: [],
  parentBeaconBlockRoot: a.fields.parentBeaconBlockRoot,
  transactions: transactionsHex(a),
  noTxPool: true,
  gasLimit: `0x${a.fields.gasLimit.toString(16)}`,
  eip1559Params: a.fields.eip1559Params,
  minBaseFee: 0,
});

describe("Consolidator against the simulated EL (real EngineRpcClient)", () => {
  let el: SimulatedExecutionClient;
  const derived: { attrs: PayloadAttributes; origin: number; seq: number }[] = [];
  let cfg: RollupConfig;

  beforeAll(async () => {
    el = await startEl({ variant: "a" });
    for (let n = 1; n <= BLOCKS; n++) {
      const d = await attributesOf(n, 2 * (n - 1));
      await buildAndSeal(el, asJson(d.attrs));
      derived.push(d);
    }
    cfg = {
      genesis: {
        l1: { hash: `0x${"00".repeat(32)}`, number: 0 },
        l2: { hash: el.genesisHash, number: 0 },
        l2_time: GENESIS_TIME,
      },
      block_time: 2,
      ...EVERY_FORK_AT_GENESIS,
    } as unknown as RollupConfig;
  }, 60_000);
  afterAll(async () => {
    await el?.stop();
  });

  function setup(isDenied?: (height: number, hash: Hash) => boolean) {
    const calls: string[] = [];
    const engine = EngineRpcClient.create(
      { url: el.authUrl, jwtSecret: SECRET, kind: "variant_a", rollupConfig: cfg },
      { clock: systemClock, logger: silentLogger, onRequest: (e) => calls.push(e.method) },
    );
    // The real client, with its whole-block reads counted.
    let fullReads = 0;
    const payloadByNumber = engine.payloadByNumber.bind(engine);
    engine.payloadByNumber = (n: number) => {
      fullReads++;
      return payloadByNumber(n);
    };
    const warnings: unknown[] = [];
    const logger = { ...silentLogger, warn: (o: unknown) => void warnings.push(o) } as typeof silentLogger;
    const consolidator = new Consolidator({
      engine,
      cfg,
      logger,
      refFromPayload: () => {
        throw new Error("refFromPayload: a header match must not need the payload");
      },
      isDenied,
      timed: (_m, fn) => fn(),
    });
    return { engine, consolidator, calls, fullReads: () => fullReads, warnings };
  }

  const derivedAt = (n: number, parent: L2BlockRef, attrs = derived[n - 1]!.attrs): DerivedAttributes => ({
    attributes: attrs,
    parent,
    l1origin: { hash: L1_HASH, number: derived[n - 1]!.origin },
    sequenceNumber: derived[n - 1]!.seq,
    concluding: true,
    derivedFrom: { hash: L1_HASH, number: 1, parentHash: L1_HASH, timestamp: 0 },
  });

  it("consolidates a run of blocks from batched header reads: the refs the EL's full blocks give", async () => {
    const { engine, consolidator, calls, fullReads } = setup();
    const expected: L2BlockRef[] = [];
    for (let n = 0; n <= BLOCKS; n++) expected.push((await engine.l2BlockRefByNumber(n))!);
    calls.length = 0;
    let parent = expected[0]!;
    for (let n = 1; n <= BLOCKS; n++) {
      const ref = await consolidator.consolidate(derivedAt(n, parent), parent, BLOCKS);
      expect(ref).toEqual(expected[n]);
      parent = ref!;
    }
    expect(fullReads()).toBe(0);
    // Header reads only: one batch of up to 32 blocks, then whole batches ahead; never a transaction read.
    expect(new Set(calls)).toEqual(new Set(["eth_getBlockByNumber"]));
    expect(calls.length).toBe(BLOCKS);
  });

  it("a different field or transaction is decided on the whole block and leaves the block to be built", async () => {
    const { engine, consolidator, fullReads, warnings } = setup();
    const parent4 = (await engine.l2BlockRefByNumber(4))!;
    const a5 = derived[4]!.attrs;
    const otherRandao = { ...a5, fields: { ...a5.fields, prevRandao: `0x${"ac".repeat(32)}` as Hash } };
    expect(await consolidator.consolidate(derivedAt(5, parent4, otherRandao), parent4, BLOCKS)).toBeUndefined();
    expect(fullReads()).toBe(1);
    const otherTx = {
      ...a5,
      txBytes: [a5.txBytes[0]!, a5.txBytes[1]!, hexToBytes(await signTransfer({ nonce: 9, value: 7n }))],
    };
    expect(await consolidator.consolidate(derivedAt(5, parent4, otherTx), parent4, BLOCKS)).toBeUndefined();
    expect(fullReads()).toBe(2);
    expect(warnings).toHaveLength(2);
    // The same attributes still match afterwards (the look-ahead was dropped and is read again).
    expect(await consolidator.consolidate(derivedAt(5, parent4), parent4, BLOCKS)).toEqual(
      await engine.l2BlockRefByNumber(5),
    );
  });

  it("a denied block never consolidates", async () => {
    const denied = new Set<number>([3]);
    const { engine, consolidator } = setup((height) => denied.has(height));
    const parent2 = (await engine.l2BlockRefByNumber(2))!;
    expect(await consolidator.consolidate(derivedAt(3, parent2), parent2, BLOCKS)).toBeUndefined();
  });

  it("no block at that height: nothing to consolidate", async () => {
    const { engine, consolidator, fullReads } = setup();
    const head = (await engine.l2BlockRefByNumber(BLOCKS))!;
    const next = await attributesOf(BLOCKS + 1, 2 * BLOCKS);
    derived.push(next);
    expect(await consolidator.consolidate(derivedAt(BLOCKS + 1, head), head, BLOCKS + 1)).toBeUndefined();
    expect(fullReads()).toBe(0);
  });
});
