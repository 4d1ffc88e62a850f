import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildChainRuntimes } from "../../../src/app/chain-factory.js";
import { protocolHashing } from "../../../src/app/hashing.js";
import { Supernode } from "../../../src/app/supernode.js";
import { type DevnetSupernode, startDevnetSupernode } from "supernode-devnet";
import { loadConfig } from "../../../src/config/load.js";
import { silentLogger } from "../../../src/core/logger.js";
import {
  CROSS_L2_INBOX,
  executingAccessList,
  L2_TO_L2_CROSS_DOMAIN_MESSENGER as MESSENGER,
  L2_TO_L2_CROSS_DOMAIN_MESSENGER_ABI as MESSENGER_ABI,
  logPayloadHex,
  RELAYED_MESSAGE_TOPIC,
  SENT_MESSAGE_TOPIC,
} from "supernode-devnet/el/interop-predeploys";
import { devAccount } from "supernode-devnet/l1/dev-accounts";
import { compileSolidity } from "supernode-devnet/test-support/solidity";
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  toHex,
} from "viem";
import { EXECUTING_MESSAGE_TOPIC } from "../../../src/protocol/interop/messages.js";
import { call, type L2Ref, metricValue, waitFor } from "../../support/devnet-rpc.js";
import { interopDevnetOptions } from "../../support/interop-devnet.js";

/**
 * `supernode-devnet --interop` end to end: anvil L1, chains 901 (variant A) and 902 (variant B) on simulated
 * execution clients with the CrossL2Inbox, batchers, the real supernode with interop active from genesis, and the
 * devnet's message traffic (a valid message each way every two blocks). The cross-safe head of each chain must
 * pass blocks that execute messages from the other chain, never above local-safe; a restarted supernode resumes
 * from its verified store. Last, an application's message with viem and a compiled contract: sent with the
 * L2ToL2CrossDomainMessenger on each chain, relayed on the other (both variants) and verified; a relay with a forged
 * identifier has its block invalidated.
 */
