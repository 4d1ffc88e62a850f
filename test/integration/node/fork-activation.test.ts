/**
 * Fork activation mid-chain, end to end on the devnet. The chain starts at Canyon/Delta and activates Ecotone,
 * Fjord, Granite + Holocene, Isthmus and Jovian at L2 timestamps a block or two apart. A sequencing node builds
 * across the activation blocks, the batcher posts them (span batches, calldata), and a verifying node with its own
 * simulated execution client (the other variant) derives the chain from L1 alone. One L1 block is mined at exactly
 * an activation time and carries a user deposit and an EIP-1559 SystemConfig update, so that activation block is
 * the first of its epoch and holds a user deposit, and the Holocene parameters change after activation.
 *
 * Checked against the verifier's execution client over its eth JSON-RPC, with decoders independent of the project's
 * codecs: upgrade deposits byte for byte (`../shared/conformance/upgrade-txs` when present) and in protocol order
 * (`[L1 info] ++ user deposits ++ upgrade txs`), L1-info formats per block, Holocene/Jovian extraData and the base
 * fee, and identical block hashes on both nodes up to a common safe head past the last activation.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { concat, type Hex, keccak256, numberToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../../src/devnet/devnet.js";
import { devAccount } from "../../../src/devnet/l1/dev-accounts.js";
import type { SimulatedExecutionClient } from "../../../src/devnet/el/index.js";
import type { L1Client } from "../../../src/io/l1/l1-client.js";
import { encodeDepositTx } from "../../../src/protocol/l2/deposit-tx.js";
import {
  ecotoneUpgradeDeposits,
  fjordUpgradeDeposits,
  isthmusUpgradeDeposits,
  jovianUpgradeDeposits,
} from "../../../src/protocol/l2/upgrade-txs.js";
import type { Fork } from "../../../src/protocol/rollup-config.js";
import { createChainRpcMethods } from "../../../src/rpc/namespaces/stack.js";
import {
  decodeL1Info,
  depositTxBytes,
  getBlock,
  rpc,
  type L1InfoFormatName,
  L1_INFO_FORMATS,
  mineL1BlockAt,
  nextBaseFeeEip1559,
  type RpcBlock,
  readVector,
  sequencerOriginIndex,
  upgradeSourceHash,
  upgradeTxVectorsDir,
  userDepositSourceHash,
} from "./fork-support.js";
import { sharedL1, startNode, startVerifierEl, type TestNode } from "./node-support.js";

const CHAIN_ID = 901;
/** Seconds after L2 genesis (= block numbers, with one-second L2 blocks). */
const OFFSETS = {
  regolith: 0,
  canyon: 0,
  delta: 0,
  ecotone: 2,
  fjord: 3,
  granite: 4,
  holocene: 5,
  isthmus: 6,
  jovian: 8,
} as const satisfies Partial<Record<Fork, number>>;
/** The verifier's safe head must pass this block (the block after the first Jovian-format block). */
const TARGET = 10;
const DENOMINATOR = 10;
const ELASTICITY = 2;
const CAROL: Hex = "0x00000000000000000000000000000000000000c0";
const L1_INFO_DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const TX_DEPOSITED_TOPIC = "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32";
const UPGRADE_FORKS = ["ecotone", "fjord", "isthmus", "jovian"] as const;
type UpgradeFork = (typeof UPGRADE_FORKS)[number];

/**
 * Keeps the sequencer's transaction pool fed: one signed transfer every `everyMs` from dev account 6 until
 * `stop()`; returns how many the pool accepted.
 */
