/**
 * The simulated execution client as an application developer meets it, through the client libraries themselves
 * (ethers 6, viem 2 with its OP Stack chain config), on both variants: live updates over HTTP filters and WebSocket
 * subscriptions, the pool's refusals, queued transactions, CORS.
 */
import { Contract, type ContractEventPayload, JsonRpcProvider, type Log as EthersLog, Wallet } from "ethers";
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  InsufficientFundsError,
  webSocket,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { chainConfig } from "viem/op-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hash, Hex } from "supernode/core";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import {
  ALICE_KEY,
  BOB,
  MESSAGE_PASSER,
  MINER_L1_BASE_FEE,
  alice,
  call,
  rpc,
  startEl,
  startMiner,
  withdrawalCalldata,
  firstEvent,
} from "../support/el-support.js";

const withdrawal = withdrawalCalldata(BOB, "0x1234");

/** Waits (bounded) until `pred` holds. */
async function until(pred: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error("timed out waiting for a condition");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each(["a", "b"] as const)("variant %s through ethers 6 and viem 2", (variant) => {
  let el: SimulatedExecutionClient;
  let miner: { stop(): Promise<void> };
  let chain: Chain;
  beforeAll(async () => {
    el = await startEl({ variant, ws: true, api: ["eth", "net", "web3", "txpool"], cors: ["*"] });
    miner = startMiner(el);
    chain = defineChain({
      ...chainConfig,
      id: 901,
      name: `devnet 901 (variant ${variant})`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [el.httpUrl], webSocket: [el.wsUrl!] } },
    });
  });
  afterAll(async () => {
    await miner?.stop();
    await el?.stop();
  });

  it("ethers: provider.on('block'), on('pending') and on(filter) over HTTP filters see blocks, transactions and logs", async () => {
    const provider = new JsonRpcProvider(el.httpUrl, 901, { staticNetwork: true, pollingInterval: 50 });
    try {
      const block = firstEvent<number>((cb) => void provider.on("block", cb));
      const pending = firstEvent<string>((cb) => void provider.on("pending", cb));
      const log = firstEvent<EthersLog>((cb) => void provider.on({ address: MESSAGE_PASSER }, cb));
      expect(await block).toBeGreaterThan(0);
      // ethers installs its filters once the subscribers start: the transaction goes out after that
      await until(() => el.filters.size >= 2);
      const wallet = new Wallet(ALICE_KEY, provider);
      const tx = await wallet.sendTransaction({ to: MESSAGE_PASSER, data: withdrawal, value: 7n });
      expect(await pending).toBe(tx.hash);
      const got = await log;
      expect(got.transactionHash).toBe(tx.hash);
      expect(got.address.toLowerCase()).toBe(MESSAGE_PASSER);
      expect((await tx.wait())?.status).toBe(1);
    } finally {
      provider.destroy();
    }
  });

  it("ethers: contract.on sees the L2ToL1MessagePasser's MessagePassed of a withdrawal sent through the contract", async () => {
    const provider = new JsonRpcProvider(el.httpUrl, 901, { staticNetwork: true, pollingInterval: 50 });
    try {
      const abi = [
        "function initiateWithdrawal(address _target, uint256 _gasLimit, bytes _data) payable",
        "event MessagePassed(uint256 indexed nonce, address indexed sender, address indexed target, uint256 value, uint256 gasLimit, bytes data, bytes32 withdrawalHash)",
      ];
      const passer = new Contract(MESSAGE_PASSER, abi, new Wallet(ALICE_KEY, provider));
      const before = el.filters.size;
      const passed = firstEvent<unknown[]>((cb) => void passer.on("MessagePassed", (...args: unknown[]) => cb(args)));
      await until(() => el.filters.size > before);
      const tx = (await passer.getFunction("initiateWithdrawal")(BOB, 100_000n, "0xbeef", { value: 11n })) as {
        hash: string;
      };
      const args = await passed;
      const payload = args.at(-1) as ContractEventPayload;
      expect(payload.log.transactionHash).toBe(tx.hash);
      expect(payload.args.sender).toBe(getAddress(alice.address));
      expect(payload.args.target).toBe(getAddress(BOB));
      expect(payload.args.value).toBe(11n);
      expect(payload.args.data).toBe("0xbeef");
      await passer.removeAllListeners();
    } finally {
      provider.destroy();
    }
  });

  it("viem: a WebSocket newHeads subscription and a logs subscription; an HTTP event filter", async () => {
    const ws = createPublicClient({ chain, transport: webSocket(el.wsUrl!) });
    const httpClient = createPublicClient({ chain, transport: http(el.httpUrl), pollingInterval: 50 });
    const unwatch: (() => void)[] = [];
    try {
      const head = firstEvent<{ hash: Hash | null; number: bigint | null }>((cb) =>
        unwatch.push(ws.watchBlocks({ onBlock: cb })),
      );
      const wsLogs = firstEvent<{ transactionHash: Hash | null }[]>((cb) =>
        unwatch.push(ws.watchEvent({ address: MESSAGE_PASSER, onLogs: cb })),
      );
      const filter = await httpClient.createEventFilter({ address: MESSAGE_PASSER });
      const b = await head;
      expect(b.number).toBeGreaterThan(0n);
      expect(b.hash).toMatch(/^0x[0-9a-f]{64}$/);
      // the message passer (native) writes a new storage slot, updates its nonce and logs: the estimate covers it
      const estimate = await httpClient.estimateGas({ account: alice, to: MESSAGE_PASSER, data: withdrawal });
      expect(estimate).toBeGreaterThanOrEqual(21_000n + 20_000n + 2_900n + 3_000n);
      const wallet = createWalletClient({ account: alice, chain, transport: http(el.httpUrl) });
      const hash = await wallet.sendTransaction({ to: MESSAGE_PASSER, data: withdrawal, value: 9n });
      expect((await wsLogs)[0]?.transactionHash).toBe(hash);
      const receipt = await httpClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      expect(receipt.status).toBe("success");
      const changes = await httpClient.getFilterChanges({ filter });
      expect(changes.map((l) => l.transactionHash)).toContain(hash);
      expect(await httpClient.uninstallFilter({ filter })).toBe(true);
    } finally {
      for (const u of unwatch) u();
      await (await ws.transport.getRpcClient()).close();
    }
  });

  it("an unfunded account's transaction is refused at submission with geth's message (viem and ethers)", async () => {
    const nobody = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({ account: nobody, chain, transport: http(el.httpUrl) });
    const err = await wallet.sendTransaction({ to: BOB, value: 0n }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const walk = (err as Error & { walk(fn: (e: unknown) => boolean): unknown }).walk;
    expect(walk.call(err, (e) => e instanceof InsufficientFundsError)).toBeInstanceOf(InsufficientFundsError);
    expect(String((err as Error).message)).toContain("insufficient funds for gas * price + value");
    const provider = new JsonRpcProvider(el.httpUrl, 901, { staticNetwork: true });
    try {
      const e2 = await new Wallet(generatePrivateKey(), provider)
        .sendTransaction({ to: BOB, value: 0n, gasLimit: 21_000n })
        .catch((e: unknown) => e);
      expect((e2 as { code?: string }).code).toBe("INSUFFICIENT_FUNDS");
    } finally {
      provider.destroy();
    }
  });

  it("a future-nonce transaction is queued: txpool_content, txpool_inspect, txpool_status list it", async () => {
    const nonce = Number(BigInt(await call<Hex>(el.httpUrl, "eth_getTransactionCount", [alice.address, "pending"])));
    const wallet = createWalletClient({ account: alice, chain, transport: http(el.httpUrl) });
    const raw = await wallet.signTransaction({
      to: BOB,
      value: 1n,
      nonce: nonce + 40,
      gas: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 6n,
      chain,
    });
    const hash = await call<Hash>(el.httpUrl, "eth_sendRawTransaction", [raw]);
    const sender = getAddress(alice.address);
    const content = await call<{ queued: Record<string, Record<string, { hash: Hash }>> }>(
      el.httpUrl,
      "txpool_content",
    );
    expect(content.queued[sender]?.[String(nonce + 40)]?.hash).toBe(hash);
    const inspect = await call<{ queued: Record<string, Record<string, string>> }>(el.httpUrl, "txpool_inspect");
    expect(inspect.queued[sender]?.[String(nonce + 40)]).toBe(
      `${getAddress(BOB)}: 1 wei + 21000 gas × 10000000000 wei`,
    );
    const status = await call<{ queued: Hex }>(el.httpUrl, "txpool_status");
    expect(Number(status.queued)).toBeGreaterThanOrEqual(1);
  });

  it("answers a browser's CORS preflight and names the origin in answers", async () => {
    const pre = await fetch(el.httpUrl, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    expect(pre.headers.get("access-control-allow-headers")).toBe("content-type");
    const res = await fetch(el.httpUrl, {
      method: "POST",
      headers: { origin: "http://localhost:5173", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(((await res.json()) as { result: string }).result).toBe("0x385");
  });

  it("rollup_gasPrices: the head's L1 base fee and eth_gasPrice", async () => {
    const r = await rpc(el.httpUrl, "rollup_gasPrices");
    expect(r.result).toEqual({ l1GasPrice: `0x${MINER_L1_BASE_FEE.toString(16)}`, l2GasPrice: expect.any(String) });
    const l2 = BigInt((r.result as { l2GasPrice: Hex }).l2GasPrice);
    expect(l2).toBeGreaterThan(0n);
  });
});
