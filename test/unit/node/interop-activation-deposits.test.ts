/**
 * The derivation fix: the Interop activation block deploys the CrossL2Inbox (two extra upgrade deposits) exactly
 * when the dependency set has more than one chain, with op-node's bytes.
 */
import { describe, expect, it } from "vitest";
import { FetchingAttributesBuilder } from "../../../src/node/derivation/attributes-builder.js";
import { conformanceAvailable, readConformance } from "../../conformance/conformance-dir.js";
import { EVERY_FORK_AT_GENESIS } from "../../support/fork-times.js";
import { FakeEngine, FakeL1, GENESIS_TIME, testRollupConfig } from "./fakes.js";

const cfg = testRollupConfig({
  ...EVERY_FORK_AT_GENESIS,
  lagoon_time: GENESIS_TIME + 2,
});
const vector = (name: string) =>
  `0x${readConformance(`upgrade-txs/${name}.hex`).trim().replace(/^0x/, "").toLowerCase()}`;

async function activationTxs(dependencySetSize?: number): Promise<string[]> {
  const l1 = new FakeL1(3);
  const builder = new FetchingAttributesBuilder(
    cfg,
    l1,
    new FakeEngine(cfg) as never,
    undefined,
    ...(dependencySetSize === undefined ? [] : [dependencySetSize]),
  );
  const g = cfg.genesis;
  const parent = {
    hash: g.l2.hash,
    number: g.l2.number,
    parentHash: `0x${"00".repeat(32)}` as const,
    timestamp: g.l2_time,
    l1origin: g.l1,
    sequenceNumber: 0,
  };
  const attrs = await builder.prepare(parent, g.l1);
  expect(attrs.attributes.timestamp).toBe(GENESIS_TIME + 2);
  return attrs.attributes.transactions.map((t: string) => t.toLowerCase());
}

describe.skipIf(!conformanceAvailable("upgrade-txs"))("Interop activation block", () => {
  it("carries the CrossL2Inbox deployment when the dependency set has two chains", async () => {
    const txs = await activationTxs(2);
    // L1-info deposit, then 7 base Interop deposits, then the two CrossL2Inbox ones.
    expect(txs).toHaveLength(1 + 9);
    for (let i = 0; i < 7; i++) expect(txs[1 + i]).toBe(vector(`interop_base_tx_${i}`));
    expect(txs[8]).toBe(vector("interop_cross_l2_inbox_tx_0"));
    expect(txs[9]).toBe(vector("interop_cross_l2_inbox_tx_1"));
  });

  it("leaves it out for a single-chain set (the default)", async () => {
    const single = await activationTxs();
    expect(single).toHaveLength(1 + 7);
    expect(single).not.toContain(vector("interop_cross_l2_inbox_tx_0"));
    expect(await activationTxs(1)).toEqual(single);
  });
});
