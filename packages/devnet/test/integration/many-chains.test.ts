/**
 * A devnet with more chains than anvil has funded accounts: the batchers of chains 10 and 11 use derived accounts
 * that the devnet funds with `anvil_setBalance`, and their batches land on L1.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet.js";
import { fundedByAnvil } from "../../src/l1/dev-accounts.js";
import { L2BlockBuilder } from "../support/batcher-support.js";

const CHAINS = 11;

describe(`devnet with ${CHAINS} chains`, () => {
  let dir: string;
  let devnet: Devnet;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-many-chains-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 0,
      chains: Array.from({ length: CHAINS }, (_, i) => ({ chainId: 901 + i, variant: i % 2 === 0 ? "a" : "b" })),
    });
  }, 60_000);

  afterAll(async () => {
    await devnet?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("funds derived batcher accounts and their batches land on L1", async () => {
    const addrs = devnet.chains.map((c) => c.batcherAddress);
    expect(new Set(addrs).size).toBe(CHAINS);
    const last = devnet.chains[CHAINS - 1]!;
    // chain index 10 → dev account 11, beyond anvil's ten
    expect(fundedByAnvil(11)).toBe(false);
    const balance = await devnet.l1Node.client.public.getBalance({ address: last.batcherAddress });
    expect(balance).toBeGreaterThan(10n ** 21n);
    // the last chain's batcher posts two built blocks and its transactions are included
    const builder = new L2BlockBuilder(last.rollupConfig, devnet.l1Node, last.el, last.jwtSecret);
    await builder.buildNext();
    const built = await builder.buildNext();
    await last.batcher.flush(30_000);
    const stats = last.batcher.stats();
    expect(stats.confirmedThrough).toBe(built.number);
    const tx = last.batcher.submitted[0]!;
    const receipt = await devnet.l1Node.client.public.getTransactionReceipt({ hash: tx.hash });
    expect(receipt.from.toLowerCase()).toBe(last.batcherAddress);
    expect(receipt.status).toBe("success");
  }, 60_000);
});
