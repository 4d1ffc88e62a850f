/**
 * EVM execution in the simulated execution client, seen as an application developer sees it: a contract compiled
 * with solc at test time is deployed and used with viem (and ethers) through variant A's RPC; every block is
 * imported by variant B, which re-executes it (same state root, same hash) and answers the same reads.
 */
import { Contract, JsonRpcProvider, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  defineChain,
  type Hash,
  type Hex,
  http,
  keccak256,
} from "viem";
import { chainConfig, publicActionsL2 } from "viem/op-stack";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import {
  ALICE_KEY,
  alice,
  buildAndSeal,
  call,
  engine,
  GENESIS_TIME,
  jovianAttrs,
  l1InfoDeposit,
  l1InfoJovian,
  newPayloadParams,
  startEl,
} from "../support/el-support.js";
import { type Compiled, compileSolidity } from "../support/solidity.js";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Child {
  function get() external pure returns (uint256) { return 7; }
}
contract Store {
  uint256 public value;
  event Stored(address indexed by, uint256 value);
  function set(uint256 v) external {
    require(v != 13, "unlucky number");
    value = v;
    emit Stored(msg.sender, v);
  }
  function clear() external { value = 0; }
  function spawn() external returns (uint256) {
    Child c = new Child();
    return this.peek(address(c));
  }
  function peek(address c) external view returns (uint256) { return Child(c).get(); }
}
`;

describe("simulated execution client: EVM execution (both variants)", () => {
  let a: SimulatedExecutionClient;
  let b: SimulatedExecutionClient;
  let store: Compiled;
  let pub: ReturnType<typeof client>;
  let pubB: ReturnType<typeof client>;
  let address: Address;
  let n = 0;

  const chain = (url: string) =>
    defineChain({
      ...chainConfig,
      id: 901,
      name: "sim",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });

  const client = (url: string) => createPublicClient({ chain: chain(url), transport: http(url) });

  /** Builds a block on A with the pool's transactions, imports it on B; both make it their head. */
  async function mine(): Promise<Record<string, unknown>> {
    n++;
    const ts = GENESIS_TIME + 2 * n;
    const info = l1InfoDeposit(l1InfoJovian({ number: 100 + n, time: ts - 1, seq: n, baseFee: 2_000_000_000n }), n);
    const attrs = jovianAttrs(ts, [info], { noTxPool: false });
    const payload = await buildAndSeal(a, attrs);
    const np = await engine<{ status: string }>(b, "engine_newPayloadV4", newPayloadParams(payload, 4, attrs));
    expect(np.status, JSON.stringify(np)).toBe("VALID");
    const h = payload.blockHash as Hash;
    await engine(b, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: h, safeBlockHash: h, finalizedBlockHash: h },
      null,
    ]);
    return payload;
  }

  async function send(data: Hex, to: Address | null, gas?: bigint): Promise<Hash> {
    const wallet = createWalletClient({ account: alice, chain: chain(a.httpUrl), transport: http(a.httpUrl) });
    const hash = await wallet.sendTransaction({
      ...(to === null ? {} : { to }),
      data,
      ...(gas === undefined ? {} : { gas }),
    });
    await mine();
    return hash;
  }

  beforeAll(async () => {
    a = await startEl({ variant: "a", api: ["eth", "net", "web3", "txpool", "debug"] });
    b = await startEl({ variant: "b", api: ["eth", "net", "web3", "debug"] });
    store = compileSolidity(SOURCE).Store!;
    pub = client(a.httpUrl);
    pubB = client(b.httpUrl);
    await mine(); // a first block with L1 attributes
    const wallet = createWalletClient({ account: alice, chain: chain(a.httpUrl), transport: http(a.httpUrl) });
    const hash = await wallet.deployContract({ abi: store.abi, bytecode: store.bytecode });
    await mine();
    const r = await pub.getTransactionReceipt({ hash });
    expect(r.status).toBe("success");
    address = r.contractAddress as Address;
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it("deploys: the code is there on both variants, the proof names its hash", async () => {
    const code = await pub.getCode({ address });
    expect(code !== undefined && code.length > 100).toBe(true);
    expect(await pubB.getCode({ address })).toBe(code);
    const proof = await pub.getProof({ address, storageKeys: [] });
    expect(proof.codeHash).toBe(keccak256(code as Hex));
  });

  it("reads and writes: storage, logs, and the same answers from the importing variant", async () => {
    const abi = store.abi;
    expect(await pub.readContract({ address, abi, functionName: "value" })).toBe(0n);
    const { request } = await pub.simulateContract({ account: alice, address, abi, functionName: "set", args: [42n] });
    const wallet = createWalletClient({ account: alice, chain: chain(a.httpUrl), transport: http(a.httpUrl) });
    const hash = await wallet.writeContract(request);
    await mine();
    const r = await pub.getTransactionReceipt({ hash });
    expect(r.status).toBe("success");
    expect(r.logs).toHaveLength(1);
    const ev = decodeEventLog({ abi, data: r.logs[0]!.data, topics: r.logs[0]!.topics });
    expect(ev.eventName).toBe("Stored");
    expect((ev.args as unknown as { value: bigint }).value).toBe(42n);
    expect(await pub.readContract({ address, abi, functionName: "value" })).toBe(42n);
    expect(await pubB.readContract({ address, abi, functionName: "value" })).toBe(42n);
    expect(await pub.getStorageAt({ address, slot: "0x0" })).toBe(`0x${"42".padStart(64, "0").replace("42", "2a")}`);
    // geth's estimate covers the call and is close to what it used
    const est = await pub.estimateContractGas({ account: alice, address, abi, functionName: "set", args: [43n] });
    expect(est).toBeGreaterThanOrEqual(r.gasUsed - 20_000n); // 42→43 is a dirty-slot write, cheaper than 0→42
  });

  it("reverts: the reason reaches viem and ethers; a mined revert is a failed receipt", async () => {
    const abi = store.abi;
    await expect(
      pub.simulateContract({ account: alice, address, abi, functionName: "set", args: [13n] }),
    ).rejects.toThrow(/unlucky number/);
    const provider = new JsonRpcProvider(a.httpUrl, 901, { staticNetwork: true });
    const c = new Contract(address, abi as never, new Wallet(ALICE_KEY, provider));
    await expect(c.getFunction("set").staticCall(13n)).rejects.toThrow(/unlucky number/);
    provider.destroy();
    const data = (await import("viem")).encodeFunctionData({ abi, functionName: "set", args: [13n] });
    const hash = await send(data, address, 100_000n);
    const r = await pub.getTransactionReceipt({ hash });
    expect(r.status).toBe("reverted");
    expect(r.gasUsed).toBeLessThan(100_000n);
  });

  it("refunds: clearing a slot uses less gas than it would without the refund", async () => {
    const { encodeFunctionData } = await import("viem");
    const hash = await send(encodeFunctionData({ abi: store.abi, functionName: "clear" }), address, 100_000n);
    const r = await pub.getTransactionReceipt({ hash });
    expect(r.status).toBe("success");
    // 21000 + calldata + SSTORE(non-zero→zero, 2900 + cold 2100) − refund 4800 (capped at a fifth)
    expect(r.gasUsed).toBeLessThan(21_000n + 16n * 4n + 5_100n);
  });

  it("callTracer gives the real call tree: CALL → CREATE, STATICCALL → STATICCALL", async () => {
    const { encodeFunctionData } = await import("viem");
    const hash = await send(encodeFunctionData({ abi: store.abi, functionName: "spawn" }), address, 500_000n);
    const trace = await call<{ type: string; calls?: { type: string; calls?: { type: string }[] }[]; output: Hex }>(
      a.httpUrl,
      "debug_traceTransaction",
      [hash, { tracer: "callTracer" }],
    );
    expect(trace.type).toBe("CALL");
    expect(trace.calls?.map((c) => c.type)).toEqual(["CREATE", "STATICCALL"]);
    expect(trace.calls?.[1]?.calls?.map((c) => c.type)).toEqual(["STATICCALL"]);
    expect(BigInt(trace.output)).toBe(7n);
    const onB = await call(b.httpUrl, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
    expect(onB).toEqual(trace);
  });

  it("the pool asks for the builder's intrinsic gas: an access list's entries count", async () => {
    const raw = await alice.signTransaction({
      chainId: 901,
      type: "eip1559",
      nonce: 99,
      to: address,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      accessList: [{ address, storageKeys: [`0x${"00".repeat(32)}`] }],
    });
    const r = await (await import("../support/el-support.js")).rpc(b.httpUrl, "eth_sendRawTransaction", [raw]);
    expect(r.error?.message).toBe("intrinsic gas too low: gas 21000, minimum needed 25300");
  });

  it("eth_createAccessList, eth_simulateV1 and debug_traceCall run on the latest state", async () => {
    const { encodeFunctionData, decodeFunctionResult } = await import("viem");
    const set9 = encodeFunctionData({ abi: store.abi, functionName: "set", args: [9n] });
    const al = await call<{ accessList: { address: Address; storageKeys: Hash[] }[]; gasUsed: Hex }>(
      a.httpUrl,
      "eth_createAccessList",
      [{ from: alice.address, to: address, data: set9 }, "latest"],
    );
    expect(al.accessList).toEqual([]); // the contract is the call's target: warm already, as geth leaves it out
    expect(BigInt(al.gasUsed)).toBeGreaterThan(21_000n);
    const readValue = encodeFunctionData({ abi: store.abi, functionName: "value" });
    const sim = await call<{ calls: { returnData: Hex; status: Hex; logs: unknown[] }[] }[]>(
      b.httpUrl,
      "eth_simulateV1",
      [
        {
          blockStateCalls: [
            {
              calls: [
                { from: alice.address, to: address, data: set9 },
                { to: address, data: readValue },
              ],
            },
          ],
        },
        "latest",
      ],
    );
    expect(sim[0]?.calls.map((c) => c.status)).toEqual(["0x1", "0x1"]);
    expect(sim[0]?.calls[0]?.logs).toHaveLength(1);
    expect(decodeFunctionResult({ abi: store.abi, functionName: "value", data: sim[0]!.calls[1]!.returnData })).toBe(
      9n,
    );
    const spawn = encodeFunctionData({ abi: store.abi, functionName: "spawn" });
    const t = await call<{ type: string; calls?: { type: string }[] }>(a.httpUrl, "debug_traceCall", [
      { from: alice.address, to: address, data: spawn },
      "latest",
      { tracer: "callTracer" },
    ]);
    expect(t.calls?.map((c) => c.type)).toEqual(["CREATE", "STATICCALL"]);
  });

  it("the gas price oracle answers: L1 fee estimates match the receipt's l1Fee; L1Block holds the L1 attributes", async () => {
    const l2 = pub.extend(publicActionsL2());
    const { encodeFunctionData } = await import("viem");
    const data = encodeFunctionData({ abi: store.abi, functionName: "set", args: [7n] });
    const l1Fee = await l2.estimateL1Fee({ account: alice, to: address, data });
    const total = await l2.estimateTotalFee({ account: alice, to: address, data });
    expect(await l2.getL1BaseFee()).toBe(2_000_000_000n);
    const hash = await send(data, address);
    const r = (await call<Record<string, Hex>>(a.httpUrl, "eth_getTransactionReceipt", [hash])) as Record<string, Hex>;
    const receiptL1Fee = BigInt(r.l1Fee!);
    expect(receiptL1Fee).toBeGreaterThan(0n);
    // viem prices an unsigned copy with placeholder fees plus the oracle's 68 signature bytes: close, not equal
    expect(Number(l1Fee - receiptL1Fee) / Number(receiptL1Fee)).toBeLessThan(0.1);
    expect(Number(l1Fee - receiptL1Fee) / Number(receiptL1Fee)).toBeGreaterThan(-0.1);
    const l2Fee = BigInt(r.gasUsed!) * BigInt(r.effectiveGasPrice!);
    expect(total).toBeGreaterThan(l2Fee);
    const l1Number = await pub.readContract({
      address: "0x4200000000000000000000000000000000000015",
      abi: [
        { type: "function", name: "number", inputs: [], outputs: [{ type: "uint64" }], stateMutability: "view" },
      ] as Abi,
      functionName: "number",
    });
    expect(l1Number).toBe(BigInt(100 + n));
  });
});
