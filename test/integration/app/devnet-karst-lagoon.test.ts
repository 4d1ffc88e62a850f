import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseForkOffsets } from "supernode-devnet/cli/fork-offsets";
import { type DevnetSupernode, startDevnetSupernode } from "supernode-devnet";
import { loadNutBundle } from "../../../src/config/nut-bundles.js";
import { silentLogger } from "../../../src/core/logger.js";
import { keccakHex } from "../../../src/protocol/block/keccak.js";
import { call, type L2Ref, waitFor } from "../../support/devnet-rpc.js";
import { interopDevnetOptions } from "../../support/interop-devnet.js";

/**
 * `supernode devnet --fork-offsets karst=6,lagoon=12 --interop`: both forks activate mid-chain on both variants.
 * The Karst activation block carries the Karst bundle (its gas on top of the limit, taken off again at the next
 * block), the Lagoon one the Lagoon bundle between setFeature and the ETHLiquidity funding (two chains in the
 * dependency set); the sequencer seals through getPayloadV5 from Karst (the simulated EL refuses V4 there), and safe
 * and finalized pass both activations.
 */
const KARST = 6;
const LAGOON = 12;
const GAS = 30_000_000;
type ChainStatus = { safe_l2: L2Ref; finalized_l2: L2Ref; local_safe_l2: L2Ref };
type RpcBlock = { gasLimit: string; transactions: string[] };

describe("supernode devnet --fork-offsets karst=6,lagoon=12 --interop", () => {
  let dir: string;
  let dn: DevnetSupernode;
  // the bundles' transactions by hash (keccak of the EIP-2718 bytes)
  const karst = loadNutBundle("karst").encoded.map((e) => keccakHex(e));
  const lagoon = loadNutBundle("lagoon").encoded.map((e) => keccakHex(e));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-devnet-forks-"));
    const forkOffsets = parseForkOffsets(`karst=${KARST},lagoon=${LAGOON}`);
    dn = await startDevnetSupernode(interopDevnetOptions(dir, { forkOffsets }), { logger: silentLogger });
  }, 120_000);

  afterAll(async () => {
    await dn?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const block = async (chain: bigint, n: number): Promise<RpcBlock> => {
    const r = await call(dn.devnet.chain(chain).el.httpUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false]);
    const b = r.result as RpcBlock | undefined;
    if (b === undefined) throw new Error(`no block ${n}`);
    return b;
  };

  it("safe and finalized pass both activations on both chains", async () => {
    for (const chain of ["901", "902"]) {
      await waitFor(
        `chain ${chain}: finalized past Lagoon`,
        async () => {
          const r = await call(`${dn.supernode.rpc.url}/${chain}/`, "stack_syncStatus");
          const st = r.result as ChainStatus;
          expect(st.safe_l2.number).toBeLessThanOrEqual(st.local_safe_l2.number);
          return st.finalized_l2.number > LAGOON + 1 ? st : undefined;
        },
        90_000,
      );
    }
  }, 100_000);

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
