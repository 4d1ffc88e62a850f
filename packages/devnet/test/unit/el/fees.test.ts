import { describe, expect, it } from "vitest";
import { hexToBytes } from "supernode/core";
import {
  decodeExtraData,
  encodeExtraData,
  flzCompressLen,
  l1FeeFor,
  nextBaseFee,
  parseL1FeeParams,
} from "../../../src/el/fees.js";

const C = { elasticity: 6, denominator: 50, denominatorCanyon: 250 };
const flags = { canyon: true, parentHolocene: false, parentJovian: false };

describe("FastLZ compressed length (Fjord L1 cost)", () => {
  it("matches the published vectors", () => {
    expect(flzCompressLen(new Uint8Array(0))).toBe(0);
    expect(flzCompressLen(new Uint8Array(1000).fill(1))).toBe(21);
    expect(flzCompressLen(new Uint8Array(1000))).toBe(21);
    expect(flzCompressLen(hexToBytes("0xDD80808094095E7BAEA6A6C7C4C2DFEB977EFAC326AF552D878080808080"))).toBe(31);
    const call =
      "0x02f901550a758302df1483be21b88304743f94f80e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8" +
      "e41ef24f3f000000000000000000000000000000000000000000000000000000000000006e000000000000000000000000af88d065e77c8c" +
      "c2239327c5edb3a432268e5831000000000000000000000000000000000000000000000000000000000003c1e50000000000000000000000" +
      "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000a0000000" +
      "00000000000000000000000000000000000000000000000000000000148c89ed219d02f1a5be012c689b4f5b731827bebe00000000000000" +
      "0000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a3675a7f5f493ebd5ad77c497f8a07cdf65680e238392693019b4092f61" +
      "0222e71b7cec06449cb922b93b6a12744e";
    expect(flzCompressLen(hexToBytes(call))).toBe(202);
  });
});

describe("EIP-1559 base fee", () => {
  const parent = {
    gasLimit: 30_000_000n,
    gasUsed: 5_000_000n,
    baseFeePerGas: 1_000_000_000n,
    extraData: "0x" as const,
  };
  it("is unchanged at the target, rises above it, falls below it (Canyon denominator)", () => {
    expect(nextBaseFee(parent, C, flags)).toBe(1_000_000_000n);
    expect(nextBaseFee({ ...parent, gasUsed: 10_000_000n }, C, flags)).toBe(1_000_000_000n + 1_000_000_000n / 250n);
    expect(nextBaseFee({ ...parent, gasUsed: 0n }, C, flags)).toBe(1_000_000_000n - 1_000_000_000n / 250n);
    expect(nextBaseFee({ ...parent, gasUsed: 0n }, C, { ...flags, canyon: false })).toBe(
      1_000_000_000n - 1_000_000_000n / 50n,
    );
    // minimum increase of 1 wei
    expect(nextBaseFee({ ...parent, baseFeePerGas: 7n, gasUsed: 5_000_001n }, C, flags)).toBe(8n);
  });
  it("Holocene: parameters from the parent's extraData; Jovian: min base fee and DA footprint", () => {
    const holo = { ...parent, gasUsed: 0n, extraData: encodeExtraData({ denominator: 8, elasticity: 2 }, false) };
    expect(nextBaseFee(holo, C, { ...flags, parentHolocene: true })).toBe(1_000_000_000n - 1_000_000_000n / 8n);
    const jov = {
      ...holo,
      extraData: encodeExtraData({ denominator: 8, elasticity: 2, minBaseFee: 999_999_999_999n }, true),
    };
    expect(nextBaseFee(jov, C, { canyon: true, parentHolocene: true, parentJovian: true })).toBe(999_999_999_999n);
    const da = {
      ...jov,
      extraData: encodeExtraData({ denominator: 8, elasticity: 2, minBaseFee: 0n }, true),
      blobGasUsed: 15_000_000n,
    };
    expect(nextBaseFee(da, C, { canyon: true, parentHolocene: true, parentJovian: true })).toBe(1_000_000_000n);
  });
  it("extraData round-trips (9 and 17 bytes)", () => {
    const h = encodeExtraData({ denominator: 250, elasticity: 6 }, false);
    expect(h).toBe("0x00000000fa00000006");
    expect(decodeExtraData(h)).toEqual({ denominator: 250, elasticity: 6 });
    const j = encodeExtraData({ denominator: 250, elasticity: 6, minBaseFee: 1n }, true);
    expect(j).toBe("0x01000000fa000000060000000000000001");
    expect(decodeExtraData(j)).toEqual({ denominator: 250, elasticity: 6, minBaseFee: 1n });
    expect(decodeExtraData("0x")).toBeUndefined();
  });
});

describe("L1 data fee", () => {
  const word = (v: bigint, n: number) => v.toString(16).padStart(n * 2, "0");
  it("legacy model: (calldata gas + overhead) × base fee × scalar / 1e6, decimal l1FeeScalar", () => {
    const data =
      `0x015d8eb9${word(1n, 32)}${word(2n, 32)}${word(1000n, 32)}${"11".repeat(32)}${word(0n, 32)}${word(0n, 32)}${word(188n, 32)}${word(684000n, 32)}` as const;
    const p = parseL1FeeParams(data)!;
    expect(p).toMatchObject({ format: "bedrock", l1BaseFee: 1000n, overhead: 188n, scalar: 684000n });
    const raw = Uint8Array.of(0, 0, 1, 2); // 2 zero bytes, 2 non-zero
    const f = l1FeeFor(raw, p, { regolith: true, fjord: false, isthmus: false, jovian: false });
    expect(f).toEqual({
      model: "legacy",
      l1GasUsed: 8n + 32n + 188n,
      l1GasPrice: 1000n,
      l1Fee: (228n * 1000n * 684000n) / 1_000_000n,
      l1FeeScalar: "0.684",
    });
  });
  it("Ecotone model: calldata gas × (16·baseFee·scalar + blobBaseFee·blobScalar) / 16e6", () => {
    const data =
      `0x440a5e20${word(1368n, 4)}${word(810949n, 4)}${word(0n, 8)}${word(0n, 8)}${word(0n, 8)}${word(10n ** 9n, 32)}${word(3n, 32)}${"11".repeat(32)}${"22".repeat(32)}` as const;
    const p = parseL1FeeParams(data)!;
    expect(p).toMatchObject({
      format: "ecotone",
      baseFeeScalar: 1368n,
      blobBaseFeeScalar: 810949n,
      l1BaseFee: 10n ** 9n,
      blobBaseFee: 3n,
    });
    const raw = new Uint8Array(100).fill(1);
    const f = l1FeeFor(raw, p, { regolith: true, fjord: false, isthmus: false, jovian: false });
    expect(f.l1GasUsed).toBe(1600n);
    expect(f.l1Fee).toBe((1600n * (16n * 10n ** 9n * 1368n + 3n * 810949n)) / 16_000_000n);
    expect(f).not.toHaveProperty("l1FeeScalar");
    const fj = l1FeeFor(raw, p, { regolith: true, fjord: true, isthmus: false, jovian: true });
    expect(fj.l1GasUsed).toBe(1600n); // below the 100-byte minimum size: 100 × 16
    expect(fj.daFootprintGasScalar).toBe(400n);
  });
  it("rejects calldata of unknown shape", () => {
    expect(parseL1FeeParams("0x12345678")).toBeUndefined();
  });
});
