import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../../src/core/codec/hex.js";
import type { Address, Hash } from "../../../../src/core/types/primitives.js";
import type { Receipt } from "../../../../src/protocol/block/receipt.js";
import {
  calcBlobBaseFee,
  devnetL1Config,
  l1OriginBlobBaseFee,
  MAINNET_L1_CONFIG,
} from "../../../../src/protocol/l1/blob-fee.js";
import {
  decodeEcotoneScalars,
  decodeOperatorFeeParams,
  encodeEcotoneScalars,
  encodeOperatorFeeParams,
} from "../../../../src/protocol/l1/fee-scalars.js";
import {
  applyConfigUpdateLog,
  applySystemConfigReceipts,
  configUpdateLog,
  ConfigUpdateType,
} from "../../../../src/protocol/l1/system-config.js";
import type { SystemConfig } from "../../../../src/protocol/rollup-config.js";

const SC: Address = "0x229047fed2591dbec1ef1118d64f7af3db9eb290";
const Z32: Hash = `0x${"00".repeat(32)}`;
const base: SystemConfig = {
  batcherAddr: "0x6887246668a3b87f54deb3b94ba47a6f63f32985",
  overhead: Z32,
  scalar: Z32,
  gasLimit: 30_000_000n,
  eip1559Params: "0x0000000000000000",
  operatorFeeParams: Z32,
  minBaseFee: 0n,
  daFootprintGasScalar: 0,
};
const word = (hex: string): Uint8Array => hexToBytes(`0x${hex.padStart(64, "0")}`);

describe("SystemConfig ConfigUpdate logs", () => {
  it("applies every update type", () => {
    const batcher = "1111111111111111111111111111111111111111";
    let c = applyConfigUpdateLog(base, configUpdateLog(SC, ConfigUpdateType.Batcher, word(batcher)), true);
    expect(c.batcherAddr).toBe(`0x${batcher}`);
    c = applyConfigUpdateLog(c, configUpdateLog(SC, ConfigUpdateType.GasLimit, word("1c9c380")), true);
    expect(c.gasLimit).toBe(30_000_000n);
    c = applyConfigUpdateLog(c, configUpdateLog(SC, ConfigUpdateType.Eip1559Params, word("000000fa00000006")), true);
    expect(c.eip1559Params).toBe("0x000000fa00000006");
    c = applyConfigUpdateLog(
      c,
      configUpdateLog(
        SC,
        ConfigUpdateType.OperatorFee,
        hexToBytes(encodeOperatorFeeParams({ scalar: 7, constant: 9n })),
      ),
      true,
    );
    expect(decodeOperatorFeeParams(c.operatorFeeParams)).toEqual({ scalar: 7, constant: 9n });
    c = applyConfigUpdateLog(c, configUpdateLog(SC, ConfigUpdateType.MinBaseFee, word("3b9aca00")), true);
    expect(c.minBaseFee).toBe(1_000_000_000n);
    c = applyConfigUpdateLog(c, configUpdateLog(SC, ConfigUpdateType.DaFootprintGasScalar, word("0190")), true);
    expect(c.daFootprintGasScalar).toBe(400);
    expect(applyConfigUpdateLog(c, configUpdateLog(SC, ConfigUpdateType.UnsafeBlockSigner, word("01")), true)).toBe(c);
  });

  it("fee scalars: pre-Ecotone raw, post-Ecotone versioned and validated", () => {
    const overhead = word("bc");
    const scalarV1 = hexToBytes(encodeEcotoneScalars({ baseFeeScalar: 1368, blobBaseFeeScalar: 810949 }));
    const payload = new Uint8Array([...overhead, ...scalarV1]);
    const pre = applyConfigUpdateLog(base, configUpdateLog(SC, ConfigUpdateType.FeeScalars, payload), false);
    expect(pre.overhead).toBe(bytesToHex(overhead));
    const post = applyConfigUpdateLog(base, configUpdateLog(SC, ConfigUpdateType.FeeScalars, payload), true);
    expect(post.overhead).toBe(Z32);
    expect(decodeEcotoneScalars(post.scalar)).toEqual({ baseFeeScalar: 1368, blobBaseFeeScalar: 810949 });
    const badScalar = new Uint8Array(32);
    badScalar[0] = 2;
    expect(() =>
      applyConfigUpdateLog(base, configUpdateLog(SC, 1, new Uint8Array([...overhead, ...badScalar])), true),
    ).toThrow();
    // v0 scalar with dirty padding reads as 0xFFFFFFFF
    const dirty = new Uint8Array(32);
    dirty[5] = 1;
    expect(decodeEcotoneScalars(bytesToHex(dirty))).toEqual({ baseFeeScalar: 0xffffffff, blobBaseFeeScalar: 0 });
  });

  it("skips malformed updates and failed receipts, keeps order", () => {
    const good1 = configUpdateLog(SC, 2, word("01"));
    const bad = { ...configUpdateLog(SC, 2, word("02")), data: "0x1234" as const };
    const unknown = configUpdateLog(SC, 99, word("03"));
    const zeroDenom = configUpdateLog(SC, 4, word("0000000000000006"));
    const good2 = configUpdateLog(SC, 2, word("05"));
    const receipts: Receipt[] = [
      { type: 2, status: 1, cumulativeGasUsed: 1n, logs: [good1, bad, unknown, zeroDenom] },
      { type: 2, status: 0, cumulativeGasUsed: 2n, logs: [configUpdateLog(SC, 2, word("07"))] },
      {
        type: 2,
        status: 1,
        cumulativeGasUsed: 3n,
        logs: [good2, { ...configUpdateLog(SC, 2, word("09")), address: base.batcherAddr }],
      },
    ];
    const r = applySystemConfigReceipts(base, receipts, SC, true);
    expect(r.config.gasLimit).toBe(5n);
    expect(r.skipped.map((s) => s.logIndex)).toEqual([1, 2, 3]);
  });
});

