/**
 * The script docs/devnet.md shows, as a developer writes it with viem: deploy a solc-compiled contract (`store`,
 * `retrieve`, `event Stored`), watch its events over WebSocket, estimate the total fee of a write, write, read. Run
 * unchanged against a standalone client of each variant (el-dapp.test.ts) and against both chains of `npm start`
 * (devnet-developer.test.ts).
 */
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseAbi, webSocket } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chainConfig, publicActionsL2 } from "viem/op-stack";
import { expect } from "vitest";
import { firstEvent } from "./el-support.js";
import { compileSolidity } from "./solidity.js";

export const STORAGE_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Storage {
  uint256 value;
  event Stored(uint256 value);
  function store(uint256 v) external { value = v; emit Stored(v); }
  function retrieve() external view returns (uint256) { return value; }
}`;
export const storageAbi = parseAbi([
  "function store(uint256 v)",
  "function retrieve() view returns (uint256)",
  "event Stored(uint256 value)",
]);
let bytecode: Hex | undefined;

export interface ScriptTarget {
  readonly chainId: number;
  readonly http: string;
  readonly ws: string;
  readonly key: Hex;
}

/** Runs the docs' script against one chain's execution client; returns the contract and the write's hash. */
export async function developerScript(t: ScriptTarget): Promise<{ address: Hex; hash: Hex }> {
  bytecode ??= compileSolidity(STORAGE_SOURCE).Storage!.bytecode;
  const abi = storageAbi;
  const devnet = defineChain({
    ...chainConfig,
    id: t.chainId,
    name: `supernode devnet ${t.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [t.http], webSocket: [t.ws] } },
  });
  const account = privateKeyToAccount(t.key);
  const client = createPublicClient({ chain: devnet, transport: http(), pollingInterval: 50 }).extend(
    publicActionsL2(),
  );
  const live = createPublicClient({ chain: devnet, transport: webSocket() });
  const wallet = createWalletClient({ account, chain: devnet, transport: http() });
  try {
    const deployed = await client.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi, bytecode }) });
    const address = deployed.contractAddress!;
    expect(await client.getCode({ address })).not.toBe("0x");
    let unwatch = () => {};
    const stored = firstEvent<{ args: { value?: bigint | undefined } }[]>((cb) => {
      unwatch = live.watchContractEvent({ address, abi, eventName: "Stored", onLogs: cb });
    });
    const fee = await client.estimateContractTotalFee({ account, address, abi, functionName: "store", args: [42n] });
    const hash = await wallet.writeContract({ address, abi, functionName: "store", args: [42n] });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.l1Fee).toBeGreaterThan(0n);
    // the estimate prices the write at the head's gas price; the receipt at the price it paid: the same order
    const paid = receipt.gasUsed * receipt.effectiveGasPrice + (receipt.l1Fee ?? 0n);
    expect(fee).toBeGreaterThan(paid / 2n);
    expect(fee).toBeLessThan(paid * 2n);
    expect(await client.readContract({ address, abi, functionName: "retrieve" })).toBe(42n);
    expect((await stored)[0]?.args.value).toBe(42n);
    unwatch();
    return { address, hash };
  } finally {
    await (await live.transport.getRpcClient()).close();
  }
}
