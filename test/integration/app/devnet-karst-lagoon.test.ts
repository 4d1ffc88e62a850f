import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Followers, startFollowers } from "supernode-devnet/cli/followers";
import { parseForkOffsets } from "supernode-devnet/cli/fork-offsets";
import { type DevnetSupernode, startDevnetSupernode } from "supernode-devnet";
import { loadNutBundle } from "../../../src/config/nut-bundles.js";
import { silentLogger } from "../../../src/core/logger.js";
import { keccakHex } from "../../../src/protocol/block/keccak.js";
import { call, type L2Ref, waitFor } from "../../support/devnet-rpc.js";
import { interopDevnetOptions } from "../../support/interop-devnet.js";

/**
 * `supernode devnet --fork-offsets karst=6,lagoon=12 --interop`: both forks activate mid-chain on both variants
 * (901 on variant A, 902 on variant B). The Karst activation block carries the Karst bundle (its gas on top of the
 * limit, taken off again at the next block), the Lagoon one the Lagoon bundle between setFeature and the
 * ETHLiquidity funding (two chains in the dependency set); the sequencer seals through getPayloadV5 from Karst (the
 * simulated EL refuses V4 there), and safe and finalized pass both activations. A verifying follower (its own
 * process and execution clients, fed by L1 and P2P) derives the same block hashes through both activations, with
 * its own safe and finalized past them; the interop traffic that starts at the Lagoon activation is verified by
 * both supernodes, none of it invalid.
 */
const KARST = 6;
const LAGOON = 12;
const GAS = 30_000_000;
type ChainStatus = { safe_l2: L2Ref; finalized_l2: L2Ref; local_safe_l2: L2Ref };
type RpcBlock = { hash: string; gasLimit: string; timestamp: string; transactions: string[] };
type InteropStatus = { verified_timestamp: number; error: string | null };

describe("supernode devnet --fork-offsets karst=6,lagoon=12 --interop", () => {
  let dir: string;
  let dn: DevnetSupernode;
  let followers: Followers | undefined;
  // the bundles' transactions by hash (keccak of the EIP-2718 bytes)
  const karst = loadNutBundle("karst").encoded.map((e) => keccakHex(e));
  const lagoon = loadNutBundle("lagoon").encoded.map((e) => keccakHex(e));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-devnet-forks-"));
    const forkOffsets = parseForkOffsets(`karst=${KARST},lagoon=${LAGOON}`);
    dn = await startDevnetSupernode(interopDevnetOptions(dir, { forkOffsets, p2p: true }), { logger: silentLogger });
    followers = await startFollowers(
      dn.devnet,
      { count: 1, dir, sequencerRpcUrl: dn.supernode.rpc.url, rpcPort: 0, metricsPort: 0, logLevel: "error" },
      silentLogger,
    );
  }, 180_000);

  afterAll(async () => {
    await followers?.stop();
    await dn?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const blockFrom = async (elUrl: string, n: number): Promise<RpcBlock> => {
    const r = await call(elUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false]);
    const b = r.result as RpcBlock | undefined;
    if (b === undefined || b === null) throw new Error(`no block ${n}`);
    return b;
  };
  const block = (chain: bigint, n: number) => blockFrom(dn.devnet.chain(chain).el.httpUrl, n);
  const finalizedPastLagoon = async (rpcUrl: string, chain: string) =>
    waitFor(
      `chain ${chain} at ${rpcUrl}: finalized past Lagoon`,
      async () => {
        const r = await call(`${rpcUrl}/${chain}/`, "stack_syncStatus");
        const st = r.result as ChainStatus;
        expect(st.safe_l2.number).toBeLessThanOrEqual(st.local_safe_l2.number);
        return st.finalized_l2.number > LAGOON + 1 ? st : undefined;
      },
      120_000,
    );
  const interop = async (rpcUrl: string): Promise<InteropStatus> =>
    ((await call(`${rpcUrl}/`, "supernode_syncStatus")).result as { interop: InteropStatus }).interop;

  it("safe and finalized pass both activations on both chains", async () => {
    for (const chain of ["901", "902"]) await finalizedPastLagoon(dn.supernode.rpc.url, chain);
  }, 130_000);

  it("a verifying follower derives the same block hashes through both activations on both variants", async () => {
    const f = followers!.list[0]!;
    for (const chain of [901n, 902n]) {
      await finalizedPastLagoon(f.rpcUrl, chain.toString(10));
      const fEl = f.chains.find((c) => c.chainId === chain)!.el.httpUrl;
      for (const n of [KARST - 1, KARST, KARST + 1, LAGOON - 1, LAGOON, LAGOON + 1, LAGOON + 2]) {
        expect((await blockFrom(fEl, n)).hash, `chain ${chain} block ${n}`).toBe((await block(chain, n)).hash);
      }
    }
  }, 250_000);

  it("interop traffic from the Lagoon activation on is verified by both supernodes, none of it invalid", async () => {
    const lagoonTime = Number((await block(901n, LAGOON)).timestamp);
    const traffic = dn.traffic!;
    await waitFor("valid messages executed", async () => (traffic.stats().executed >= 4 ? true : undefined), 120_000);
    const sent = traffic.stats().executed;
    // the blocks holding those messages are at or below the head now: verifying up to its timestamp covers them
    const head = Number((await call(dn.devnet.chain(901n).el.httpUrl, "eth_blockNumber")).result as string);
    const now = Number((await block(901n, head)).timestamp);
    expect(now).toBeGreaterThan(lagoonTime);
    const f = followers!.list[0]!;
    for (const rpcUrl of [dn.supernode.rpc.url, f.rpcUrl]) {
      const st = await waitFor(
        `interop at ${rpcUrl} verified past the messages`,
        async () => {
          const s = await interop(rpcUrl);
          return s.verified_timestamp >= now ? s : undefined;
        },
        120_000,
      );
      expect(st.error).toBeNull();
    }
    expect(traffic.stats().executed).toBeGreaterThanOrEqual(sent);
    expect(traffic.stats().invalidReplaced).toBe(0);
  }, 250_000);

  it("the activation blocks carry the bundles, with their gas for one block", async () => {
    for (const chain of [901n, 902n]) {
      const k = await block(chain, KARST);
      expect(k.transactions.slice(1), `${chain} karst`).toEqual(karst);
      expect(Number(k.gasLimit)).toBe(GAS + 55_370_657);
      expect(Number((await block(chain, KARST + 1)).gasLimit)).toBe(GAS);
      const l = await block(chain, LAGOON);
      expect(l.transactions).toHaveLength(1 + 1 + 28 + 1);
      expect(l.transactions.slice(2, 30), `${chain} lagoon`).toEqual(lagoon);
      expect(Number(l.gasLimit)).toBe(GAS + 60_503_172 + 150_000);
      // the wrappers' gas is not taken off (only the bundle's: docs/upstream-2026.md)
      expect(Number((await block(chain, LAGOON + 1)).gasLimit)).toBe(GAS + 150_000);
    }
  });
});
