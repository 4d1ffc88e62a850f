/**
 * The natively answered GasPriceOracle against the fee code the receipts use, in every fee model: for an unsigned
 * transaction `d`, `getL1Fee(d)` prices `d` plus 68 signature bytes, so it equals the receipt's `l1Fee` of `d` ‖ 68
 * non-zero bytes under the calldata-gas models (Bedrock, Ecotone), and bounds Fjord's from above with
 * `getL1FeeUpperBound`.
 */
import { describe, expect, it } from "vitest";
import { bytesToHex, type Hex, hexToBytes } from "supernode/core";
import { encodeFunctionData } from "viem";
import { l1FeeFor } from "../../../src/el/fees.js";
import { GAS_PRICE_ORACLE_ABI, l1Predeploys, oracleL1Fee } from "../../../src/el/evm/l1-predeploys.js";
import { l1InfoBedrock, l1InfoEcotone, l1InfoJovian } from "../../support/el-support.js";
import { parseL1FeeParams } from "../../../src/el/fees.js";

const data = hexToBytes(`0x02f8${"ab00cd".repeat(60)}${"00".repeat(40)}` as Hex);
const padded = new Uint8Array([...data, ...new Uint8Array(68).fill(0xff)]);
const flags = (o: Partial<Record<"ecotone" | "fjord" | "isthmus" | "jovian", boolean>>) => ({
  baseFee: 1_000n,
  ecotone: o.ecotone ?? false,
  fjord: o.fjord ?? false,
  isthmus: o.isthmus ?? false,
  jovian: o.jovian ?? false,
});

describe("GasPriceOracle (native) and the receipts' L1 fee", () => {
  it("Bedrock: getL1Fee(d) = the receipt's l1Fee of d plus 68 signature bytes", () => {
    const info = l1InfoBedrock({ number: 1, time: 1, seq: 0, baseFee: 30_000_000_000n });
    const env = { ...flags({}), l1Info: () => info };
    const receipt = l1FeeFor(padded, parseL1FeeParams(info)!, {
      regolith: true,
      fjord: false,
      isthmus: false,
      jovian: false,
    });
    expect(oracleL1Fee(env, data)).toBe(receipt.l1Fee);
    expect(receipt.l1Fee).toBeGreaterThan(0n);
  });

  it("Ecotone: the same with the blob-fee weighted price", () => {
    const info = l1InfoEcotone({ number: 1, time: 1, seq: 0, baseFee: 30_000_000_000n });
    const env = { ...flags({ ecotone: true }), l1Info: () => info };
    const receipt = l1FeeFor(padded, parseL1FeeParams(info)!, {
      regolith: true,
      fjord: false,
      isthmus: false,
      jovian: false,
    });
    expect(oracleL1Fee(env, data)).toBe(receipt.l1Fee);
  });

  it("Fjord/Jovian: getL1FeeUpperBound bounds the fee; getOperatorFee and the ABI round trip", () => {
    const info = l1InfoJovian({ number: 1, time: 1, seq: 0, baseFee: 30_000_000_000n });
    const env = { ...flags({ ecotone: true, fjord: true, isthmus: true, jovian: true }), l1Info: () => info };
    const [gpo] = l1Predeploys(env);
    const fee = oracleL1Fee(env, data);
    const call = (fn: string, args: unknown[] = []) =>
      BigInt(
        bytesToHex(
          gpo!.call(
            hexToBytes(
              encodeFunctionData({ abi: GAS_PRICE_ORACLE_ABI, functionName: fn as never, args: args as never }),
            ),
          ).output,
        ),
      );
    expect(call("getL1Fee", [bytesToHex(data)])).toBe(fee);
    expect(call("getL1FeeUpperBound", [BigInt(data.length)])).toBeGreaterThanOrEqual(fee);
    expect(call("isFjord")).toBe(1n);
    expect(call("getOperatorFee", [21_000n])).toBe(0n); // the Jovian info of the test support has no operator fee
    const receipt = l1FeeFor(padded, parseL1FeeParams(info)!, {
      regolith: true,
      fjord: true,
      isthmus: true,
      jovian: true,
    });
    expect(Number(fee - receipt.l1Fee) / Number(receipt.l1Fee)).toBeLessThan(0.2);
  });
});
