/**
 * Fork activation mid-chain, end to end on the devnet. Two chains on one L1, one-second L2 blocks:
 * - 901 ("staggered", sequencer EL variant A): Canyon/Delta at genesis, then Ecotone, Fjord, Granite, Holocene,
 *   Isthmus and Jovian a block or two apart;
 * - 902 ("together", sequencer EL variant B): Bedrock/Regolith at genesis, Canyon + Delta at block 2, and Ecotone …
 *   Jovian all in block 3 (22 upgrade deposits in one block, Bedrock-format L1 info, then Jovian format).
 * Per chain a sequencing node builds across the activation blocks with user transactions in its pool, the batcher
 * posts span (901) or singular (902) batches as calldata, and a verifying node with its own simulated EL (the other
 * variant) derives the chain from L1 alone. The L1 holds at genesis until one L1 block is mined at exactly 901's
 * Ecotone time with a user deposit (and an EIP-1559 update that must not survive into Holocene), so that activation
 * block is the first of its epoch; 901's EIP-1559 parameters are changed on L1 again once Holocene is active.
 *
 * Checked against the verifiers' execution clients over eth JSON-RPC, with decoders independent of the project's
 * codecs: upgrade deposits byte for byte (`../shared/conformance/upgrade-txs` when present) in protocol order
 * (`[L1 info] ++ user deposits ++ upgrade deposits`, no user transactions), L1-info formats per block, per-fork
 * header fields, Holocene/Jovian extraData and every base fee, identical block hashes on both nodes up to a common
 * safe head past the last activation, output roots across Isthmus, and a verifier restart past the activations.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { concat, type Hex, keccak256, numberToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "supernode-devnet";
import type { SimulatedExecutionClient } from "supernode-devnet/el";
import type { L1Client } from "../../../src/io/l1/l1-client.js";
import type { Fork } from "../../../src/protocol/rollup-config.js";
import { createChainRpcMethods } from "../../../src/rpc/namespaces/stack.js";
import {
  decodeL1Info,
  expectedBaseFee,
  depositTxBytes,
  expectedUpgradeTxs,
  getBlock,
  type L1InfoFormatName,
  L1_INFO_FORMATS,
  l1InfoFormatAt,
  mineL1BlockAt,
  nextBaseFeeEip1559,
  type RpcBlock,
  rpc,
  sequencerOriginIndex,
  UPGRADE_FORKS,
  type UpgradeFork,
  upgradeSourceHash,
  upgradeTxVectorsDir,
  userDepositSourceHash,
  userTraffic,
  waitFor,
} from "./fork-support.js";
import { sharedL1, startNode, startVerifierEl, type TestNode } from "./node-support.js";

type Offsets = Readonly<Record<Exclude<Fork, "karst" | "lagoon">, number>>;
interface Case {
  readonly id: number;
  readonly variant: "a" | "b";
  /** Seconds after L2 genesis (= block numbers, with one-second L2 blocks). */
  readonly offsets: Offsets;
  /** The verifier's safe head must pass this block. */
  readonly target: number;
  /** L1-info formats the chain goes through, in order. */
  readonly formats: readonly L1InfoFormatName[];
  readonly trafficAccount: number;
  readonly batchType: "span" | "singular";
}
const STAGGERED: Case = {
  id: 901,
  variant: "a",
  offsets: { regolith: 0, canyon: 0, delta: 0, ecotone: 2, fjord: 3, granite: 4, holocene: 5, isthmus: 6, jovian: 8 },
  target: 10,
  formats: ["bedrock", "ecotone", "isthmus", "jovian"],
  trafficAccount: 6,
  batchType: "span",
};
const TOGETHER: Case = {
  id: 902,
  variant: "b",
  offsets: { regolith: 0, canyon: 2, delta: 2, ecotone: 3, fjord: 3, granite: 3, holocene: 3, isthmus: 3, jovian: 3 },
  target: 6,
  formats: ["bedrock", "jovian"],
  trafficAccount: 7,
  // Singular batches across the activations (901 covers span batches). Had this chain used span batches, the
  // batcher would post singular ones until Delta is active at a block's L1 origin (derivation drops a span batch
  // whose start epoch is before Delta).
  batchType: "singular",
};
const CASES = [STAGGERED, TOGETHER] as const;
const DENOMINATOR = 10;
const ELASTICITY = 2;
const PRE_HOLOCENE_DENOMINATOR = 20;
const PRE_HOLOCENE_ELASTICITY = 3;
const CAROL: Hex = "0x00000000000000000000000000000000000000c0";
const L1_INFO_DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const TX_DEPOSITED_TOPIC = "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32";

