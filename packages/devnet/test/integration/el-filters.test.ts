/**
 * The polling filters (`eth_newFilter` family, expiry as geth's) and the pool's refusals at submission, worded per
 * variant (B as geth, A as reth), on the simulated execution client's JSON-RPC.
 */
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Clock, type Hash, type Hex, systemClock } from "supernode/core";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import { FILTER_TIMEOUT_MS } from "../../src/el/filters.js";
import {
  BOB,
  GENESIS_TIME,
  alice,
  buildAndSeal,
  call,
  engine,
  jovianAttrs,
  l1InfoDeposit,
  l1InfoJovian,
  rpc,
  startEl,
  userDeposit,
  MESSAGE_PASSER,
  withdrawalCalldata,
} from "../support/el-support.js";

const UNFUNDED = privateKeyToAccount(`0x${"11".repeat(32)}`);
const withdrawal = withdrawalCalldata(BOB, "0x");

function sign(o: { nonce: number; gas?: bigint; maxFeePerGas?: bigint; to?: Hex; data?: Hex; from?: typeof alice }) {
  return (o.from ?? alice).signTransaction({
    chainId: 901,
    type: "eip1559",
    nonce: o.nonce,
    to: o.to ?? BOB,
    value: 5n,
    gas: o.gas ?? 21_000n,
    maxFeePerGas: o.maxFeePerGas ?? 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    ...(o.data === undefined ? {} : { data: o.data }),
  });
}

describe("eth_newFilter family", () => {
  let el: SimulatedExecutionClient;
  let offsetMs = 0;
  const clock: Clock = { nowMs: () => systemClock.nowMs() + offsetMs, sleep: systemClock.sleep };
  beforeAll(async () => {
    el = await startEl({ variant: "b", clock });
  });
  afterAll(async () => {
    await el?.stop();
  });

  it("block, log and pending-transaction filters collect changes between polls; a reorg's logs come back removed", async () => {
    const blocks = await call<string>(el.httpUrl, "eth_newBlockFilter");
    const logs = await call<string>(el.httpUrl, "eth_newFilter", [{ address: MESSAGE_PASSER }]);
    const others = await call<string>(el.httpUrl, "eth_newFilter", [{ address: `0x${"99".repeat(20)}` }]);
    const pending = await call<string>(el.httpUrl, "eth_newPendingTransactionFilter");
    const raw = await sign({ nonce: 0, to: MESSAGE_PASSER, data: withdrawal, gas: 200_000n });
    const tx = await call<Hash>(el.httpUrl, "eth_sendRawTransaction", [raw]);
    expect(await call(el.httpUrl, "eth_getFilterChanges", [pending])).toEqual([tx]);
    expect(await call(el.httpUrl, "eth_getFilterChanges", [pending])).toEqual([]);
    const ts = GENESIS_TIME + 2;
    const info = l1InfoDeposit(l1InfoJovian({ number: 9, time: ts - 1, seq: 0 }), 1);
    const payload = await buildAndSeal(el, jovianAttrs(ts, [info], { noTxPool: false }));
    expect(await call(el.httpUrl, "eth_getFilterChanges", [blocks])).toEqual([payload.blockHash]);
    const got = await call<{ transactionHash: Hash; removed: boolean }[]>(el.httpUrl, "eth_getFilterChanges", [logs]);
    expect(got.map((l) => [l.transactionHash, l.removed])).toEqual([[tx, false]]);
    expect(await call(el.httpUrl, "eth_getFilterChanges", [others])).toEqual([]);
    const all = await call<{ transactionHash: Hash }[]>(el.httpUrl, "eth_getFilterLogs", [logs]);
    expect(all.map((l) => l.transactionHash)).toEqual([tx]);

    await engine(el, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: el.genesisHash, safeBlockHash: el.genesisHash, finalizedBlockHash: el.genesisHash },
      null,
    ]);
    const back = await call<{ transactionHash: Hash; removed: boolean }[]>(el.httpUrl, "eth_getFilterChanges", [logs]);
    expect(back.map((l) => [l.transactionHash, l.removed])).toEqual([[tx, true]]);

    expect(await call(el.httpUrl, "eth_uninstallFilter", [logs])).toBe(true);
    expect(await call(el.httpUrl, "eth_uninstallFilter", [logs])).toBe(false);
    expect((await rpc(el.httpUrl, "eth_getFilterChanges", [logs])).error).toEqual({
      code: -32000,
      message: "filter not found",
    });
    expect((await rpc(el.httpUrl, "eth_getFilterLogs", [blocks])).error?.message).toBe("filter not found");
    for (const id of [blocks, others, pending]) await call(el.httpUrl, "eth_uninstallFilter", [id]);
  });

  it("a filter expires when nobody polls it for five minutes; each poll pushes that back", async () => {
    const polled = await call<string>(el.httpUrl, "eth_newBlockFilter");
    const forgotten = await call<string>(el.httpUrl, "eth_newBlockFilter");
    offsetMs += FILTER_TIMEOUT_MS - 60_000;
    expect(await call(el.httpUrl, "eth_getFilterChanges", [polled])).toEqual([]);
    offsetMs += 120_000;
    expect((await rpc(el.httpUrl, "eth_getFilterChanges", [forgotten])).error?.message).toBe("filter not found");
    expect(await call(el.httpUrl, "eth_getFilterChanges", [polled])).toEqual([]);
    offsetMs += FILTER_TIMEOUT_MS;
    expect((await rpc(el.httpUrl, "eth_getFilterChanges", [polled])).error?.message).toBe("filter not found");
    expect(el.filters.size).toBe(0);
  });
});

