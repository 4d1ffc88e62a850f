import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../../src/core/codec/hex.js";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import type { Hash } from "../../../../src/core/types/primitives.js";
import {
  decodeL1InfoData,
  encodeL1InfoData,
  type L1BlockInfo,
  type L1InfoFormat,
  l1InfoFormatAt,
} from "../../../../src/protocol/l2/l1-info.js";
import type { RollupConfig } from "../../../../src/protocol/rollup-config.js";
import { runs } from "../../../support/property.js";

// L1-info calldata of OP Mainnet-derived blocks (kona test utilities, op-node §8).
const w = (hex: string): string => hex.padStart(64, "0");
const RAW_BEDROCK =
  "0x015d8eb9" +
  w("117c4eb") +
  w("65280377") +
  w("26d05d953") +
  "392012032675be9f94aae5ab442de73c5f4fb1bf30fa7dd0d2442239899a40fc" +
  w("4") +
  w("6887246668a3b87f54deb3b94ba47a6f63f32985") +
  w("bc") +
  w("a6fe0");
const RAW_ECOTONE =
  "0x440a5e2000000558000c5fc5000000000000000500000000661c277300000000012bec20000000000000000000000000000000000000000000000000000000026e9f109900000000000000000000000000000000000000000000000000000000000000011c4c84c50740386c7dc081efddd644405f04cde73e30a2e381737acce9f5add30000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f32985";
const RAW_ISTHMUS =
  "0x098999be00000558000c5fc5000000000000000500000000661c277300000000012bec20000000000000000000000000000000000000000000000000000000026e9f109900000000000000000000000000000000000000000000000000000000000000011c4c84c50740386c7dc081efddd644405f04cde73e30a2e381737acce9f5add30000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f329850000abcd000000000000dcba";

describe("L1-info deposit calldata", () => {
  it("decodes and re-encodes the Bedrock vector", () => {
    const info = decodeL1InfoData(hexToBytes(RAW_BEDROCK));
    expect(info.format).toBe("bedrock");
    expect(info.number).toBe(0x117c4eb);
    expect(info.time).toBe(0x65280377);
    expect(info.baseFee).toBe(0x26d05d953n);
    expect(info.sequenceNumber).toBe(4);
    expect(info.batcherAddr).toBe("0x6887246668a3b87f54deb3b94ba47a6f63f32985");
    expect(BigInt(info.l1FeeOverhead)).toBe(0xbcn);
    expect(BigInt(info.l1FeeScalar)).toBe(0xa6fe0n);
    expect(bytesToHex(encodeL1InfoData(info, "bedrock"))).toBe(RAW_BEDROCK);
  });

  it("decodes and re-encodes the Ecotone and Isthmus vectors", () => {
    const e = decodeL1InfoData(hexToBytes(RAW_ECOTONE), "ecotone");
    expect(e).toMatchObject({
      baseFeeScalar: 0x558,
      blobBaseFeeScalar: 0xc5fc5,
      sequenceNumber: 5,
      time: 0x661c2773,
      number: 0x12bec20,
      baseFee: 0x26e9f1099n,
      blobBaseFee: 1n,
      blockHash: "0x1c4c84c50740386c7dc081efddd644405f04cde73e30a2e381737acce9f5add3",
      batcherAddr: "0x6887246668a3b87f54deb3b94ba47a6f63f32985",
    });
    expect(bytesToHex(encodeL1InfoData(e, "ecotone"))).toBe(RAW_ECOTONE);
    const i = decodeL1InfoData(hexToBytes(RAW_ISTHMUS));
    expect(i.operatorFeeScalar).toBe(0xabcd);
    expect(i.operatorFeeConstant).toBe(0xdcban);
    expect(bytesToHex(encodeL1InfoData(i, "isthmus"))).toBe(RAW_ISTHMUS);
  });

  it("requires the expected selector and exact length", () => {
    expect(() => decodeL1InfoData(hexToBytes(RAW_ECOTONE), "isthmus")).toThrow(DecodeError);
    expect(() => decodeL1InfoData(hexToBytes(`${RAW_ECOTONE}00`), "ecotone")).toThrow(DecodeError);
    expect(() => decodeL1InfoData(hexToBytes("0x12345678"))).toThrow(DecodeError);
  });

  const hashArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b) as Hash);
  const infoArb = fc.record({
    number: fc.nat(),
    time: fc.nat(),
    baseFee: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
    blockHash: hashArb,
    sequenceNumber: fc.nat(),
    batcherAddr: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => bytesToHex(b)),
    l1FeeOverhead: hashArb,
    l1FeeScalar: hashArb,
    blobBaseFee: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
    baseFeeScalar: fc.nat({ max: 0xffffffff }),
    blobBaseFeeScalar: fc.nat({ max: 0xffffffff }),
    operatorFeeScalar: fc.nat({ max: 0xffffffff }),
    operatorFeeConstant: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
    daFootprintGasScalar: fc.nat({ max: 0xffff }),
  });

  it("round-trips every format (property) and decoders throw only DecodeError", () => {
    const formats: L1InfoFormat[] = ["bedrock", "ecotone", "isthmus", "jovian"];
    fc.assert(
      fc.property(infoArb, fc.constantFrom(...formats), (info: L1BlockInfo, f) => {
        const enc = encodeL1InfoData(info, f);
        const dec = decodeL1InfoData(enc, f);
        expect(dec.number).toBe(info.number);
        expect(dec.blockHash).toBe(info.blockHash);
        expect(dec.sequenceNumber).toBe(info.sequenceNumber);
        if (f === "jovian") expect(dec.daFootprintGasScalar).toBe(info.daFootprintGasScalar);
        if (f !== "bedrock") expect(dec.blobBaseFee).toBe(info.blobBaseFee);
        expect(encodeL1InfoData(dec, f)).toEqual(enc);
        for (let cut = 0; cut < enc.length; cut += 37)
          expect(() => decodeL1InfoData(enc.subarray(0, cut), f)).toThrow(DecodeError);
      }),
      { numRuns: runs(200) },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
        try {
          decodeL1InfoData(b);
        } catch (e) {
          expect(e).toBeInstanceOf(DecodeError);
        }
      }),
    );
  });

  it("selects the format by L2 timestamp; activation blocks keep the previous format", () => {
    const cfg = {
      block_time: 2,
      regolith_time: 0,
      ecotone_time: 10,
      isthmus_time: 20,
      jovian_time: 30,
    } as unknown as RollupConfig;
    expect(l1InfoFormatAt(cfg, 8)).toBe("bedrock");
    expect(l1InfoFormatAt(cfg, 10)).toBe("bedrock");
    expect(l1InfoFormatAt(cfg, 12)).toBe("ecotone");
    expect(l1InfoFormatAt(cfg, 20)).toBe("ecotone");
    expect(l1InfoFormatAt(cfg, 22)).toBe("isthmus");
    expect(l1InfoFormatAt(cfg, 30)).toBe("isthmus");
    expect(l1InfoFormatAt(cfg, 32)).toBe("jovian");
    const genesisEcotone = { ...cfg, ecotone_time: 0 } as RollupConfig;
    expect(l1InfoFormatAt(genesisEcotone, 0)).toBe("ecotone");
  });
});
