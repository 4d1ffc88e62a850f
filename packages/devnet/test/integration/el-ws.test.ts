import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { Hash } from "supernode/core";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import {
  GENESIS_TIME,
  buildAndSeal,
  call,
  engine,
  jovianAttrs,
  l1InfoDeposit,
  l1InfoJovian,
  signTransfer,
  startEl,
} from "../support/el-support.js";

const MESSAGE_PASSER = "0x4200000000000000000000000000000000000016";

/** A tiny JSON-RPC-over-WebSocket client that records subscription notifications. */
class WsClient {
  readonly notes: { subscription: string; result: unknown }[] = [];
  readonly #pending = new Map<number, (v: { result?: unknown; error?: { code: number } }) => void>();
  #id = 0;
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.method === "eth_subscription") this.notes.push(msg.params);
      else this.#pending.get(msg.id)?.(msg);
    });
  }
  static open(url: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once("open", () => resolve(new WsClient(ws)));
      ws.once("error", reject);
    });
  }
  request(method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number } }> {
    const id = ++this.#id;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }
  async waitFor(pred: () => boolean, ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error("timed out waiting for notifications");
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  of(id: unknown): unknown[] {
    return this.notes.filter((n) => n.subscription === id).map((n) => n.result);
  }
  close(): void {
    this.ws.terminate();
  }
}

describe("simulated execution client: WebSocket subscriptions", () => {
  let a: SimulatedExecutionClient;
  let b: SimulatedExecutionClient;
  let ca: WsClient;
  let cb: WsClient;
  beforeAll(async () => {
    a = await startEl({ variant: "a", ws: true });
    b = await startEl({ variant: "b", ws: true });
    ca = await WsClient.open(a.wsUrl!);
    cb = await WsClient.open(b.wsUrl!);
  });
  afterAll(async () => {
    ca?.close();
    cb?.close();
    await a?.stop();
    await b?.stop();
  });

  it("serves plain JSON-RPC calls over the socket", async () => {
    expect(await ca.request("eth_chainId")).toMatchObject({ result: "0x385" });
    expect((await ca.request("eth_nope")).error?.code).toBe(-32601);
    expect((await ca.request("eth_subscribe", ["bogus"])).error?.code).toBe(-32602);
  });

  it("newHeads, logs, newPendingTransactions and syncing notifications; eth_unsubscribe", async () => {
    const heads = (await ca.request("eth_subscribe", ["newHeads"])).result as string;
    const logs = (await ca.request("eth_subscribe", ["logs", { address: MESSAGE_PASSER }])).result as string;
    const otherLogs = (await ca.request("eth_subscribe", ["logs", { address: `0x${"99".repeat(20)}` }]))
      .result as string;
    const pending = (await ca.request("eth_subscribe", ["newPendingTransactions"])).result as string;
    const syncA = (await ca.request("eth_subscribe", ["syncing"])).result as string;
    const syncB = (await cb.request("eth_subscribe", ["syncing"])).result as string;
    expect(heads).toMatch(/^0x[0-9a-f]+$/);
    await ca.waitFor(() => ca.of(syncA).length === 1);
    await cb.waitFor(() => cb.of(syncB).length === 1);
    expect(cb.of(syncB)[0]).toBe(false);
    expect(ca.of(syncA)[0]).toMatchObject({ syncing: false });

    const raw = await signTransfer({ nonce: 0, to: MESSAGE_PASSER, value: 5n, gas: 100_000n });
    const txHash = await call<Hash>(a.httpUrl, "eth_sendRawTransaction", [raw]);
    await ca.waitFor(() => ca.of(pending).length === 1);
    expect(ca.of(pending)).toEqual([txHash]);

    const ts = GENESIS_TIME + 2;
    const payload = await buildAndSeal(
      a,
      jovianAttrs(ts, [l1InfoDeposit(l1InfoJovian({ number: 9, time: ts - 1, seq: 0 }), 1)], { noTxPool: false }),
    );
    await ca.waitFor(() => ca.of(heads).length === 1 && ca.of(logs).length === 1);
    expect(ca.of(heads)[0]).toMatchObject({
      hash: payload.blockHash,
      number: "0x1",
      timestamp: `0x${ts.toString(16)}`,
    });
    expect(ca.of(heads)[0]).toHaveProperty("baseFeePerGas");
    expect(ca.of(logs)[0]).toMatchObject({ address: MESSAGE_PASSER, transactionHash: txHash, removed: false });
    expect(ca.of(otherLogs)).toEqual([]);

    // a reorg back to genesis re-emits the log as removed
    await engine(a, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: a.genesisHash, safeBlockHash: a.genesisHash, finalizedBlockHash: a.genesisHash },
      null,
    ]);
    await ca.waitFor(() => ca.of(logs).length === 2);
    expect(ca.of(logs)[1]).toMatchObject({ transactionHash: txHash, removed: true });

    expect((await ca.request("eth_unsubscribe", [heads])).result).toBe(true);
    expect((await ca.request("eth_unsubscribe", [heads])).result).toBe(false);
    await engine(a, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: payload.blockHash, safeBlockHash: a.genesisHash, finalizedBlockHash: a.genesisHash },
      null,
    ]);
    await ca.waitFor(() => ca.of(logs).length === 3);
    expect(ca.of(heads)).toHaveLength(1);
  });
});
