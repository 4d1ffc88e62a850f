/**
 * What an application does with Prague's (Isthmus's) account and block features, with viem against both variants:
 * an EIP-7702 delegation signed by a fresh account and sent by a sponsor in the same transaction as the first call
 * (viem estimates it with the authorization), then calls to the account running the delegate's code with the
 * account's own storage and events, `eth_getCode` showing the designator, a self-executed delegation; and a contract
 * reading the EIP-4788 beacon roots and EIP-2935 block hash history contracts, which answer what the headers say.
 */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  parseAbi,
  parseEventLogs,
  parseEther,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { chainConfig } from "viem/op-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import { alice, startEl, startMiner } from "../support/el-support.js";
import { compileSolidity } from "../support/solidity.js";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counter {
  uint256 public count;
  event Bumped(address indexed self, uint256 count);
  function bump(uint256 by) external { count += by; emit Bumped(address(this), count); }
}
contract SystemReader {
  address constant BEACON_ROOTS = 0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02;
  address constant HISTORY = 0x0000F90827F1C53a10cb7A02335B175320002935;
  function beaconRoot(uint256 ts) external view returns (bytes32) {
    (bool ok, bytes memory r) = BEACON_ROOTS.staticcall(abi.encode(ts));
    require(ok, "no beacon root");
    return abi.decode(r, (bytes32));
  }
  function blockHashes(uint256 n) external view returns (bytes32 fromHistory, bytes32 fromOpcode) {
    (bool ok, bytes memory r) = HISTORY.staticcall(abi.encode(n));
    require(ok, "no block hash");
    return (abi.decode(r, (bytes32)), blockhash(n));
  }
}`;
const counterAbi = parseAbi([
  "function count() view returns (uint256)",
  "function bump(uint256 by)",
  "event Bumped(address indexed self, uint256 count)",
]);
const readerAbi = parseAbi([
  "function beaconRoot(uint256 ts) view returns (bytes32)",
  "function blockHashes(uint256 n) view returns (bytes32 fromHistory, bytes32 fromOpcode)",
]);
let compiled: ReturnType<typeof compileSolidity> | undefined;

describe.each(["a", "b"] as const)(
  "variant %s: EIP-7702 delegations and the system contracts, with viem",
  (variant) => {
    let el: SimulatedExecutionClient;
    let miner: { stop(): Promise<void> };
    beforeAll(async () => {
      compiled ??= compileSolidity(SOURCE);
      el = await startEl({ variant });
      miner = startMiner(el, 20);
    });
    afterAll(async () => {
      await miner?.stop();
      await el?.stop();
    });

    const clients = () => {
      const chain = defineChain({
        ...chainConfig,
        id: 901,
        name: "devnet",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [el.httpUrl] } },
      });
      const client = createPublicClient({ chain, transport: http(), pollingInterval: 20 });
      const wallet = createWalletClient({ account: alice, chain, transport: http() });
      return { chain, client, wallet };
    };

    async function deploy(name: "Counter" | "SystemReader"): Promise<Hex> {
      const { client, wallet } = clients();
      const c = compiled![name]!;
      const hash = await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode });
      return (await client.waitForTransactionReceipt({ hash })).contractAddress!;
    }

    it("a sponsored delegation and call in one transaction, then calls run the delegate in the account", async () => {
      const { chain, client, wallet } = clients();
      const counter = await deploy("Counter");
      const eoa = privateKeyToAccount(generatePrivateKey());
      // signed by the (unfunded) account, sent by the sponsor with the first call to the account
      const authorization = await wallet.signAuthorization({ account: eoa, contractAddress: counter });
      const hash = await wallet.writeContract({
        address: eoa.address,
        abi: counterAbi,
        functionName: "bump",
        args: [5n],
        authorizationList: [authorization],
      });
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      expect((await client.getTransaction({ hash })).type).toBe("eip7702");
      const [bumped] = parseEventLogs({ abi: counterAbi, logs: receipt.logs });
      expect(bumped?.address).toBe(eoa.address.toLowerCase());
      expect(bumped?.args).toEqual({ self: eoa.address, count: 5n });
      expect(await client.getCode({ address: eoa.address })).toBe(`0xef0100${counter.slice(2).toLowerCase()}`);
      expect(await client.getTransactionCount({ address: eoa.address })).toBe(1);
      // a plain call to the account runs the delegate with the account's storage; the delegate's own is untouched
      const again = await wallet.writeContract({
        address: eoa.address,
        abi: counterAbi,
        functionName: "bump",
        args: [2n],
      });
      expect((await client.waitForTransactionReceipt({ hash: again })).status).toBe("success");
      expect(await client.readContract({ address: eoa.address, abi: counterAbi, functionName: "count" })).toBe(7n);
      expect(await client.readContract({ address: counter, abi: counterAbi, functionName: "count" })).toBe(0n);

      // a funded account delegates itself (its authorization carries the nonce after the transaction's own)
      const self = privateKeyToAccount(generatePrivateKey());
      const fund = await wallet.sendTransaction({ to: self.address, value: parseEther("1") });
      await client.waitForTransactionReceipt({ hash: fund });
      const own = createWalletClient({ account: self, chain, transport: http() });
      const selfAuth = await own.signAuthorization({ contractAddress: counter, executor: "self" });
      const selfHash = await own.writeContract({
        address: self.address,
        abi: counterAbi,
        functionName: "bump",
        args: [3n],
        authorizationList: [selfAuth],
      });
      expect((await client.waitForTransactionReceipt({ hash: selfHash })).status).toBe("success");
      expect(await client.getTransactionCount({ address: self.address })).toBe(2);
      expect(await client.readContract({ address: self.address, abi: counterAbi, functionName: "count" })).toBe(3n);
    });

    it("a contract reads the beacon roots and the block hash history: the headers' parent beacon root and hashes", async () => {
      const { client } = clients();
      const reader = await deploy("SystemReader");
      const head = await client.getBlock();
      const blockNumber = head.number;
      const root = await client.readContract({
        address: reader,
        abi: readerAbi,
        functionName: "beaconRoot",
        args: [head.timestamp],
        blockNumber,
      });
      expect(root).toBe(head.parentBeaconBlockRoot);
      for (const back of [1n, 3n]) {
        const [fromHistory, fromOpcode] = await client.readContract({
          address: reader,
          abi: readerAbi,
          functionName: "blockHashes",
          args: [blockNumber - back],
          blockNumber,
        });
        const expected = (await client.getBlock({ blockNumber: blockNumber - back })).hash;
        expect(fromHistory).toBe(expected);
        expect(fromOpcode).toBe(expected);
      }
      // a timestamp the contract never saw: it reverts, as on a real chain
      await expect(
        client.readContract({
          address: reader,
          abi: readerAbi,
          functionName: "beaconRoot",
          args: [head.timestamp + 1n],
          blockNumber,
        }),
      ).rejects.toThrow(/no beacon root/);
    });
  },
);
