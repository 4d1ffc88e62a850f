import Fastify from "fastify";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { L1Client } from "../../../src/io/l1/l1-client.js";
import { createL1Metrics } from "../../../src/io/l1/metrics.js";
import { useAnvil } from "../../support/anvil.js";
import { DEV_KEY, sendTransfer } from "../../support/blob-tx.js";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { bytesToHex } from "../../../src/core/codec/hex.js";
import { selectBatcherEntries } from "../../../src/protocol/l1/batcher-tx.js";

async function counter(reg: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const m = await reg.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

function makeClient(url: string, reg = new Registry(), pollIntervalMs = 60_000): L1Client {
  return L1Client.create(
    { url, pollIntervalMs, maxConcurrency: 4, cacheSize: 100, timeoutMs: 5_000 },
    { clock: systemClock, logger: silentLogger, metrics: createL1Metrics(reg) },
  );
}

// (blob transactions through the L1 client are covered in beacon-client.test.ts, which sends one anyway)
describe("L1Client against anvil", () => {
  const anvil = useAnvil({ blockTimeSec: 0, hardfork: "prague", slotsInAnEpoch: 2 });

  it("reads blocks with transactions and validated receipts", async () => {
    const a = anvil();
    const to = "0x00000000000000000000000000000000000000aa";
    await sendTransfer(a.rpcUrl, a.chainId, to, 1000n);
    const second = await sendTransfer(a.rpcUrl, a.chainId, to, 2000n);
    // automine may answer before the block is sealed: wait for the receipt
    let receipt: { blockNumber: string } | null = null;
    for (let i = 0; i < 100 && receipt === null; i++) {
      receipt = (await a.rpc.call("eth_getTransactionReceipt", [second])) as { blockNumber: string } | null;
      if (receipt === null) await new Promise((r) => setTimeout(r, 50));
    }
    const n = Number(receipt?.blockNumber);
    const client = makeClient(a.rpcUrl);
    expect(await client.chainId()).toBe(BigInt(a.chainId));
    const ref = await client.l1BlockRefByNumber(n);
    expect(ref.number).toBe(n);
    const byHash = await client.l1BlockRefByHash(ref.hash);
    expect(byHash).toEqual(ref);
    const { info, txs } = await client.infoAndTxsByHash(ref.hash);
    expect(info.hash).toBe(ref.hash);
    expect(txs.length).toBe(1);
    expect(txs[0]?.to).toBe(to);
    expect(txs[0]?.type).toBe(2);
    const { receipts } = await client.fetchReceipts(ref.hash);
    expect(receipts.length).toBe(1);
    expect(receipts[0]?.status).toBe(1);
    expect(receipts[0]?.transactionHash).toBe(txs[0]?.hash);
    const latest = await client.l1BlockRefByLabel("latest");
    expect(latest.number).toBeGreaterThanOrEqual(n);
  });

  it("a missing block is a typed temporary NOT_FOUND error", async () => {
    const client = makeClient(anvil().rpcUrl);
    await expect(client.l1BlockRefByNumber(1_000_000)).rejects.toMatchObject({
      code: "NOT_FOUND",
      severity: "temporary",
    });
    await expect(client.infoByHash(`0x${"ab".repeat(32)}` as Hash)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("coalesces concurrent requests and caches by hash", async () => {
    const a = anvil();
    await a.mine(1);
    const reg = new Registry();
    const client = makeClient(a.rpcUrl, reg);
    const n = await a.blockNumber();
    const refs = await Promise.all(Array.from({ length: 8 }, () => client.l1BlockRefByNumber(n)));
    expect(new Set(refs.map((r) => r.hash)).size).toBe(1);
    const hash = refs[0]?.hash as Hash;
    await Promise.all(Array.from({ length: 8 }, () => client.infoAndTxsByHash(hash)));
    await Promise.all(Array.from({ length: 8 }, () => client.fetchReceipts(hash)));
    await client.infoAndTxsByHash(hash);
    await client.fetchReceipts(hash);
    expect(await counter(reg, "supernode_l1_requests_total", { method: "eth_getBlockByNumber" })).toBe(1);
    expect(await counter(reg, "supernode_l1_requests_total", { method: "eth_getBlockByHash" })).toBe(1);
    expect(await counter(reg, "supernode_l1_requests_total", { method: "eth_getBlockReceipts" })).toBe(1);
    expect(await counter(reg, "supernode_l1_cache_total", { kind: "txs", result: "hit" })).toBeGreaterThanOrEqual(1);
    // one kind name per cache, whether hit, missed or coalesced
    const kinds = new Set(
      (await reg.getSingleMetric("supernode_l1_cache_total")?.get())?.values.map((v) => v.labels.kind),
    );
    expect([...kinds].sort()).toEqual(["header", "number", "receipts", "txs"]);
    expect(await counter(reg, "supernode_l1_cache_total", { kind: "receipts", result: "coalesced" })).toBeGreaterThan(
      0,
    );
  });

  it("tracks latest/safe/finalized and sees a reorg (anvil_reorg)", async () => {
    const a = anvil();
    await a.mine(10);
    const client = makeClient(a.rpcUrl, new Registry(), 50);
    const heads: number[] = [];
    const unsub = client.subscribeHeads((h) => heads.push(h.number));
    await client.pollOnce();
    const latest = client.getLabel("latest");
    const n = await a.blockNumber();
    expect(latest?.number).toBe(n);
    expect(client.getLabel("safe")?.number).toBe(n - 2);
    expect(client.getLabel("finalized")?.number).toBe(n - 4);
    const before = await client.l1BlockRefByNumber(n - 1);
    await a.reorg(2);
    await client.pollOnce();
    const after = await client.l1BlockRefByNumber(n - 1);
    expect(after.hash).not.toBe(before.hash);
    expect(client.getLabel("latest")?.hash).not.toBe(latest?.hash);
    expect(heads.length).toBe(2);
    unsub();
    // start/stop run the poll loop
    client.start();
    await a.mine(1);
    // the poll loop picks the new block up on one of its next polls
    for (const until = Date.now() + 15_000; client.getLabel("latest")?.number !== n + 1 && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await client.stop();
    expect(client.getLabel("latest")?.number).toBe(n + 1);
  });

  it("falls back to per-transaction receipts when eth_getBlockReceipts is missing", async () => {
    const a = anvil();
    const to = "0x00000000000000000000000000000000000000cc";
    await a.setAutomine(false);
    await sendTransfer(a.rpcUrl, a.chainId, to, 1n);
    await sendTransfer(a.rpcUrl, a.chainId, to, 2n);
    await a.mine(1);
    await a.setAutomine(true);
    const n = await a.blockNumber();
    // a proxy in front of anvil that lacks eth_getBlockReceipts
    const seen: string[] = [];
    const proxy = Fastify();
    proxy.post("/", async (req) => {
      const body = req.body as { id: number; method: string } | { id: number; method: string }[];
      for (const c of Array.isArray(body) ? body : [body]) seen.push(c.method);
      if (!Array.isArray(body) && body.method === "eth_getBlockReceipts") {
        return { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "the method does not exist" } };
      }
      const res = await fetch(a.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return JSON.parse(await res.text());
    });
    await proxy.listen({ port: 0, host: "127.0.0.1" });
    try {
      const addr = proxy.server.address();
      const client = makeClient(`http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`);
      const ref = await client.l1BlockRefByNumber(n);
      const { txs } = await client.infoAndTxsByHash(ref.hash);
      expect(txs.length).toBe(2);
      const { receipts } = await client.fetchReceipts(ref.hash);
      expect(receipts.map((r) => r.transactionHash)).toEqual(txs.map((t) => t.hash));
      expect(seen.filter((m) => m === "eth_getBlockReceipts").length).toBe(1);
      expect(seen.filter((m) => m === "eth_getTransactionReceipt").length).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it("indexes a block once for every chain: each inbox tx decoded and its sender recovered once", async () => {
    const a = anvil();
    const keys = [DEV_KEY, "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"] as const;
    const inboxes = [
      "0xff00000000000000000000000000000000000901",
      "0xff00000000000000000000000000000000000902",
    ] as const;
    await a.rpc.call("evm_setAutomine", [false]);
    try {
      const sends: [number, string, string][] = [
        [0, inboxes[0], "0x00aa"],
        [1, inboxes[1], "0x00bb"],
        [0, "0x00000000000000000000000000000000000000aa", "0x"],
        [1, inboxes[0], "0x00cc"], // not chain 0's batcher
      ];
      const nonces = [0, 0];
      for (const [i, k] of keys.entries()) {
        const addr = privateKeyToAccount(k).address;
        nonces[i] = Number(await a.rpc.call("eth_getTransactionCount", [addr, "pending"]));
      }
      for (const send of sends) {
        const [who, to, data] = send;
        const account = privateKeyToAccount(keys[who] as Hex);
        const raw = await account.signTransaction({
          type: "eip1559",
          chainId: a.chainId,
          nonce: (nonces[who] as number) + sends.slice(0, sends.indexOf(send)).filter((x) => x[0] === who).length,
          to: to as Hex,
          data: data as Hex,
          gas: 100_000n,
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1n,
        });
        await a.rpc.call("eth_sendRawTransaction", [raw]);
      }
      await a.rpc.call("evm_mine", []);
    } finally {
      await a.rpc.call("evm_setAutomine", [true]);
    }
    const client = makeClient(a.rpcUrl);
    const ref = await client.l1BlockRefByLabel("latest");
    expect((await client.infoAndTxsByHash(ref.hash)).txs.length).toBe(4);
    const chains = [0, 1, 0, 1, 0, 1].map((i) => ({
      batchInbox: inboxes[i] as Hex,
      batcherAddr: privateKeyToAccount(keys[i] as Hex).address,
      l1ChainId: BigInt(a.chainId),
      blobs: true,
    }));
    const selected = await Promise.all(
      chains.map(async (sel) => selectBatcherEntries(await client.txsTo(ref.hash, sel.batchInbox), sel)),
    );
    expect(selected.map((items) => items.map((i) => i.kind === "calldata" && bytesToHex(i.data)))).toEqual([
      ["0x00aa"],
      ["0x00bb"],
      ["0x00aa"],
      ["0x00bb"],
      ["0x00aa"],
      ["0x00bb"],
    ]);
    // three txs to hosted inboxes, none to the other address: each decoded and recovered exactly once
    expect(client.indexCounters.decoded).toBe(3);
    expect(client.indexCounters.recovered).toBe(3);
    await Promise.all(chains.map((c) => client.receiptsOf(ref.hash, c.batchInbox)));
    expect(client.indexCounters.receiptsIndexed).toBe(1);
  });
});
