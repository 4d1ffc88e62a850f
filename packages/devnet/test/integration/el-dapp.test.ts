/**
 * The script docs/devnet.md shows (viem: deploy, subscribe to the contract's events, estimate the total fee, write,
 * read) and ethers' `contract.on` for the deployed contract, unchanged against both variants, with a contract
 * compiled by solc: `store(uint256)`, `retrieve()`, `event Stored(uint256 value)`.
 */
import { Contract, type ContractEventPayload, JsonRpcProvider, Wallet } from "ethers";
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseAbi, webSocket } from "viem";
import { chainConfig, publicActionsL2 } from "viem/op-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import { ALICE_KEY, alice, call, startEl, startMiner, firstEvent } from "../support/el-support.js";
import { compileSolidity } from "../support/solidity.js";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Storage {
  uint256 value;
  event Stored(uint256 value);
  function store(uint256 v) external { value = v; emit Stored(v); }
  function retrieve() external view returns (uint256) { return value; }
}`;
const abi = parseAbi([
  "function store(uint256 v)",
  "function retrieve() view returns (uint256)",
  "event Stored(uint256 value)",
]);
let bytecode: Hex;

describe.each(["a", "b"] as const)("variant %s: the docs' viem script and ethers contract.on", (variant) => {
  let el: SimulatedExecutionClient;
  let miner: { stop(): Promise<void> };
  beforeAll(async () => {
    bytecode ??= compileSolidity(SOURCE).Storage!.bytecode;
    el = await startEl({ variant, ws: true });
    miner = startMiner(el);
  });
  afterAll(async () => {
    await miner?.stop();
    await el?.stop();
  });

  it("deploys, subscribes, estimates the total fee, writes and reads; ethers contract.on sees the event", async () => {
    const devnet901 = defineChain({
      ...chainConfig,
      id: 901,
      name: "supernode devnet 901",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [el.httpUrl], webSocket: [el.wsUrl!] } },
    });
    const account = alice;
    const client = createPublicClient({ chain: devnet901, transport: http(), pollingInterval: 50 }).extend(
      publicActionsL2(),
    );
    const live = createPublicClient({ chain: devnet901, transport: webSocket() });
    const wallet = createWalletClient({ account, chain: devnet901, transport: http() });

    const deployed = await client.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi, bytecode }) });
    const address = deployed.contractAddress!;
    expect(await call(el.httpUrl, "eth_getCode", [address, "latest"])).not.toBe("0x");

    const stored = firstEvent<{ args: { value?: bigint | undefined } }[]>((cb) =>
      live.watchContractEvent({ address, abi, eventName: "Stored", onLogs: cb }),
    );
    const provider = new JsonRpcProvider(el.httpUrl, 901, { staticNetwork: true, pollingInterval: 50 });
    const contract = new Contract(address, abi, new Wallet(ALICE_KEY, provider));
    const before = el.filters.size;
    const onStored = firstEvent<unknown[]>((cb) => void contract.on("Stored", (...args: unknown[]) => cb(args)));
    while (el.filters.size === before) await new Promise((r) => setTimeout(r, 10));

    const fee = await client.estimateContractTotalFee({ account, address, abi, functionName: "store", args: [42n] });
    expect(fee).toBeGreaterThan(0n);
    const hash = await wallet.writeContract({ address, abi, functionName: "store", args: [42n] });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.l1Fee).toBeGreaterThan(0n);
    expect(await client.readContract({ address, abi, functionName: "retrieve" })).toBe(42n);
    expect((await stored)[0]?.args.value).toBe(42n);
    const payload = (await onStored).at(-1) as ContractEventPayload;
    expect(payload.args.value).toBe(42n);
    expect(payload.log.transactionHash).toBe(hash);
    await contract.removeAllListeners();
    provider.destroy();
    await (await live.transport.getRpcClient()).close();
  });
});