interface Run {
  readonly c: Case;
  readonly verifierEl: SimulatedExecutionClient;
  readonly seq: TestNode;
  ver: TestNode;
  readonly traffic: { stop(): Promise<number> };
  /** Blocks 0..safe from the verifier's EL (filled by the first test). */
  readonly blocks: RpcBlock[];
}

describe("fork activation mid-chain: sequencer + verifier across Canyon … Jovian", () => {
  let dir: string;
  let devnet: Devnet;
  let l1: L1Client | undefined;
  const runs: Run[] = [];
  let g: number;
  /** 901's activation whose block is the first of the specially mined L1 block's epoch (holding a user deposit). */
  let special: { fork: UpgradeFork; l1Number: number; l1Hash: Hex; logIndex: number };
  /** The L1 block of 901's EIP-1559 parameter update (sent once Holocene is active on L2). */
  let eip1559Update: number;
  const vectorsDir = upgradeTxVectorsDir();
  const tsOf = (b: RpcBlock) => Number(BigInt(b.timestamp));
  /** 901's Holocene blocks between the pre-Holocene EIP-1559 update (L1) and the post-Holocene one. */
  const afterPreHoloceneUpdate = (r: Run, b: RpcBlock): boolean => {
    if (r.c !== STAGGERED || tsOf(b) < g + STAGGERED.offsets.holocene) return false;
    const origin = decodeL1Info(b.transactions[0]!.input).number;
    return origin >= BigInt(special.l1Number) && origin < BigInt(eip1559Update);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-fork-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 1,
      holdL1AtGenesis: true,
      l2BlockTimeSec: 1,
      batcherPollIntervalMs: 200,
      chains: CASES.map((c) => ({
        chainId: c.id,
        variant: c.variant,
        dataMode: "calldata" as const,
        batchType: c.batchType,
        forkOffsets: c.offsets,
      })),
    });
    g = devnet.chain(STAGGERED.id).rollupConfig.genesis.l2_time;
    // The L1 holds at its genesis. The next L1 block is mined at exactly 901's Ecotone time and holds a user
    // deposit, so the L2 block at that time is the first of that L1 block's epoch. (Generic: the first activation
    // whose previous L2 block already has the last L1 block as its origin, simulated because anvil may give two
    // blocks the same timestamp.)
    const l1Times: number[] = [];
    const head = await devnet.l1Node.anvil.blockNumber();
    for (let n = devnet.l1.genesis.number; n <= head; n++) {
      l1Times.push(Number(BigInt((await devnet.l1Node.anvil.getBlock(n)).timestamp)));
    }
    const o = STAGGERED.offsets;
    const fork = UPGRADE_FORKS.find(
      (f) => g + o[f] > l1Times.at(-1)! && sequencerOriginIndex(l1Times, g, o[f] - 1) === l1Times.length - 1,
    );
    if (fork === undefined) throw new Error(`L1 already ${l1Times.at(-1)! - g} s past L2 genesis: setup too slow`);
    // The same block sets EIP-1559 parameters before Holocene: they must not outlive the (pre-Holocene) block that
    // applies them, as the next block's SystemConfig is read back from that block (op-node PayloadToSystemConfig).
    const [dep] = await mineL1BlockAt(devnet.l1.rpcUrl, g + o[fork], 2, () =>
      Promise.all([
        devnet.deposit(STAGGERED.id, { fromAccount: 5, to: CAROL, mint: 10n ** 17n, gasLimit: 100_000n }),
        devnet.chain(STAGGERED.id).contracts.setEip1559Params(PRE_HOLOCENE_DENOMINATOR, PRE_HOLOCENE_ELASTICITY),
      ]),
    );
    await devnet.resumeL1Mining();
    const log = dep.logs.find((l) => l.topics[0] === TX_DEPOSITED_TOPIC);
    if (log?.logIndex == null) throw new Error("no TransactionDeposited log");
    special = { fork, l1Number: Number(dep.blockNumber), l1Hash: dep.blockHash, logIndex: log.logIndex };

    const sharedL1Client = sharedL1(devnet);
    l1 = sharedL1Client;
    for (const c of CASES) {
      const chain = devnet.chain(c.id);
      const verifierEl = await startVerifierEl(devnet, chain);
      const node = (authUrl: string, name: string, sequencer: boolean) =>
        startNode({ chain, l1: sharedL1Client, authUrl, dataDir: join(dir, `${c.id}-${name}`), sequencer });
      const seq = await node(chain.el.authUrl, "seq", true);
      const ver = await node(verifierEl.authUrl, "ver", false);
      const traffic = userTraffic({
        elHttpUrl: chain.el.httpUrl,
        chainId: c.id,
        accountIndex: c.trafficAccount,
        to: CAROL,
        everyMs: 150,
      });
      runs.push({ c, verifierEl, seq, ver, traffic, blocks: [] });
    }
    devnet.startBatchers();
  }, 60_000);

  afterAll(async () => {
    for (const r of runs) {
      await r.traffic.stop();
      await r.seq.close();
      await r.ver.close();
      await r.verifierEl.stop();
    }
    await l1?.stop();
    await devnet?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("each verifier derives its sequencer's chain across every activation: same hashes up to a common safe head", async () => {
    const staggered = runs[0]!;
    // EIP-1559 parameters set on L1 once Holocene is active on L2 (before, an update would not outlive the block
    // that applies it: pre-Holocene blocks carry no parameters in extraData)
    const holocene = g + STAGGERED.offsets.holocene;
    await waitFor(() => staggered.seq.node.syncStatus().unsafe_l2.timestamp >= holocene, 20_000, "Holocene on L2");
    const rc = await devnet.chain(STAGGERED.id).contracts.setEip1559Params(DENOMINATOR, ELASTICITY);
    eip1559Update = Number(rc.blockNumber);
    await Promise.all(
      runs.map(async (r) => {
        const verUrl = r.verifierEl.httpUrl;
        let safe = -1;
        let scanned = 0;
        let userTxSeen = false;
        await waitFor(
          async () => {
            const ref = r.ver.node.syncStatus().safe_l2;
            if (ref.number < r.c.target) return false;
            // the safe head is reported before the forkchoice update makes it canonical on the EL
            if ((await getBlock(verUrl, ref.number))?.hash !== ref.hash) return false;
            // a slow start builds the first blocks before any user transaction reaches the pool: go on until
            // one has been derived
            for (; !userTxSeen && scanned < ref.number; scanned++) {
              const b = await getBlock(verUrl, scanned + 1);
              userTxSeen = b?.transactions.some((t) => t.type !== "0x7e") ?? false;
            }
            if (!userTxSeen) return false;
            // (901) its parent already carries the updated parameters, so one base fee follows them
            if (r.c === STAGGERED) {
              const parent = await getBlock(verUrl, ref.number - 1);
              if (parent === null || decodeL1Info(parent.transactions[0]!.input).number < BigInt(eip1559Update))
                return false;
            }
            safe = ref.number;
            return true;
          },
          30_000,
          `chain ${r.c.id}: verifier safe head ≥ ${r.c.target}`,
        );
        await waitFor(() => r.seq.node.syncStatus().safe_l2.number >= safe, 10_000, `chain ${r.c.id}: sequencer safe`);
        for (let n = 0; n <= safe; n++) {
          const b = await getBlock(verUrl, n);
          expect(b, `chain ${r.c.id}: verifier block ${n}`).not.toBeNull();
          expect((await getBlock(devnet.chain(r.c.id).el.httpUrl, n))?.hash, `chain ${r.c.id} block ${n}`).toBe(
            b?.hash,
          );
          r.blocks.push(b as RpcBlock);
        }
        expect(tsOf(r.blocks.at(-1)!) - g).toBeGreaterThan(r.c.offsets.jovian);
      }),
    );
    // Coverage note: how far 901's verifier derived from L1 blocks before Holocene time (pre-Holocene stages); the
    // rest went through the Holocene stages. Depends on how fast the setup ran, so it is reported, not asserted.
    let preHolocene = 0;
    for (let n = devnet.l1.genesis.number; ; n++) {
      if (Number(BigInt((await devnet.l1Node.anvil.getBlock(n)).timestamp)) >= holocene) break;
      preHolocene = await staggered.ver.node.safeHeadAtL1Block(n).then(
        (x) => x.safeHead.number,
        () => preHolocene,
      );
    }
    console.info(
      `[fork-activation] 901: user deposit in the ${special.fork} activation block; L2 blocks 1..${preHolocene} ` +
        `derived with pre-Holocene rules, the rest with Holocene's; EIP-1559 update in L1 block ${eip1559Update}`,
    );
  }, 50_000);

  it("each activation block carries exactly its forks' upgrade deposits, after the L1-info deposit and user deposits", () => {
    const expected = expectedUpgradeTxs(vectorsDir);
    // source hashes are the upgrade domain over the intent (spot checks against an independent computation)
    expect(expected.ecotone[2]).toContain(upgradeSourceHash("Ecotone: L1 Block Proxy Update").slice(2));
    expect(expected.jovian[4]).toContain(upgradeSourceHash("Jovian: Gas Price Oracle Set Jovian").slice(2));
    for (const r of runs) {
      expect(r.blocks.length).toBeGreaterThan(r.c.target);
      let sawUserDeposit = false;
      let userTxs = 0;
      for (const b of r.blocks.slice(1)) {
        const ts = tsOf(b);
        const forks = UPGRADE_FORKS.filter((f) => g + r.c.offsets[f] === ts);
        const what = `chain ${r.c.id} block ${Number(BigInt(b.number))} (${forks.join("+") || "no upgrade"})`;
        const upgrades = forks.flatMap((f) => expected[f]);
        const txs = b.transactions;
        const firstUserTx = txs.findIndex((t) => t.type !== "0x7e");
        const deposits = firstUserTx === -1 ? txs : txs.slice(0, firstUserTx);
        const poolTxs = firstUserTx === -1 ? [] : txs.slice(firstUserTx);
        expect(
          poolTxs.every((t) => t.type !== "0x7e"),
          `${what}: deposits come first`,
        ).toBe(true);
        expect(deposits[0]?.from, `${what}: tx 0 is the L1-info deposit`).toBe(L1_INFO_DEPOSITOR);
        const origin = decodeL1Info(deposits[0]!.input);
        // user deposits: only 901's, in the first block of the specially mined L1 block's epoch
        const userDeposits =
          r.c === STAGGERED && origin.number === BigInt(special.l1Number) && origin.sequenceNumber === 0n ? 1 : 0;
        expect(deposits.length, what).toBe(1 + userDeposits + upgrades.length);
        if (userDeposits === 1) {
          sawUserDeposit = true;
          expect(ts - g, "the user deposit's block is the activation block").toBe(r.c.offsets[special.fork]);
          expect(deposits[1]?.to).toBe(CAROL);
          expect(deposits[1]?.sourceHash).toBe(userDepositSourceHash(special.l1Hash, special.logIndex));
        }
        upgrades.forEach((want, i) => {
          const tx = deposits[1 + userDeposits + i]!;
          expect(depositTxBytes(tx), `${what}: upgrade deposit ${i}`).toBe(want);
          expect(tx.hash).toBe(keccak256(want));
        });
        // the sequencer includes no pool transactions in an activation block with upgrade deposits (and a Jovian
        // activation block with user transactions would be dropped by derivation)
        if (forks.length > 0) expect(poolTxs, `${what}: no user transactions`).toEqual([]);
        userTxs += poolTxs.length;
      }
      expect(sawUserDeposit).toBe(r.c === STAGGERED);
      expect(userTxs, `chain ${r.c.id}: user transactions sequenced, batched and derived`).toBeGreaterThan(0);
    }
  });

  it("the L1-info format switches the block after each activation; header fields follow the forks", () => {
    for (const r of runs) {
      const o = r.c.offsets;
      const formatAt = (ts: number) => l1InfoFormatAt(ts, g, o);
      const seen: L1InfoFormatName[] = [];
      for (const b of r.blocks.slice(1)) {
        const ts = tsOf(b);
        const what = `chain ${r.c.id} t+${ts - g}`;
        const input = b.transactions[0]!.input;
        const want = formatAt(ts);
        if (seen.at(-1) !== want) seen.push(want);
        expect(input.slice(0, 10), what).toBe(L1_INFO_FORMATS[want].selector);
        expect((input.length - 2) / 2, what).toBe(L1_INFO_FORMATS[want].length);
        const info = decodeL1Info(input);
        if (want === "bedrock") {
          expect(info.l1FeeOverhead).toBe(0n);
          // the raw (versioned) SystemConfig scalar: 0x01 ‖ … ‖ blob scalar u32 ‖ base scalar u32
          expect(info.l1FeeScalar).toBe((1n << 248n) | (810949n << 32n) | 1368n);
        } else expect([info.baseFeeScalar, info.blobBaseFeeScalar], what).toEqual([1368, 810949]);
        if (want === "isthmus" || want === "jovian") {
          expect([info.operatorFeeScalar, info.operatorFeeConstant], what).toEqual([0, 0n]);
        }
        if (want === "jovian") expect(info.daFootprintGasScalar, what).toBe(400);
        expect(b.withdrawalsRoot !== undefined, `${what}: withdrawals root`).toBe(ts >= g + o.canyon);
        expect(b.parentBeaconBlockRoot !== undefined, `${what}: beacon root`).toBe(ts >= g + o.ecotone);
        expect(b.requestsHash !== undefined, `${what}: requests hash`).toBe(ts >= g + o.isthmus);
      }
      expect(seen, `chain ${r.c.id}`).toEqual(r.c.formats);
    }
  });

  it("Holocene: extraData carries the EIP-1559 params (v0, then v1 from Jovian) and every base fee follows them", () => {
    const hex = (v: number, bytes: number) => v.toString(16).padStart(bytes * 2, "0");
    let customApplied = 0;
    for (const r of runs) {
      const o = r.c.offsets;
      for (let i = 1; i < r.blocks.length; i++) {
        const b = r.blocks[i]!;
        const parent = r.blocks[i - 1]!;
        const ts = tsOf(b);
        const what = `chain ${r.c.id} t+${ts - g}`;
        const origin = decodeL1Info(b.transactions[0]!.input).number;
        const custom = r.c === STAGGERED && origin >= BigInt(eip1559Update);
        const params = custom ? `${hex(DENOMINATOR, 4)}${hex(ELASTICITY, 4)}` : `${hex(250, 4)}${hex(6, 4)}`;
        const want = ts < g + o.holocene ? "0x" : ts < g + o.jovian ? `0x00${params}` : `0x01${params}${hex(0, 8)}`;
        if (afterPreHoloceneUpdate(r, b)) {
          // the parameters of these blocks are the skipped test's below; here only the format
          expect(b.extraData.length, `${what}: extraData`).toBe(want.length);
          expect(b.extraData.slice(0, 4), `${what}: extraData version`).toBe(want.slice(0, 4));
        } else expect(b.extraData, `${what}: extraData`).toBe(want);
        const fee = expectedBaseFee(parent, ts, g, o);
        expect(BigInt(b.baseFeePerGas), `${what}: base fee`).toBe(fee.expected);
        if (fee.denominator === BigInt(DENOMINATOR)) {
          customApplied++;
          // not vacuous: the chain constants would give another base fee
          expect(nextBaseFeeEip1559({ ...fee.parent, denominator: 250n, elasticity: 6n })).not.toBe(fee.expected);
        }
      }
    }
    expect(customApplied).toBeGreaterThan(0);
  });

  // The attributes builder must carry what the block reads back as (op-node PayloadToSystemConfig: no EIP-1559
  // parameters before Holocene), not the SystemConfig it was built with: 901's pre-Holocene update must not reach
  // the Holocene blocks (extraData 0x00‖20‖3 where op-node derives the chain constants 0x00‖250‖6).
  it("a pre-Holocene EIP-1559 update does not outlive the block that applies it (op-node PayloadToSystemConfig)", () => {
    const r = runs[0]!;
    const affected = r.blocks.filter((b) => afterPreHoloceneUpdate(r, b));
    expect(affected.length).toBeGreaterThan(0);
    for (const b of affected) {
      const v = tsOf(b) >= g + r.c.offsets.jovian ? "01" : "00";
      const min = v === "01" ? "0000000000000000" : "";
      expect(b.extraData, `t+${tsOf(b) - g}`).toBe(`0x${v}000000fa00000006${min}`);
    }
  });

  it("stack_outputAtBlock across Isthmus: message-passer storage root from a proof before, the header after", async () => {
    for (const r of runs) {
      const url = r.verifierEl.httpUrl;
      const table = createChainRpcMethods(r.ver.node, { version: "test" });
      const isthmus = r.c.offsets.isthmus;
      for (const n of [isthmus - 1, isthmus, isthmus + 1]) {
        const b = r.blocks[n]!;
        const full = await rpc<{ stateRoot: Hex; withdrawalsRoot?: Hex }>(url, "eth_getBlockByHash", [b.hash, false]);
        const proof = await rpc<{ storageHash: Hex }>(url, "eth_getProof", [
          "0x4200000000000000000000000000000000000016",
          [],
          numberToHex(n),
        ]);
        const post = tsOf(b) >= g + isthmus;
        if (post) expect(full.withdrawalsRoot, `chain ${r.c.id} block ${n}`).toBe(proof.storageHash);
        const storage = post ? (full.withdrawalsRoot as Hex) : proof.storageHash;
        const zero: Hex = `0x${"00".repeat(32)}`;
        const want = keccak256(concat([zero, full.stateRoot, storage, b.hash]));
        const res = await table.get("stack_outputAtBlock")!.handler([numberToHex(n)], {});
        expect(res, `chain ${r.c.id}: output at block ${n}`).toEqual([zero, want]);
      }
    }
  });

  it("a restarted verifier resumes past the activations and still agrees with the sequencer", async () => {
    const r = runs[0]!;
    const chain = devnet.chain(r.c.id);
    await r.ver.close();
    // the safe head the stopped node left on its EL; the restarted one must derive past it
    const verUrl = r.verifierEl.httpUrl;
    const before = Number(BigInt((await rpc<RpcBlock>(verUrl, "eth_getBlockByNumber", ["safe", false])).number));
    expect(before).toBeGreaterThan(r.c.offsets.jovian);
    r.ver = await startNode({
      chain,
      l1: l1 as L1Client,
      authUrl: r.verifierEl.authUrl,
      dataDir: join(dir, `${r.c.id}-ver`),
      sequencer: false,
    });
    const v = r.ver;
    let safe = -1;
    await waitFor(
      async () => {
        const ref = v.node.syncStatus().safe_l2;
        if (ref.number <= before || (await getBlock(verUrl, ref.number))?.hash !== ref.hash) return false;
        safe = ref.number;
        return true;
      },
      20_000,
      `restarted verifier safe head > ${before}`,
    );
    for (let n = 0; n <= safe; n++) {
      expect((await getBlock(verUrl, n))?.hash, `block ${n}`).toBe((await getBlock(chain.el.httpUrl, n))?.hash);
    }
  }, 30_000);
});
