/**
 * Done-when test of the devnet: anvil, two simulated execution clients (one of each variant) and their batchers
 * (running their own poll loops); blocks built through the Engine API with attributes from the protocol layer are
 * posted by the batchers (calldata for one chain, blobs for the other) and decode back into the blocks that were
 * built. Also checks the files the devnet writes for a rollup node.
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "supernode/core";
import { batchInboxAddress } from "../../src/config.js";
import { type Devnet, startDevnet } from "../../src/devnet.js";
import { checkRollupConfig, parseRollupConfig } from "supernode/protocol";
import {
  blocksFromBatches,
  type BuiltBlock,
  checkHashes,
  L2BlockBuilder,
  readBatchesFromL1,
} from "../support/batcher-support.js";

const CAROL: Address = "0x00000000000000000000000000000000000000c0";

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("startDevnet: anvil + two simulated ELs (variants A and B) + batchers", () => {
  let dir: string;
  let devnet: Devnet;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-devnet-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 1,
      batcherPollIntervalMs: 200,
      chains: [
        { chainId: 9001, variant: "a", dataMode: "calldata", batchType: "singular" },
        {
          chainId: 9002,
          variant: "b",
          dataMode: "blobs",
          batchType: "span",
          forkOffsets: {
            regolith: 0,
            canyon: 0,
            delta: 0,
            ecotone: 0,
            fjord: 0,
            granite: 0,
            holocene: 0,
            isthmus: 0,
            jovian: 100_000,
          },
        },
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await devnet?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("writes valid rollup configs, the L1 chain config, JWT secrets and a summary", async () => {
    expect(devnet.l1.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const c of devnet.chains) {
      const cfg = parseRollupConfig(await readFile(c.rollupConfigPath, "utf8"));
      expect(checkRollupConfig(cfg)).toEqual([]);
      expect(cfg.l2_chain_id).toBe(c.chainId);
      expect(cfg.genesis.l1.hash).toBe(devnet.l1.genesis.hash);
      expect(cfg.genesis.l2.hash).toBe(c.client.genesisHash);
      expect(cfg.genesis.l2_time).toBe(c.client.genesisBlock.timestamp);
      expect(cfg.batch_inbox_address).toBe(batchInboxAddress(c.chainId));
      expect(cfg.genesis.system_config.batcherAddr).toBe(c.batcherAddress);
      expect(cfg.deposit_contract_address).toBe(c.contracts.depositContract);
      expect(await devnet.l1Node.anvil.getCode(c.contracts.depositContract)).not.toBe("0x");
      const secret = (await readFile(c.jwtSecretPath, "utf8")).trim();
      expect(secret).toMatch(/^0x[0-9a-f]{64}$/);
      expect((await stat(c.jwtSecretPath)).mode & 0o777).toBe(0o600);
    }
    const b = parseRollupConfig(await readFile(devnet.chain(9002).rollupConfigPath, "utf8"));
    expect(b.jovian_time).toBe(b.genesis.l2_time + 100_000);
    const l1cfg = JSON.parse(await readFile(devnet.l1.chainConfigPath, "utf8")) as Record<string, unknown>;
    expect(l1cfg.chainId).toBe(devnet.l1.chainId);
    expect(l1cfg.pragueTime).toBe(0);
    const summary = JSON.parse(await readFile(join(dir, "devnet.json"), "utf8")) as {
      chains: { el: { httpUrl: string; wsUrl?: string } }[];
      devAccounts: { mnemonic: string; accounts: { address: string; privateKey: string }[] };
    };
    expect(summary.chains).toHaveLength(2);
    // every execution client serves WebSocket, named in the summary with the dev accounts and their keys
    for (const c of summary.chains) expect(c.el.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(summary.devAccounts.accounts).toHaveLength(10);
    expect(summary.devAccounts.accounts[0]).toEqual({
      index: 0,
      address: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
      privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    });
    // variant identity is visible on the EL, which a browser page may call (CORS)
    const res = await fetch(devnet.chain(9001).el.httpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost:3000" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(((await res.json()) as { result: Hex }).result).toBe("0x2329");
  });

  it("the batchers' posts decode back into the blocks built on both chains", async () => {
    const built = new Map<bigint, BuiltBlock[]>();
    const builders = devnet.chains.map((c) => ({
      c,
      b: new L2BlockBuilder(c.rollupConfig, devnet.l1Node, c.el, c.jwtSecret),
    }));
    devnet.startBatchers();
    await devnet.deposit(9001, { to: CAROL, mint: 5n * 10n ** 17n, gasLimit: 80_000n });
    await devnet.deposit(9002, { to: CAROL, mint: 7n * 10n ** 17n, gasLimit: 80_000n });
    for (let i = 0; i < 6; i++) {
      for (const { c, b } of builders) {
        const txs = i % 2 === 1 ? [await b.signTransfer(CAROL, BigInt(i + 1))] : [];
        const blk = await b.buildNext(txs);
        built.set(c.chainId, [...(built.get(c.chainId) ?? []), blk]);
      }
    }
    for (const { c } of builders) {
      const last = built.get(c.chainId)?.at(-1)?.number ?? -1;
      await waitFor(() => c.batcher.stats().confirmedThrough >= last, 90_000);
    }
    const head = await devnet.l1Node.anvil.blockNumber();
    for (const { c } of builders) {
      const batches = await readBatchesFromL1(devnet.l1Node, c.rollupConfig, devnet.l1.genesis.number, head);
      expect(new Set(batches.map((x) => x.source))).toEqual(new Set([c.variant === "a" ? "calldata" : "blob"]));
      const decoded = blocksFromBatches(batches);
      const mine = built.get(c.chainId) ?? [];
      expect(mine.some((b) => b.userTxs.length > 0)).toBe(true);
      const checks = { parent: 0, epoch: 0 };
      for (const b of mine) {
        const d = decoded.find((x) => x.timestamp === b.timestamp);
        expect(d, `chain ${c.chainId} block ${b.number}`).toBeDefined();
        if (d === undefined) continue;
        expect(d.epochNum).toBe(b.l1Origin.number);
        expect(d.txs).toEqual(b.userTxs);
        // full hashes for singular batches, the 20-byte parent/origin checks for span batches
        const k = checkHashes(d, b);
        checks.parent += k.parent;
        checks.epoch += k.epoch;
      }
      expect(checks.parent, `chain ${c.chainId}: no parent hash checked`).toBeGreaterThan(0);
      expect(checks.epoch, `chain ${c.chainId}: no epoch hash checked`).toBeGreaterThan(0);
    }
  }, 120_000);
});
