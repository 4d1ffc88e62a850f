/**
 * l1-sharing: N simulated chains (N = 1, 2, 4, 8) follow the same 200 L1 blocks through ONE shared L1Client, the
 * way derivation does (block ref by number → block with transactions by hash → receipts by hash), concurrently and
 * at slightly different speeds. The L1 is a real anvil behind a counting JSON-RPC proxy (Fastify on port 0) that
 * counts every JSON-RPC call (batch elements individually). Head polling runs as in production (every second,
 * latest/safe/finalized) and counts; the block caches hold 64 blocks, fewer than the 200-block walk, so chains
 * that drift apart by more than the cache would refetch and the ratio could fail. Each chain reads its own slices
 * (`txsTo` its inbox, `receiptsOf` its SystemConfig) as the pipeline does.
 *
 * Figures: requests_per_l1_block_n{1,2,4,8} and ratio_8_to_1 (goal ≤ 1.1), and the decode work
 * (`decoded_txs_n8`: transactions decoded for all 8 chains together).
 */
import Fastify from "fastify";
import { silentLogger, systemClock } from "supernode/core";
import { Anvil } from "supernode-devnet/l1/anvil";
import { L1Client } from "supernode/node";
import { type Bench, note } from "./harness.js";

const BLOCKS = 200;
const CHAINS = [1, 2, 4, 8] as const;
const DEV_ACCOUNTS = [
  "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
];

async function countingProxy(target: string) {
  const app = Fastify({ bodyLimit: 50 * 1024 * 1024 });
  const counts = { calls: 0, http: 0, byMethod: new Map<string, number>() };
  app.post("/", async (req, reply) => {
    const body = req.body as { method: string } | { method: string }[];
    const calls = Array.isArray(body) ? body : [body];
    counts.http++;
    for (const c of calls) {
      counts.calls++;
      counts.byMethod.set(c.method, (counts.byMethod.get(c.method) ?? 0) + 1);
    }
    const res = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    reply.header("content-type", "application/json");
    return reply.send(await res.text());
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === "object" && addr !== null ? addr.port : 0}`;
  return {
    url,
    counts,
    reset() {
      counts.calls = 0;
      counts.http = 0;
      counts.byMethod.clear();
    },
    close: () => app.close(),
  };
}

/** One chain's derivation-shaped walk over L1 blocks 1..BLOCKS. */
async function follow(l1: L1Client, chain: number): Promise<number> {
  let txCount = 0;
  for (let n = 1; n <= BLOCKS; n++) {
    const ref = await l1.l1BlockRefByNumber(n);
    const { txs } = await l1.infoAndTxsByHash(ref.hash);
    const { receipts } = await l1.fetchReceipts(ref.hash);
    if (receipts.length !== txs.length) throw new Error(`receipts/txs mismatch at ${n}`);
    // the chain's own slices, as its pipeline reads them (chain c's "inbox" is dev account c % 3)
    const inbox = DEV_ACCOUNTS[chain % 3] as `0x${string}`;
    for (const e of await l1.txsTo(ref.hash, inbox)) e.sender();
    await l1.receiptsOf(ref.hash, inbox);
    txCount += txs.length;
    // chains do different amounts of work per L1 block, so they drift apart
    if ((n + chain) % 17 === 0) await new Promise((r) => setTimeout(r, chain));
  }
  return txCount;
}

const bench: Bench = {
  name: "l1-sharing",
  async run(report) {
    const anvil = await Anvil.start({ blockTimeSec: 0, slotsInAnEpoch: 2, hardfork: "prague" });
    const proxy = await countingProxy(anvil.rpcUrl);
    try {
      // 200+ blocks, 40 of them with transfers
      for (let i = 0; i < 40; i++) {
        await anvil.rpc.call("eth_sendTransaction", [
          { from: DEV_ACCOUNTS[i % 3], to: DEV_ACCOUNTS[(i + 1) % 3], value: "0x1" },
        ]);
      }
      await anvil.mine(BLOCKS - 40 + 10);
      note(`anvil at block ${await anvil.blockNumber()}`);
      const perBlock = new Map<number, number>();
      for (const n of CHAINS) {
        proxy.reset();
        const l1 = L1Client.create(
          { url: proxy.url, pollIntervalMs: 1_000, maxConcurrency: 10, cacheSize: 64 },
          { clock: systemClock, logger: silentLogger },
        );
        l1.start();
        const started = performance.now();
        const txs = await Promise.all(Array.from({ length: n }, (_, c) => follow(l1, c)));
        const ms = performance.now() - started;
        await l1.stop();
        const rpb = proxy.counts.calls / BLOCKS;
        perBlock.set(n, rpb);
        note(
          `N=${n}: ${proxy.counts.calls} calls (${proxy.counts.http} HTTP) for ${BLOCKS} blocks, ${txs[0]} txs/chain, ${ms.toFixed(0)} ms; ${JSON.stringify(Object.fromEntries(proxy.counts.byMethod))}`,
        );
        report({ figure: `requests_per_l1_block_n${n}`, value: Number(rpb.toFixed(3)), unit: "requests/block" });
        if (n === 8) report({ figure: "decoded_txs_n8", value: l1.indexCounters.decoded, unit: "txs" });
      }
      const ratio = (perBlock.get(8) ?? 0) / (perBlock.get(1) ?? 1);
      report({ figure: "ratio_8_to_1", value: Number(ratio.toFixed(3)), unit: "x" });
    } finally {
      await proxy.close();
      await anvil.stop();
    }
  },
};

export default bench;
