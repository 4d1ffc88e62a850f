/**
 * Deposits and ConfigUpdate logs emitted on anvil by the devnet contracts decode byte-exact with the protocol
 * layer's decoders, and equal the logs the protocol layer's own builders say a real contract would emit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransactionReceipt } from "viem";
import { type Address, type Hash, hexToBytes } from "supernode/core";
import { devAccount } from "../../src/l1/dev-accounts.js";
import { configPayload, DevnetL1, type L1ChainContracts } from "../../src/l1/l1.js";
import { devnetRollupConfig } from "../../src/config.js";
import {
  applyConfigUpdateLog,
  configUpdateLog,
  depositToLog,
  type Log,
  type Receipt,
  userDepositsFromReceipts,
  userDepositSourceHash,
} from "supernode/protocol";

function toProtocolReceipt(r: TransactionReceipt): Receipt {
  return {
    type: 2,
    status: r.status === "success" ? 1 : 0,
    cumulativeGasUsed: r.cumulativeGasUsed,
    logs: r.logs.map((l) => ({
      address: l.address.toLowerCase() as Address,
      topics: l.topics as Hash[],
      data: l.data,
      logIndex: l.logIndex,
    })),
  } as unknown as Receipt;
}

function strip(l: Log): Log {
  return { address: l.address.toLowerCase() as Address, topics: l.topics, data: l.data };
}

describe("devnet L1 events decode with the protocol layer", () => {
  let l1: DevnetL1;
  let c: L1ChainContracts;
  beforeAll(async () => {
    l1 = await DevnetL1.start({ blockTimeSec: 0, chainIds: [901] });
    c = l1.chain(901);
  });
  afterAll(async () => {
    await l1?.stop();
  });

  it("TransactionDeposited → DepositTx (source hash over the block hash and log index)", async () => {
    const from = devAccount(0).address;
    const to: Address = "0x00000000000000000000000000000000000000aa";
    const r = await c.deposit({ to, value: 5n, mint: 10n ** 18n, gasLimit: 50_000n, data: "0x0102" });
    const receipt = toProtocolReceipt(r);
    const deposits = userDepositsFromReceipts([receipt], c.depositContract, r.blockHash);
    expect(deposits).toHaveLength(1);
    const logIndex = r.logs[0]?.logIndex ?? 0;
    expect(deposits[0]).toEqual({
      sourceHash: userDepositSourceHash(r.blockHash, logIndex),
      from,
      to,
      mint: 10n ** 18n,
      value: 5n,
      gas: 50_000n,
      isSystemTx: false,
      data: "0x0102",
    });
    const expected = depositToLog(c.depositContract, {
      from,
      to,
      mint: 10n ** 18n,
      value: 5n,
      gas: 50_000n,
      data: hexToBytes("0x0102"),
    });
    expect(strip(receipt.logs[0] as Log)).toEqual(strip(expected));
  });

  it("contract-creation deposits decode with to = null", async () => {
    const r = await c.deposit({ to: null, gasLimit: 300_000n, data: `0x${"60".repeat(40)}` });
    const [d] = userDepositsFromReceipts([toProtocolReceipt(r)], c.depositContract, r.blockHash);
    expect(d?.to).toBeNull();
    expect(d?.data).toBe(`0x${"60".repeat(40)}`);
  });

  it("ConfigUpdate logs apply to a SystemConfig exactly as the real contract's would", async () => {
    const cfg = devnetRollupConfig({
      l2ChainId: 901,
      l1ChainId: l1.anvil.chainId,
      l1Genesis: { hash: `0x${"11".repeat(32)}`, number: 0 },
      l2Genesis: { hash: `0x${"22".repeat(32)}`, timestamp: 1 },
      batcher: devAccount(1).address,
    });
    let sc = cfg.genesis.system_config;
    const newBatcher = devAccount(7).address;
    const steps: [() => Promise<TransactionReceipt>, number, Uint8Array][] = [
      [() => c.setBatcher(newBatcher), 0, hexToBytes(configPayload.batcher(newBatcher))],
      [() => c.setFeeScalars(2000, 700_000), 1, hexToBytes(configPayload.feeScalars(2000, 700_000))],
      [() => c.setGasLimit(40_000_000n), 2, hexToBytes(configPayload.gasLimit(40_000_000n))],
      [() => c.setEip1559Params(100, 4), 4, hexToBytes(configPayload.eip1559Params(100, 4))],
      [() => c.setOperatorFee(9, 1234n), 5, hexToBytes(configPayload.operatorFee(9, 1234n))],
      [() => c.setMinBaseFee(77n), 6, hexToBytes(configPayload.minBaseFee(77n))],
      [() => c.setDaFootprintGasScalar(321), 7, hexToBytes(configPayload.daFootprintGasScalar(321))],
    ];
    for (const [send, type, payload] of steps) {
      const receipt = toProtocolReceipt(await send());
      const log = receipt.logs.find((l) => l.address === c.systemConfig) as Log;
      expect(strip(log)).toEqual(strip(configUpdateLog(c.systemConfig, type, payload)));
      sc = applyConfigUpdateLog(sc, log, true);
    }
    expect(sc.batcherAddr).toBe(newBatcher);
    expect(sc.scalar).toBe(
      `0x01${"00".repeat(23)}${(700_000).toString(16).padStart(8, "0")}${(2000).toString(16).padStart(8, "0")}`,
    );
    expect(sc.overhead).toBe(`0x${"00".repeat(32)}`);
    expect(sc.gasLimit).toBe(40_000_000n);
    expect(sc.eip1559Params).toBe("0x0000006400000004");
    expect(sc.operatorFeeParams).toBe(`0x${"00".repeat(20)}00000009${(1234).toString(16).padStart(16, "0")}`);
    expect(sc.minBaseFee).toBe(77n);
    expect(sc.daFootprintGasScalar).toBe(321);
  });
});