describe("blob base fee per L1 fork", () => {
  it("matches op-service TestCalcBlobFeeAcrossForksWithFixedExcess", () => {
    const excess = 40_000_000n;
    expect(calcBlobBaseFee(excess, 3338477)).toBe(159773n);
    expect(calcBlobBaseFee(excess, 5007716)).toBe(2944n);
    expect(calcBlobBaseFee(excess, 8346193)).toBe(120n);
    expect(calcBlobBaseFee(excess, 11684671)).toBe(30n);
    const m = MAINNET_L1_CONFIG;
    expect(l1OriginBlobBaseFee({}, m, (m.cancunTime as number) + 1, excess)).toBe(159773n);
    expect(l1OriginBlobBaseFee({}, m, (m.pragueTime as number) + 1, excess)).toBe(2944n);
    expect(l1OriginBlobBaseFee({}, m, (m.osakaTime as number) + 1, excess)).toBe(2944n);
    expect(l1OriginBlobBaseFee({}, m, (m.bpo1Time as number) + 1, excess)).toBe(120n);
    expect(l1OriginBlobBaseFee({}, m, (m.bpo2Time as number) + 1, excess)).toBe(30n);
  });
  it("pectra blob schedule forces Cancun parameters before its time; no excess → 1", () => {
    const m = MAINNET_L1_CONFIG;
    const t = (m.pragueTime as number) + 10;
    expect(l1OriginBlobBaseFee({ pectra_blob_schedule_time: t + 1 }, m, t, 40_000_000n)).toBe(159773n);
    expect(l1OriginBlobBaseFee({ pectra_blob_schedule_time: t }, m, t, 40_000_000n)).toBe(2944n);
    expect(l1OriginBlobBaseFee({}, m, t, undefined)).toBe(1n);
    expect(l1OriginBlobBaseFee({}, devnetL1Config(900n), 0, 0n)).toBe(1n);
  });
});