describe("the pool's refusals at submission", () => {
  let a: SimulatedExecutionClient;
  let b: SimulatedExecutionClient;
  beforeAll(async () => {
    a = await startEl({ variant: "a" });
    b = await startEl({ variant: "b" });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  const send = async (el: SimulatedExecutionClient, raw: Hex) =>
    (await rpc(el.httpUrl, "eth_sendRawTransaction", [raw])).error;

  it("intrinsic gas, fee cap below the base fee, block gas limit: -32000 on both, geth's details on B", async () => {
    const low = await sign({ nonce: 0, gas: 20_000n });
    expect(await send(b, low)).toEqual({
      code: -32000,
      message: "intrinsic gas too low: gas 20000, minimum needed 21000",
    });
    expect(await send(a, low)).toEqual({ code: -32000, message: "intrinsic gas too low" });
    const cheap = await sign({ nonce: 0, maxFeePerGas: 1n });
    expect(await send(b, cheap)).toEqual({
      code: -32000,
      message: `max fee per gas less than block base fee: address ${alice.address.toLowerCase()}, maxFeePerGas: 1, baseFee: 1000000000`,
    });
    expect(await send(a, cheap)).toEqual({ code: -32000, message: "max fee per gas less than block base fee" });
    const huge = await sign({ nonce: 0, gas: 40_000_000n });
    for (const el of [a, b]) expect(await send(el, huge)).toEqual({ code: -32000, message: "exceeds block gas limit" });
  });

  it("insufficient funds: geth's balance/cost/overshot on B (-32000), reth's have/want on A (-32003)", async () => {
    const raw = await sign({ nonce: 0, from: UNFUNDED });
    const cost = 21_000n * 10_000_000_000n + 5n;
    expect(await send(b, raw)).toEqual({
      code: -32000,
      message: `insufficient funds for gas * price + value: balance 0, tx cost ${cost}, overshot ${cost}`,
    });
    expect(await send(a, raw)).toEqual({
      code: -32003,
      message: `insufficient funds for gas * price + value: have 0 want ${cost}`,
    });
    for (const el of [a, b]) expect(el.core.pool.size).toBe(0);
  });

  it("the L1 data fee counts: a balance of exactly gas × max fee + value is refused once blocks carry L1 fees", async () => {
    const cost = 21_000n * 10_000_000_000n + 5n;
    const raw = await sign({ nonce: 0, from: UNFUNDED });
    for (const el of [a, b]) {
      const ts = el.head.header.timestamp + 2;
      const info = l1InfoDeposit(l1InfoJovian({ number: 20, time: ts - 1, seq: 0, baseFee: 10n ** 12n }), 20);
      await buildAndSeal(el, jovianAttrs(ts, [info, userDeposit(UNFUNDED.address, cost, cost, "exact")]));
      expect(await call(el.httpUrl, "eth_getBalance", [UNFUNDED.address, "latest"])).toBe(`0x${cost.toString(16)}`);
      const refused = await send(el, raw);
      const want = /insufficient funds for gas \* price \+ value: (balance \d+, tx cost (\d+)|have \d+ want (\d+))/;
      const m = want.exec(refused?.message ?? "");
      expect(m, refused?.message).not.toBeNull();
      expect(BigInt(m![2] ?? m![3]!)).toBeGreaterThan(cost);
    }
  });
});
