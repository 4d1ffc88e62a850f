import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Followers, startFollowers } from "supernode-devnet/cli/followers";
import { type DevnetSupernode, startDevnetSupernode } from "supernode-devnet";
import { silentLogger } from "../../../src/core/logger.js";
import { call, type L2Ref, waitFor } from "../../support/devnet-rpc.js";
import { interopDevnetOptions } from "../../support/interop-devnet.js";

/**
 * `supernode-devnet --interop --invalid-messages` end to end, with a verifying follower: every few blocks the
 * traffic sends an invalid executing message (wrong payload hash to 901, then an origin chain outside the dependency
 * set to 902). The sequencing supernode must deny the block, rewind the chain and replace the block with a
 * deposits-only one while both chains go on; the follower (its own process, fed by P2P and L1) must end with the
 * same replacement block.
 */
type ChainStatus = { unsafe_l2: L2Ref; safe_l2: L2Ref; local_safe_l2: L2Ref };
type RpcBlock = { hash: string; transactions: Array<{ type: string }> };

async function metricSum(url: string, name: string): Promise<Record<string, number>> {
  const text = await (await fetch(url)).text();
  const out: Record<string, number> = {};
  for (const l of text.split("\n")) {
    const m = l.match(new RegExp(`^${name}\\{chain_id="(\\d+)"\\} (\\S+)$`));
    if (m !== null) out[m[1]!] = Number(m[2]);
  }
  return out;
}

describe("supernode-devnet --interop --invalid-messages", () => {
  let dir: string;
  let dn: DevnetSupernode;
  let followers: Followers | undefined;

  const status = async (rpc: string, chain: bigint): Promise<ChainStatus> => {
    const r = await call(`${rpc}/${chain}/`, "stack_syncStatus");
    if (r.result === undefined) throw new Error(r.error?.message ?? "no status");
    return r.result as ChainStatus;
  };
  const blockAt = async (elUrl: string, n: number): Promise<RpcBlock | null> =>
    (await call(elUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true])).result as RpcBlock | null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-devnet-interop-inv-"));
    dn = await startDevnetSupernode(
      interopDevnetOptions(dir, {
        p2p: true,
        interop: { everyBlocks: 2, invalidMessages: true, invalidEveryBlocks: 6 },
      }),
      { logger: silentLogger },
    );
    followers = await startFollowers(
      dn.devnet,
      {
        count: 1,
        dir,
        sequencerRpcUrl: dn.supernode.rpc.url,
        rpcPort: 0,
        metricsPort: 0,
        logLevel: "error",
      },
      silentLogger,
    );
  }, 180_000);

  afterAll(async () => {
    await followers?.stop();
    await dn?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("replaces each invalid block with a deposits-only block, both chains go on, and the follower agrees", async () => {
    const traffic = dn.traffic!;
    // one invalid message to each chain, each block replaced
    await waitFor(
      "two invalid blocks replaced",
      async () => (traffic.stats().invalidReplaced >= 2 ? true : undefined),
      180_000,
    );
    const stats = traffic.stats();
    expect(stats.invalid["wrong-payload-hash"]).toBe(1);
    expect(stats.invalid["unknown-origin-chain"]).toBe(1);
    const metricsUrl = dn.supernode.metricsServer!.url;
    const inv = await metricSum(metricsUrl, "supernode_interop_invalidations_total");
    expect(inv["901"]).toBeGreaterThanOrEqual(1);
    expect(inv["902"]).toBeGreaterThanOrEqual(1);
    const last = stats.lastInvalid!;
    const el = dn.devnet.chain(last.chainId).el.httpUrl;
    // the replacement at that height carries deposits only, and the invalid transaction is gone for good
    const replaced = await waitFor("the replacement block", () =>
      blockAt(el, last.blockNumber).then((b) => b ?? undefined),
    );
    expect(replaced.transactions.every((t) => t.type === "0x7e")).toBe(true);
    // Its EL follows op-geth's rule: the rewind to the parent (a forkchoice update to a canonical ancestor) kept
    // the EL's head; the chain moved off the denied block only when the replacement was chosen.
    expect(dn.devnet.chain(last.chainId).client.core.keptHeads).toBeGreaterThanOrEqual(1);
    expect((await call(el, "eth_getTransactionReceipt", [last.txHash])).result).toBeNull();
    // both chains go on: safe passes the replaced height on both, never above local-safe
    for (const chain of [901n, 902n]) {
      await waitFor(`chain ${chain} safe past ${last.blockNumber + 3}`, async () => {
        const s = await status(dn.supernode.rpc.url, chain);
        expect(s.safe_l2.number).toBeLessThanOrEqual(s.local_safe_l2.number);
        return s.safe_l2.number > last.blockNumber + 3 ? s : undefined;
      });
    }
    // valid messages flow again after the replacement (the traffic first cancels the replaced transaction the EL
    // took back into its pool, which takes a block or two more under load)
    await waitFor("a valid message executed after the replacement", async () =>
      traffic.stats().executed > stats.executed ? true : undefined,
    );
    // The sequencer's EL took each invalid transaction back into its pool on the rewind (as geth does); the
    // sequencer never included it again, and the traffic cancelled it (same nonce) before it went on.
    expect(traffic.stats().cancelled).toBeGreaterThanOrEqual(2);
    // the follower derived the same replacement (its own interop activity denied the same block)
    const f = followers!.list[0]!;
    const fEl = f.chains.find((c) => c.chainId === last.chainId)!.el.httpUrl;
    const agreed = await waitFor("the follower's block at the replaced height", async () => {
      const b = await blockAt(fEl, last.blockNumber);
      const s = await status(f.rpcUrl, last.chainId);
      return b !== null && s.safe_l2.number >= last.blockNumber ? b : undefined;
    });
    expect(agreed.hash).toBe(replaced.hash);
    expect(
      (await metricSum(f.metricsUrl, "supernode_interop_invalidations_total"))[last.chainId.toString(10)],
    ).toBeGreaterThanOrEqual(1);
  }, 300_000);
});
