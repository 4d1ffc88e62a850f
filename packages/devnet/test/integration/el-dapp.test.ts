/**
 * The script docs/devnet.md shows (viem: deploy, subscribe to the contract's events, estimate the total fee, write,
 * read; test/support/developer-script.ts) unchanged against both variants, and ethers' `contract.on` for the
 * contract it deployed, with a contract compiled by solc: `store(uint256)`, `retrieve()`, `event Stored(uint256)`.
 */
import { Contract, type ContractEventPayload, JsonRpcProvider, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import { developerScript, storageAbi } from "../support/developer-script.js";
import { ALICE_KEY, firstEvent, startEl, startMiner } from "../support/el-support.js";

describe.each(["a", "b"] as const)("variant %s: the docs' viem script and ethers contract.on", (variant) => {
  let el: SimulatedExecutionClient;
  let miner: { stop(): Promise<void> };
  beforeAll(async () => {
    el = await startEl({ variant, ws: true });
    miner = startMiner(el);
  });
  afterAll(async () => {
    await miner?.stop();
    await el?.stop();
  });

  it("deploys, subscribes, estimates the total fee, writes and reads; ethers contract.on sees the event", async () => {
    const { address } = await developerScript({ chainId: 901, http: el.httpUrl, ws: el.wsUrl!, key: ALICE_KEY });
    const provider = new JsonRpcProvider(el.httpUrl, 901, { staticNetwork: true, pollingInterval: 50 });
    const contract = new Contract(address, storageAbi, new Wallet(ALICE_KEY, provider));
    const before = el.filters.size;
    const onStored = firstEvent<unknown[]>((cb) => void contract.on("Stored", (...args: unknown[]) => cb(args)));
    while (el.filters.size === before) await new Promise((r) => setTimeout(r, 10));
    const tx = (await contract.getFunction("store")(7n)) as { hash: string };
    const payload = (await onStored).at(-1) as ContractEventPayload;
    expect(payload.args.value).toBe(7n);
    expect(payload.log.transactionHash).toBe(tx.hash);
    await contract.removeAllListeners();
    provider.destroy();
  });
});