function userTraffic(elHttpUrl: string, everyMs: number): { stop(): Promise<number> } {
  const acct = devAccount(6).account;
  let running = true;
  let nonce = 0;
  const loop = (async () => {
    while (running) {
      const raw = await acct.signTransaction({
        chainId: CHAIN_ID,
        type: "eip1559",
        nonce,
        to: CAROL,
        value: 1000n + BigInt(nonce),
        gas: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000n,
      });
      try {
        await rpc(elHttpUrl, "eth_sendRawTransaction", [raw]);
        nonce++;
      } catch {
        // a stopping EL; the next round retries the same nonce
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return nonce;
    },
  };
}

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Expected EIP-2718 bytes of each fork's upgrade deposits: conformance vectors when present, else the builders. */
function expectedUpgradeTxs(dir: string | undefined): Record<UpgradeFork, Hex[]> {
  const built = (txs: ReturnType<typeof ecotoneUpgradeDeposits>): Hex[] =>
    txs.map((t) => `0x${Buffer.from(encodeDepositTx(t)).toString("hex")}` as Hex);
  const out: Record<UpgradeFork, Hex[]> = {
    ecotone: built(ecotoneUpgradeDeposits()),
    fjord: built(fjordUpgradeDeposits()),
    isthmus: built(isthmusUpgradeDeposits()),
    jovian: built(jovianUpgradeDeposits()),
  };
  if (dir !== undefined) {
    // Full-transaction vectors exist for Ecotone, Fjord and Isthmus; for Jovian only the creation code.
    const counts = { ecotone: 6, fjord: 3, isthmus: 8 } as const;
    for (const [fork, n] of Object.entries(counts) as [keyof typeof counts, number][]) {
      const vectors = Array.from({ length: n }, (_, i) => readVector(dir, `${fork}_tx_${i}`));
      expect(out[fork]).toEqual(vectors);
      out[fork] = vectors;
    }
  }
  return out;
}

describe("fork activation mid-chain: sequencer + verifier across Ecotone … Jovian", () => {
  let dir: string;
  let devnet: Devnet;
  let l1: L1Client | undefined;
  let verifierEl: SimulatedExecutionClient | undefined;
  let seq: TestNode | undefined;
  let ver: TestNode | undefined;
  let traffic: { stop(): Promise<number> } | undefined;
  let g: number;
  /** The activation whose block is the first of the specially mined L1 block's epoch (holding a user deposit). */
  let special: { fork: UpgradeFork; l1Number: number; l1Hash: Hex; logIndex: number };
  /** The L1 block of the EIP-1559 parameter update (sent once Holocene is active on L2). */
  let eip1559Update: number;
  /** Blocks 0..safe from the verifier's EL. */
  const blocks: RpcBlock[] = [];
  const vectorsDir = upgradeTxVectorsDir();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-fork-"));
    devnet = await startDevnet({
      dir,
      l1BlockTimeSec: 1,
      holdL1AtGenesis: true,
      l2BlockTimeSec: 1,
      batcherPollIntervalMs: 200,
      chains: [{ chainId: CHAIN_ID, variant: "a", dataMode: "calldata", batchType: "span", forkOffsets: OFFSETS }],
    });
    const chain = devnet.chain(CHAIN_ID);
    g = chain.rollupConfig.genesis.l2_time;
    // The L1 holds at its genesis. The next L1 block is mined at exactly the time of the first activation (Ecotone)
    // and holds a user deposit, so the L2 block at that time is the first of that L1 block's epoch. (Generic: the
    // first activation whose previous L2 block already has the last L1 block as its origin, simulated because anvil
    // may give two blocks the same timestamp.)
    const l1Times: number[] = [];
    const head = await devnet.l1Node.anvil.blockNumber();
    for (let n = devnet.l1.genesis.number; n <= head; n++) {
      l1Times.push(Number(BigInt((await devnet.l1Node.anvil.getBlock(n)).timestamp)));
    }
    const fork = UPGRADE_FORKS.find(
      (f) =>
        g + OFFSETS[f] > l1Times.at(-1)! && sequencerOriginIndex(l1Times, g, OFFSETS[f] - 1) === l1Times.length - 1,
    );
    if (fork === undefined) throw new Error(`L1 already ${l1Times.at(-1)! - g} s past L2 genesis: setup too slow`);
    const dep = await mineL1BlockAt(devnet.l1.rpcUrl, g + OFFSETS[fork], 1, () =>
      devnet.deposit(CHAIN_ID, { fromAccount: 5, to: CAROL, mint: 10n ** 17n, gasLimit: 100_000n }),
    );
    await devnet.resumeL1Mining();
    const log = dep.logs.find((l) => l.topics[0] === TX_DEPOSITED_TOPIC);
    if (log?.logIndex == null) throw new Error("no TransactionDeposited log");
    special = { fork, l1Number: Number(dep.blockNumber), l1Hash: dep.blockHash, logIndex: log.logIndex };

    l1 = sharedL1(devnet);
    verifierEl = await startVerifierEl(devnet, chain);
    seq = await startNode({ chain, l1, authUrl: chain.el.authUrl, dataDir: join(dir, "seq"), sequencer: true });
    ver = await startNode({ chain, l1, authUrl: verifierEl.authUrl, dataDir: join(dir, "ver"), sequencer: false });
    traffic = userTraffic(chain.el.httpUrl, 150);
    devnet.startBatchers();
  }, 60_000);

  afterAll(async () => {
    await traffic?.stop();
    await seq?.close();
    await ver?.close();
    await verifierEl?.stop();
    await l1?.stop();
    await devnet?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("the verifier derives the sequencer's chain across every activation: same hashes up to a common safe head", async () => {
    const s = seq as TestNode;
    const v = ver as TestNode;
    const verUrl = (verifierEl as SimulatedExecutionClient).httpUrl;
    const seqUrl = devnet.chain(CHAIN_ID).el.httpUrl;
    // EIP-1559 parameters set on L1 once Holocene is active on L2 (before, an update would not outlive the block
    // that applies it: pre-Holocene blocks carry no parameters in extraData)
    await waitFor(() => s.node.syncStatus().unsafe_l2.timestamp >= g + OFFSETS.holocene, 20_000, "Holocene on L2");
    const rc = await devnet.chain(CHAIN_ID).contracts.setEip1559Params(DENOMINATOR, ELASTICITY);
    eip1559Update = Number(rc.blockNumber);
    let safe = -1;
    await waitFor(
      async () => {
        const ref = v.node.syncStatus().safe_l2;
        if (ref.number < TARGET) return false;
        // the safe head is reported before the forkchoice update makes it canonical on the EL
        if ((await getBlock(verUrl, ref.number))?.hash !== ref.hash) return false;
        // and its parent already carries the updated parameters (so one base fee follows them)
        const parent = await getBlock(verUrl, ref.number - 1);
        if (parent === null || decodeL1Info(parent.transactions[0]!.input).number < BigInt(eip1559Update)) return false;
        safe = ref.number;
        return true;
      },
      30_000,
      `verifier safe head ≥ ${TARGET} past the EIP-1559 update`,
    );
    await waitFor(() => s.node.syncStatus().safe_l2.number >= safe, 10_000, "sequencer safe head");
    for (let n = 0; n <= safe; n++) {
      const b = await getBlock(verUrl, n);
      const a = await getBlock(seqUrl, n);
      expect(b, `verifier block ${n}`).not.toBeNull();
      expect(a?.hash, `block ${n}`).toBe(b?.hash);
      blocks.push(b as RpcBlock);
    }
    expect(Number(BigInt(blocks.at(-1)!.timestamp)) - g).toBeGreaterThan(OFFSETS.jovian);
    // Coverage note: how far the verifier derived from L1 blocks before Holocene time (pre-Holocene stages); the
    // rest went through the Holocene stages. Depends on how fast the setup ran, so it is reported, not asserted.
    let preHolocene = 0;
    for (let n = devnet.l1.genesis.number; ; n++) {
      const l1b = await devnet.l1Node.anvil.getBlock(n);
      if (Number(BigInt(l1b.timestamp)) >= g + OFFSETS.holocene) break;
      preHolocene = await v.node.safeHeadAtL1Block(n).then(
        (r) => r.safeHead.number,
        () => preHolocene,
      );
    }
    console.info(
      `[fork-activation] user deposit in the ${special.fork} activation block; L2 blocks 1..${preHolocene} derived ` +
        `with pre-Holocene rules, ${preHolocene + 1}..${safe} with Holocene's; EIP-1559 update in L1 block ${eip1559Update}`,
    );
  }, 50_000);

  it("each activation block carries exactly its fork's upgrade deposits, after the L1-info deposit and user deposits", () => {
    expect(blocks.length).toBeGreaterThan(TARGET);
    const expected = expectedUpgradeTxs(vectorsDir);
    // source hashes are the upgrade domain over the intent (spot checks against an independent computation)
    expect(expected.ecotone[2]).toContain(upgradeSourceHash("Ecotone: L1 Block Proxy Update").slice(2));
    expect(expected.jovian[4]).toContain(upgradeSourceHash("Jovian: Gas Price Oracle Set Jovian").slice(2));
    let sawUserDeposit = false;
    let userTxs = 0;
    for (const b of blocks.slice(1)) {
      const n = Number(BigInt(b.number));
      const ts = Number(BigInt(b.timestamp));
      const forks = UPGRADE_FORKS.filter((f) => g + OFFSETS[f] === ts);
      const what = `block ${n} (t+${ts - g}, ${forks.join("+") || "no activation"})`;
      const upgrades = forks.flatMap((f) => expected[f]);
      const txs = b.transactions;
      const deposits = txs.findIndex((t) => t.type !== "0x7e");
      const depositTxs = deposits === -1 ? txs : txs.slice(0, deposits);
      const poolTxs = deposits === -1 ? [] : txs.slice(deposits);
      expect(
        poolTxs.every((t) => t.type !== "0x7e"),
        `${what}: deposits come first`,
      ).toBe(true);
      const info = depositTxs[0];
      expect(info?.from, `${what}: tx 0 is the L1-info deposit`).toBe(L1_INFO_DEPOSITOR);
      const origin = decodeL1Info(info!.input);
      // user deposits: only in the first block of the specially mined L1 block's epoch
      const userDeposits = origin.number === BigInt(special.l1Number) && origin.sequenceNumber === 0n ? 1 : 0;
      expect(depositTxs.length, what).toBe(1 + userDeposits + upgrades.length);
      if (userDeposits === 1) {
        sawUserDeposit = true;
        expect(ts - g, "the user deposit's block is the activation block").toBe(OFFSETS[special.fork]);
        const d = depositTxs[1]!;
        expect(d.to).toBe(CAROL);
        expect(d.sourceHash).toBe(userDepositSourceHash(special.l1Hash, special.logIndex));
      }
      upgrades.forEach((want, i) => {
        const tx = depositTxs[1 + userDeposits + i]!;
        expect(depositTxBytes(tx), `${what}: upgrade tx ${i}`).toBe(want);
        expect(tx.hash).toBe(keccak256(want));
      });
      // the sequencer includes no pool transactions in an activation block with upgrade txs (and a Jovian
      // activation block with user transactions would be dropped by derivation)
      if (forks.length > 0) expect(poolTxs, `${what}: no user transactions`).toEqual([]);
      userTxs += poolTxs.length;
    }
    expect(sawUserDeposit).toBe(true);
    expect(userTxs, "user transactions were sequenced, batched and derived").toBeGreaterThan(0);
  });

  it("the L1-info deposit switches format the block after each activation (Bedrock → Ecotone → Isthmus → Jovian)", () => {
    expect(blocks.length).toBeGreaterThan(TARGET);
    const formatAt = (ts: number): L1InfoFormatName =>
      ts > g + OFFSETS.jovian
        ? "jovian"
        : ts > g + OFFSETS.isthmus
          ? "isthmus"
          : ts > g + OFFSETS.ecotone
            ? "ecotone"
            : "bedrock";
    const seen = new Set<L1InfoFormatName>();
    for (const b of blocks.slice(1)) {
      const ts = Number(BigInt(b.timestamp));
      const input = b.transactions[0]!.input;
      const want = formatAt(ts);
      seen.add(want);
      expect(input.slice(0, 10), `t+${ts - g}`).toBe(L1_INFO_FORMATS[want].selector);
      expect((input.length - 2) / 2).toBe(L1_INFO_FORMATS[want].length);
      const info = decodeL1Info(input);
      if (want === "bedrock") {
        expect(info.l1FeeOverhead).toBe(0n);
        // the raw (versioned) SystemConfig scalar: 0x01 ‖ … ‖ blob scalar u32 ‖ base scalar u32
        expect(info.l1FeeScalar).toBe((1n << 248n) | (810949n << 32n) | 1368n);
      } else {
        expect([info.baseFeeScalar, info.blobBaseFeeScalar]).toEqual([1368, 810949]);
      }
      if (want === "isthmus" || want === "jovian")
        expect([info.operatorFeeScalar, info.operatorFeeConstant]).toEqual([0, 0n]);
      if (want === "jovian") expect(info.daFootprintGasScalar).toBe(400);
      // header fields that follow the forks
      expect(b.parentBeaconBlockRoot !== undefined, `beacon root at t+${ts - g}`).toBe(ts >= g + OFFSETS.ecotone);
      expect(b.requestsHash !== undefined, `requests hash at t+${ts - g}`).toBe(ts >= g + OFFSETS.isthmus);
    }
    expect([...seen]).toEqual(["bedrock", "ecotone", "isthmus", "jovian"]);
  });

  it("Holocene: extraData carries the EIP-1559 params (v0, then v1 from Jovian) and the base fee follows them", () => {
    expect(blocks.length).toBeGreaterThan(TARGET);
    const hex = (v: number, bytes: number) => v.toString(16).padStart(bytes * 2, "0");
    let customApplied = 0;
    for (let i = 1; i < blocks.length; i++) {
      const b = blocks[i]!;
      const parent = blocks[i - 1]!;
      const ts = Number(BigInt(b.timestamp));
      const origin = decodeL1Info(b.transactions[0]!.input).number;
      const [den, el] = origin >= BigInt(eip1559Update) ? [DENOMINATOR, ELASTICITY] : [250, 6];
      const params = `${hex(den, 4)}${hex(el, 4)}`;
      const want =
        ts < g + OFFSETS.holocene ? "0x" : ts < g + OFFSETS.jovian ? `0x00${params}` : `0x01${params}${hex(0, 8)}`;
      expect(b.extraData, `extraData at t+${ts - g}`).toBe(want);
      // base fee from the parent: Canyon constants (250, 6) before Holocene, the parent's extraData from it
      const pts = Number(BigInt(parent.timestamp));
      const pHolocene = pts >= g + OFFSETS.holocene;
      const pJovian = pts >= g + OFFSETS.jovian;
      const px = parent.extraData;
      const denominator = pHolocene ? BigInt(`0x${px.slice(4, 12)}`) : 250n;
      const elasticity = pHolocene ? BigInt(`0x${px.slice(12, 20)}`) : 6n;
      const gasUsed = BigInt(parent.gasUsed);
      const blobGasUsed = BigInt(parent.blobGasUsed ?? "0x0");
      const base = {
        baseFee: BigInt(parent.baseFeePerGas),
        gasLimit: BigInt(parent.gasLimit),
        used: pJovian && blobGasUsed > gasUsed ? blobGasUsed : gasUsed,
      };
      const expected = nextBaseFeeEip1559({
        ...base,
        denominator,
        elasticity,
        ...(pJovian ? { minBaseFee: BigInt(`0x${px.slice(20, 36)}`) } : {}),
      });
      expect(BigInt(b.baseFeePerGas), `base fee at t+${ts - g}`).toBe(expected);
      if (denominator === BigInt(DENOMINATOR)) {
        customApplied++;
        // not vacuous: the chain constants would give another base fee
        expect(nextBaseFeeEip1559({ ...base, denominator: 250n, elasticity: 6n })).not.toBe(expected);
      }
    }
    expect(customApplied).toBeGreaterThan(0);
  });
  it("stack_outputAtBlock across Isthmus: message-passer storage root from a proof before, from the header after", async () => {
    expect(blocks.length).toBeGreaterThan(TARGET);
    const url = (verifierEl as SimulatedExecutionClient).httpUrl;
    const table = createChainRpcMethods((ver as TestNode).node, { version: "test" });
    for (const n of [OFFSETS.isthmus - 1, OFFSETS.isthmus, OFFSETS.isthmus + 1]) {
      const b = blocks[n]!;
      const full = await rpc<{ stateRoot: Hex; withdrawalsRoot?: Hex }>(url, "eth_getBlockByHash", [b.hash, false]);
      const proof = await rpc<{ storageHash: Hex }>(url, "eth_getProof", [
        "0x4200000000000000000000000000000000000016",
        [],
        numberToHex(n),
      ]);
      const isthmus = Number(BigInt(b.timestamp)) >= g + OFFSETS.isthmus;
      if (isthmus) expect(full.withdrawalsRoot, `block ${n}`).toBe(proof.storageHash);
      const storage = isthmus ? (full.withdrawalsRoot as Hex) : proof.storageHash;
      const zero: Hex = `0x${"00".repeat(32)}`;
      const want = keccak256(concat([zero, full.stateRoot, storage, b.hash]));
      const res = await table.get("stack_outputAtBlock")!.handler([numberToHex(n)], {});
      expect(res, `output at block ${n}`).toEqual([zero, want]);
    }
  });

  it("a restarted verifier resumes past the activations and still agrees with the sequencer", async () => {
    const chain = devnet.chain(CHAIN_ID);
    await (ver as TestNode).close();
    ver = undefined;
    // the safe head the stopped node left on its EL; the restarted one must derive past it
    const verUrl = (verifierEl as SimulatedExecutionClient).httpUrl;
    const before = Number(BigInt((await rpc<RpcBlock>(verUrl, "eth_getBlockByNumber", ["safe", false])).number));
    expect(before).toBeGreaterThan(OFFSETS.jovian);
    ver = await startNode({
      chain,
      l1: l1 as L1Client,
      authUrl: (verifierEl as SimulatedExecutionClient).authUrl,
      dataDir: join(dir, "ver"),
      sequencer: false,
    });
    const v = ver;
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
