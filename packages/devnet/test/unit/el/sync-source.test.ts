import { afterEach, describe, expect, it } from "vitest";
import { type Hash, silentLogger } from "supernode/core";
import type { SimulatedExecutionClient } from "../../../src/el/index.js";
import { ElSyncSource, httpBlockFetcher } from "../../../src/el/sync-source.js";
import {
  ALICE,
  BOB,
  GENESIS_TIME,
  buildAndSeal,
  engine,
  jovianAttrs,
  l1InfoDeposit,
  l1InfoJovian,
  newPayloadParams,
  signTransfer,
  startEl,
  userDeposit,
} from "../../support/el-support.js";

const els: SimulatedExecutionClient[] = [];
afterEach(async () => {
  for (const el of els.splice(0)) await el.stop();
});

async function el(): Promise<SimulatedExecutionClient> {
  const e = await startEl();
  els.push(e);
  return e;
}

describe("ElSyncSource: the simulated EL syncs a missing chain from another client", () => {
  it("fetches, re-executes and adds the blocks behind an unknown payload; the payload then is VALID", async () => {
    const source = await el();
    const target = await el();
    const payloads: Record<string, unknown>[] = [];
    for (let k = 1; k <= 6; k++) {
      const txs = [l1InfoDeposit(l1InfoJovian({ number: k, time: GENESIS_TIME + k, seq: 0 }), k)];
      if (k === 2) txs.push(userDeposit(BOB, 5n, 1n, "deposit-2"));
      if (k === 3) txs.push(await signTransfer({ nonce: 0 }));
      payloads.push(await buildAndSeal(source, jovianAttrs(GENESIS_TIME + 2 * k, txs)));
    }
    const tip = payloads[5]!;
    // Without the sync the target answers SYNCING for a payload on an unknown parent.
    const np = () => engine<{ status: string }>(target, "engine_newPayloadV4", newPayloadParams(tip, 4));
    expect((await np()).status).toBe("SYNCING");

    // What engine-api.ts would do on SYNCING (see the wiring in sync-source.ts).
    const sync = new ElSyncSource(target.core, httpBlockFetcher(source.httpUrl), silentLogger);
    sync.request(tip.parentHash as Hash);
    await sync.idle();
    expect(sync.lastError).toBeUndefined();
    expect(sync.imported).toBe(5);
    expect((await np()).status).toBe("VALID");
    const fcu = await engine<{ payloadStatus: { status: string } }>(target, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: tip.blockHash, safeBlockHash: target.genesisHash, finalizedBlockHash: target.genesisHash },
      null,
    ]);
    expect(fcu.payloadStatus.status).toBe("VALID");
    expect(target.head.hash).toBe(tip.blockHash);
    expect(target.head.state.stateRoot()).toBe(source.head.state.stateRoot());
    expect(target.head.state.account(ALICE).nonce).toBe(1n);
    sync.request(tip.blockHash as Hash); // known: nothing to do
    await sync.idle();
    expect(sync.imported).toBe(5);
  });

  it("reports a source that lacks the block and never throws to the caller", async () => {
    const source = await el();
    const target = await el();
    const sync = new ElSyncSource(target.core, httpBlockFetcher(source.httpUrl), silentLogger);
    sync.request(`0x${"77".repeat(32)}`);
    await sync.idle();
    expect(sync.lastError).toContain("does not have block");
    expect(sync.imported).toBe(0);
  });
});