const RECEIVER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
interface IMessenger { function crossDomainMessageContext() external view returns (address, uint256); }
contract Receiver {
  IMessenger constant M = IMessenger(0x4200000000000000000000000000000000000023);
  uint256 public value; address public from; uint256 public source;
  function receiveMessage(uint256 v) external {
    require(msg.sender == address(M), "not the messenger");
    (from, source) = M.crossDomainMessageContext();
    value = v;
  }
}`;
const RECEIVER_ABI = parseAbi(["function receiveMessage(uint256 v)"]);
type ChainStatus = { unsafe_l2: L2Ref; safe_l2: L2Ref; local_safe_l2: L2Ref; finalized_l2: L2Ref };
type InteropStatus = { state: string; verified_timestamp: number; last_decision: string | null; error: string | null };

async function metric(sn: Supernode, name: string): Promise<number> {
  const url = sn.metricsServer?.url;
  if (url === undefined) throw new Error("metrics disabled");
  return metricValue(url, name);
}

describe("supernode-devnet --interop", () => {
  let dir: string;
  let dn: DevnetSupernode;
  let restarted: Supernode | undefined;

  const rpcOf = () => restarted ?? dn.supernode;
  const chainStatus = async (chain: string): Promise<ChainStatus> => {
    const r = await call(`${rpcOf().rpc.url}/${chain}/`, "stack_syncStatus");
    if (r.result === undefined) throw new Error(r.error?.message ?? "no status");
    return r.result as ChainStatus;
  };
  const interop = async (): Promise<InteropStatus> => {
    const r = await call(`${rpcOf().rpc.url}/`, "supernode_syncStatus");
    const st = (r.result as { interop?: InteropStatus } | undefined)?.interop;
    if (st === undefined) throw new Error("no interop status");
    return st;
  };
  /** Blocks ≤ `to` of `chain` that carry an ExecutingMessage (from its execution client). */
  const executingBlocks = async (chain: bigint, to: number): Promise<number[]> => {
    const r = await call(dn.devnet.chain(chain).el.httpUrl, "eth_getLogs", [
      { fromBlock: "0x0", toBlock: `0x${to.toString(16)}`, address: CROSS_L2_INBOX, topics: [EXECUTING_MESSAGE_TOPIC] },
    ]);
    return (r.result as Array<{ blockNumber: string }>).map((l) => Number(l.blockNumber));
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-devnet-interop-"));
    dn = await startDevnetSupernode(interopDevnetOptions(dir), { logger: silentLogger });
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await dn?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("verifies messages both ways: safe passes executing blocks on both chains, never above local-safe", async () => {
    const activation = dn.devnet.chains[0]!.rollupConfig.lagoon_time!;
    expect(activation).toBe(dn.devnet.chains[0]!.rollupConfig.genesis.l2_time);
    const verified0 = await metric(dn.supernode, "supernode_interop_timestamps_verified_total");
    // Wait until each chain's safe head has passed at least two blocks executing a message from the other chain.
    for (const chain of [901n, 902n]) {
      await waitFor(
        `chain ${chain}: two executing messages at or below safe`,
        async () => {
          const st = await chainStatus(chain.toString(10));
          expect(st.safe_l2.number).toBeLessThanOrEqual(st.local_safe_l2.number);
          const n = (await executingBlocks(chain, st.safe_l2.number)).length;
          return n >= 2 ? n : undefined;
        },
        90_000,
      );
    }
    const st = await interop();
    expect(st.state).not.toBe("halted");
    expect(st.error).toBeNull();
    expect(st.verified_timestamp).toBeGreaterThan(activation);
    for (const chain of ["901", "902"]) {
      const s = await chainStatus(chain);
      expect(s.safe_l2.number).toBeGreaterThan(0);
      expect(s.safe_l2.number).toBeLessThanOrEqual(s.local_safe_l2.number);
      // read after the chain: verification only moves forward
      expect(s.safe_l2.timestamp).toBeLessThanOrEqual((await interop()).verified_timestamp);
    }
    const traffic = dn.traffic!.stats();
    expect(traffic.executed).toBeGreaterThanOrEqual(4);
    expect(traffic.errors).toBe(0);
    expect(await metric(dn.supernode, "supernode_interop_timestamps_verified_total")).toBeGreaterThan(verified0);
    expect(await metric(dn.supernode, "supernode_interop_verified_timestamp")).toBeGreaterThanOrEqual(
      st.verified_timestamp,
    );
  }, 120_000);

  it("a restarted supernode resumes from its verified store and goes on verifying messages", async () => {
    const before = (await interop()).verified_timestamp;
    await dn.supernode.stop();
    const loaded = loadConfig([...dn.args], {});
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    restarted = await Supernode.start(loaded.config, {
      logger: silentLogger,
      buildChains: buildChainRuntimes,
      hashing: protocolHashing,
    });
    // The verified head is read back from disk, not re-verified from activation.
    const first = await waitFor("interop status after restart", interop);
    expect(first.verified_timestamp).toBeGreaterThanOrEqual(before);
    const executed = dn.traffic!.stats().executed;
    await waitFor(
      "new timestamps verified after the restart",
      async () => ((await interop()).verified_timestamp >= before + 4 ? true : undefined),
      90_000,
    );
    await waitFor("more messages", async () => (dn.traffic!.stats().executed > executed ? true : undefined), 90_000);
    // Verified after the restart: only the timestamps past the stored head (contiguous from it).
    const total = await metric(restarted, "supernode_interop_timestamps_verified_total");
    const now = (await interop()).verified_timestamp;
    expect(total).toBeLessThanOrEqual(now - before);
    expect(total).toBeGreaterThan(0);
  }, 120_000);

  it("a chain that is behind makes the other wait: nothing past the laggard's local-safe is verified", async () => {
    const sn = rpcOf();
    const waits0 = await metric(sn, 'supernode_interop_round_decisions_total{decision="wait"}');
    const batcher = dn.devnet.chain(902n).batcher;
    await batcher.stop();
    try {
      // 902's local-safe stops once its posted data is derived; 901's goes on
      const stalled = await waitFor(
        "chain 901 local-safe 4 s past chain 902's",
        async () => {
          const [a, b] = [await chainStatus("901"), await chainStatus("902")];
          return a.local_safe_l2.timestamp >= b.local_safe_l2.timestamp + 4 ? { a, b } : undefined;
        },
        90_000,
      );
      // in this order: safe ≤ verified ≤ local-safe hold although each can only move forward meanwhile
      const a = await chainStatus("901");
      const st = await interop();
      const b = await chainStatus("902");
      expect(st.verified_timestamp).toBeLessThanOrEqual(b.local_safe_l2.timestamp);
      expect(a.safe_l2.timestamp).toBeLessThanOrEqual(st.verified_timestamp);
      expect(a.safe_l2.number).toBeLessThan(a.local_safe_l2.number);
      expect(stalled.a.local_safe_l2.number).toBeGreaterThan(stalled.b.local_safe_l2.number);
      expect(await metric(sn, 'supernode_interop_round_decisions_total{decision="wait"}')).toBeGreaterThan(waits0);
    } finally {
      batcher.start();
    }
    // with 902's data posted again both chains' safe heads move on, nothing skipped
    const held = (await chainStatus("901")).local_safe_l2.timestamp;
    await waitFor(
      "verification past the point where 902 stopped",
      async () => ((await interop()).verified_timestamp > held ? true : undefined),
      90_000,
    );
    const [a, b] = [await chainStatus("901"), await chainStatus("902")];
    expect(a.safe_l2.number).toBeLessThanOrEqual(a.local_safe_l2.number);
    expect(b.safe_l2.number).toBeLessThanOrEqual(b.local_safe_l2.number);
    expect((await interop()).error).toBeNull();
  }, 180_000);
  /** viem clients of dev account `index` on `chain`'s execution client (what an application points at). */
  const clients = (chain: bigint, index: number) => {
    const url = dn.devnet.chain(chain).el.httpUrl;
    const c = defineChain({
      id: Number(chain),
      name: `supernode devnet ${chain}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    return {
      pub: createPublicClient({ chain: c, transport: http(), pollingInterval: 100 }),
      wallet: createWalletClient({ account: devAccount(index).account, chain: c, transport: http() }),
    };
  };

  /** `sendMessage` on `src` (a call of `receiveMessage(v)` on `receiver` of `dst`): the identifier and payload. */
  const sendMessage = async (src: bigint, dst: bigint, index: number, receiver: Address, v: bigint) => {
    const s = clients(src, index);
    const message = encodeFunctionData({ abi: RECEIVER_ABI, functionName: "receiveMessage", args: [v] });
    const hash = await s.wallet.writeContract({
      address: MESSENGER,
      abi: MESSENGER_ABI,
      functionName: "sendMessage",
      args: [dst, receiver, message],
    });
    const r = await s.pub.waitForTransactionReceipt({ hash });
    const log = r.logs.find((l) => l.address.toLowerCase() === MESSENGER && l.topics[0] === SENT_MESSAGE_TOPIC);
    if (log === undefined) throw new Error("no SentMessage");
    const { timestamp } = await s.pub.getBlock({ blockHash: r.blockHash });
    const id = {
      origin: MESSENGER,
      blockNumber: r.blockNumber,
      logIndex: BigInt(log.logIndex),
      timestamp,
      chainId: src,
    };
    return { id, payload: logPayloadHex(log as { topics: Hex[]; data: Hex }) };
  };

  /** `relayMessage(id, payload)` on `dst` with the access list the CrossL2Inbox requires. */
  const relayMessage = async (
    dst: bigint,
    index: number,
    id: Parameters<typeof executingAccessList>[0],
    payload: Hex,
  ) => {
    const d = clients(dst, index);
    const hash = await d.wallet.writeContract({
      address: MESSENGER,
      abi: MESSENGER_ABI,
      functionName: "relayMessage",
      args: [id, payload],
      accessList: executingAccessList(id, keccak256(payload)),
    });
    return d.pub.waitForTransactionReceipt({ hash });
  };

  it("an application's message: sent with the messenger, relayed on both variants and cross-safe; a forged one invalidated", async () => {
    const { abi, bytecode } = compileSolidity(RECEIVER).Receiver!;
    const read = (chain: bigint, receiver: Address, fn: string) =>
      clients(chain, 0).pub.readContract({ address: receiver, abi: abi as Abi, functionName: fn });
    const oneWay = async (src: bigint, dst: bigint, index: number) => {
      const d = clients(dst, index);
      const deployed = await d.pub.waitForTransactionReceipt({
        hash: await d.wallet.deployContract({ abi, bytecode }),
      });
      const receiver = deployed.contractAddress!;
      const { id, payload } = await sendMessage(src, dst, index, receiver, 42n);
      const r = await relayMessage(dst, index, id, payload);
      expect(r.status).toBe("success");
      const relayed = r.logs.find(
        (l) => l.address.toLowerCase() === MESSENGER && l.topics[0] === RELAYED_MESSAGE_TOPIC,
      );
      expect(relayed?.topics[1]).toBe(toHex(src, { size: 32 }));
      expect(r.logs[0]?.address.toLowerCase()).toBe(CROSS_L2_INBOX); // the ExecutingMessage
      expect(await read(dst, receiver, "value")).toBe(42n);
      expect(String(await read(dst, receiver, "from")).toLowerCase()).toBe(devAccount(index).address);
      expect(await read(dst, receiver, "source")).toBe(src);
      return { receiver, relay: r };
    };
    // 901 (variant A) → 902 (variant B) and back, at once
    const [to902, to901] = await Promise.all([oneWay(901n, 902n, 2), oneWay(902n, 901n, 3)]);
    // the supernode verifies both: each relay's block becomes cross-safe as it was built
    for (const [chain, r] of [
      [902n, to902.relay],
      [901n, to901.relay],
    ] as const) {
      await waitFor(
        `chain ${chain}: the relay's block cross-safe`,
        async () =>
          (await chainStatus(chain.toString(10))).safe_l2.number >= Number(r.blockNumber) ? true : undefined,
        90_000,
      );
      const b = await call(dn.devnet.chain(chain).el.httpUrl, "eth_getBlockByNumber", [toHex(r.blockNumber), false]);
      expect((b.result as { hash: string }).hash).toBe(r.blockHash);
    }
    // A forged identifier (a log index the source block does not have) passes the execution client, which cannot
    // know; the supernode finds no such initiating log and invalidates the block that executes it.
    const metricsUrl = rpcOf().metricsServer!.url;
    const invalidations = 'supernode_interop_invalidations_total{chain_id="902"}';
    const before = await metricValue(metricsUrl, invalidations);
    const sent = await sendMessage(901n, 902n, 4, to902.receiver, 666n);
    const forged = await relayMessage(902n, 4, { ...sent.id, logIndex: sent.id.logIndex + 100n }, sent.payload);
    expect(forged.status).toBe("success");
    const el902 = dn.devnet.chain(902n).el.httpUrl;
    await waitFor(
      "the forged relay's block invalidated and replaced",
      async () =>
        (await metricValue(metricsUrl, invalidations)) > before &&
        (await call(el902, "eth_getTransactionReceipt", [forged.transactionHash])).result === null
          ? true
          : undefined,
      90_000,
    );
    expect(await read(902n, to902.receiver, "value")).toBe(42n);
  }, 180_000);
});
