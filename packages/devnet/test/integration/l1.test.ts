import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeAbiParameters, encodePacked, type Log } from "viem";
import { opaqueDataToDepositData } from "viem/op-stack";
import { CONFIG_UPDATE_TOPIC, TRANSACTION_DEPOSITED_TOPIC, UNSAFE_BLOCK_SIGNER_SLOT } from "../../src/l1/contracts.js";
import { devAccount } from "../../src/l1/dev-accounts.js";
import { configPayload, DevnetL1, type L1ChainContracts } from "../../src/l1/l1.js";
import type { Address, Hex } from "supernode/core";

const pad32 = (a: Address): Hex => `0x${a.slice(2).toLowerCase().padStart(64, "0")}`;
const u256 = (v: bigint | number): Hex => `0x${BigInt(v).toString(16).padStart(64, "0")}`;

function onlyLog(logs: readonly Log[], address: Address): Log {
  const mine = logs.filter((l) => l.address.toLowerCase() === address);
  expect(mine).toHaveLength(1);
  return mine[0] as Log;
}

describe("devnet L1 on anvil", () => {
  let l1: DevnetL1;
  let c: L1ChainContracts;
  beforeAll(async () => {
    l1 = await DevnetL1.start({ blockTimeSec: 0, slotsInAnEpoch: 2, chainIds: [901] });
    c = l1.chain(901);
  });
  afterAll(async () => {
    await l1?.stop();
  });

  it("starts on a dynamic loopback port and advances safe/finalized with the epoch", async () => {
    expect(l1.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await l1.anvil.mine(10);
    const latest = await l1.anvil.blockNumber();
    const safe = Number(BigInt((await l1.anvil.getBlock("safe")).number));
    const finalized = Number(BigInt((await l1.anvil.getBlock("finalized")).number));
    expect(safe).toBe(latest - 2);
    expect(finalized).toBe(latest - 4);
  });

  it("emits TransactionDeposited byte-exact to the real portal (version 0, packed opaque data)", async () => {
    const from = devAccount(0).address;
    const to: Address = "0x1234567890123456789012345678901234567890";
    const data: Hex = "0xdeadbeefcafe";
    const receipt = await c.deposit({ to, value: 7n, mint: 1_000n, gasLimit: 21_000n, data });
    const log = onlyLog(receipt.logs, c.depositContract);
    expect(log.topics).toEqual([TRANSACTION_DEPOSITED_TOPIC, pad32(from), pad32(to), u256(0)]);
    const opaque = encodePacked(["uint256", "uint256", "uint64", "bool", "bytes"], [1_000n, 7n, 21_000n, false, data]);
    expect(log.data).toBe(encodeAbiParameters([{ type: "bytes" }], [opaque]));
    // the padded tail is zero and the length is opaque length
    expect(BigInt(`0x${log.data.slice(66, 130)}`)).toBe(73n + 6n);
    const decoded = opaqueDataToDepositData(opaque);
    expect(decoded).toMatchObject({ mint: 1_000n, value: 7n, gas: 21_000n, isCreation: false, data });
  });

  it("encodes contract creations and long data with zero padding", async () => {
    const data = `0x${"ab".repeat(100)}` as Hex;
    const receipt = await c.deposit({ to: null, gasLimit: 1_000_000n, data });
    const log = onlyLog(receipt.logs, c.depositContract);
    expect(log.topics[2]).toBe(u256(0));
    const opaque = encodePacked(["uint256", "uint256", "uint64", "bool", "bytes"], [0n, 0n, 1_000_000n, true, data]);
    expect(log.data).toBe(encodeAbiParameters([{ type: "bytes" }], [opaque]));
  });

  it("emits ConfigUpdate with the exact ABI layouts of every update type", async () => {
    const batcher = devAccount(5).address;
    const cases: [() => Promise<{ logs: Log[] }>, number, Hex][] = [
      [() => c.setBatcher(batcher), 0, pad32(batcher)],
      [
        () => c.setFeeScalars(1368, 810949),
        1,
        `${u256(0)}${u256((1n << 248n) | (810949n << 32n) | 1368n).slice(2)}` as Hex,
      ],
      [() => c.setGasConfig(2100n, 1_000_000n), 1, `${u256(2100)}${u256(1_000_000).slice(2)}` as Hex],
      [() => c.setGasLimit(30_000_000n), 2, u256(30_000_000)],
      [() => c.setUnsafeBlockSigner(batcher), 3, pad32(batcher)],
      [() => c.setEip1559Params(250, 6), 4, u256((250n << 32n) | 6n)],
      [() => c.setOperatorFee(7, 11n), 5, u256((7n << 64n) | 11n)],
      [() => c.setMinBaseFee(1_000_000n), 6, u256(1_000_000)],
      [() => c.setDaFootprintGasScalar(400), 7, u256(400)],
    ];
    for (const [send, type, payload] of cases) {
      const receipt = await send();
      const log = onlyLog(receipt.logs, c.systemConfig);
      expect(log.topics).toEqual([CONFIG_UPDATE_TOPIC, u256(0), u256(type)]);
      expect(log.data).toBe(encodeAbiParameters([{ type: "bytes" }], [payload]));
    }
    expect(configPayload.batcher(batcher)).toBe(pad32(batcher));
    const slot = await l1.client.public.getStorageAt({
      address: c.systemConfig,
      slot: UNSAFE_BLOCK_SIGNER_SLOT,
    });
    expect(slot).toBe(pad32(batcher));
  });

  it("reorgs the L1 (anvil_reorg): the replaced block gets a new hash and its transactions are gone", async () => {
    const r = await c.deposit({ to: "0x00000000000000000000000000000000000000d0", gasLimit: 30_000n });
    const before = await l1.anvil.getBlock(Number(r.blockNumber));
    const head = await l1.anvil.blockNumber();
    await l1.anvil.reorg(head - Number(r.blockNumber) + 1);
    const after = await l1.anvil.getBlock(Number(r.blockNumber));
    expect(after.hash).not.toBe(before.hash);
    expect(after.transactions).toHaveLength(0);
    expect(await l1.anvil.blockNumber()).toBe(head);
    // blobs through the beacon endpoint are covered by the batcher tests
  });
});
