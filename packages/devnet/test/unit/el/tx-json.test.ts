import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "supernode/core";
import { txJson } from "../../../src/el/format.js";
import { decodeSigned } from "../../../src/el/tx-decode.js";
import { encodeRpcTransaction } from "supernode/protocol";

const sender = privateKeyToAccount(`0x${"11".repeat(32)}`);
const delegate = privateKeyToAccount(`0x${"22".repeat(32)}`);
const to = `0x${"33".repeat(20)}` as const;

async function signed(type: "legacy" | "eip2930" | "eip1559" | "eip7702"): Promise<`0x${string}`> {
  const base = { chainId: 901, nonce: 3, to, value: 5n, data: "0x12345678" as const, gas: 50_000n };
  const fees = { maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000n };
  const accessList = [{ address: to, storageKeys: [`0x${"00".repeat(31)}07` as const] }];
  if (type === "legacy") return sender.signTransaction({ ...base, type, gasPrice: 1_000_000_000n });
  if (type === "eip2930") return sender.signTransaction({ ...base, type, gasPrice: 1_000_000_000n, accessList });
  if (type === "eip1559") return sender.signTransaction({ ...base, type, ...fees, accessList });
  const authorization = await delegate.signAuthorization({ chainId: 901, address: to, nonce: 0 });
  return sender.signTransaction({ ...base, type, ...fees, authorizationList: [authorization] });
}

describe("simulated EL transaction JSON", () => {
  for (const type of ["legacy", "eip2930", "eip1559", "eip7702"] as const) {
    it(`serves a ${type} transaction whose JSON re-encodes to the signed bytes`, async () => {
      const raw = await signed(type);
      const tx = await decodeSigned(hexToBytes(raw));
      expect(tx.from).toBe(sender.address.toLowerCase());
      for (const variant of ["a", "b"] as const) {
        const json = JSON.parse(JSON.stringify(txJson(variant, tx)));
        expect(bytesToHex(encodeRpcTransaction(json))).toBe(raw);
      }
    });
  }
});
