import fc from "fast-check";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { hexToBytes } from "supernode/core";
import { decodeSigned, decodeSignedWithViem } from "../../../src/el/tx-decode.js";
import { decodeSignedFast } from "../../../src/el/tx-decode-fast.js";
import { runs } from "../../../../../test/support/property.js";

const account = privateKeyToAccount(`0x${"42".repeat(32)}`);
const delegate = privateKeyToAccount(`0x${"43".repeat(32)}`);
const u = (max: bigint) => fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 300n }), fc.bigInt({ min: 0n, max }));
const hexOf = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => `0x${Buffer.from(b).toString("hex")}` as const);
const accessList = fc.array(fc.record({ address: hexOf(20), storageKeys: fc.array(hexOf(32), { maxLength: 3 }) }), {
  maxLength: 3,
});

describe("fast transaction decoding", () => {
  it("gives exactly viem's decoding (or defers to it) for random signed transactions of every type", async () => {
    let fastCount = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          type: fc.constantFrom("legacy" as const, "eip2930" as const, "eip1559" as const, "eip7702" as const),
          chainId: fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { freq: 6 }),
          nonce: fc.oneof(fc.nat(5), fc.nat()),
          fee: u(1n << 200n),
          tipShare: fc.bigInt({ min: 0n, max: 100n }),
          gas: u(1n << 64n),
          to: fc.option(hexOf(20)),
          value: u((1n << 256n) - 1n),
          data: fc.uint8Array({ maxLength: 80 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as const),
          accessList,
          authNonce: fc.nat(1000),
        }),
        async (t) => {
          const base = {
            nonce: t.nonce,
            gas: t.gas,
            ...(t.to === null ? {} : { to: t.to }),
            value: t.value,
            data: t.data,
          };
          const chainId = t.chainId ?? 901;
          const fees = { maxFeePerGas: t.fee, maxPriorityFeePerGas: (t.fee * t.tipShare) / 100n };
          let raw: `0x${string}`;
          if (t.type === "legacy")
            raw = await account.signTransaction({
              ...base,
              type: "legacy",
              gasPrice: t.fee,
              ...(t.chainId === null ? {} : { chainId }),
            });
          else if (t.type === "eip2930")
            raw = await account.signTransaction({
              ...base,
              type: "eip2930",
              chainId,
              gasPrice: t.fee,
              accessList: t.accessList,
            });
          else if (t.type === "eip1559")
            raw = await account.signTransaction({
              ...base,
              type: "eip1559",
              chainId,
              ...fees,
              accessList: t.accessList,
            });
          else {
            const authorization = await delegate.signAuthorization({
              chainId,
              address: t.to ?? delegate.address,
              nonce: t.authNonce,
            });
            raw = await account.signTransaction({
              ...base,
              to: t.to ?? delegate.address, // a set-code transaction cannot create
              type: "eip7702",
              chainId,
              ...fees,
              accessList: t.accessList,
              authorizationList: [authorization],
            });
          }
          const bytes = hexToBytes(raw);
          const viem = decodeSignedWithViem(bytes);
          const fast = decodeSignedFast(bytes);
          if (fast !== undefined) {
            fastCount++;
            expect(fast).toStrictEqual(viem);
            expect(Object.keys(fast)).toEqual(Object.keys(viem));
          } else expect(t.fee).toBe(0n); // the only case here that defers to viem: a zero fee cap
          expect(await decodeSigned(bytes)).toStrictEqual(viem);
          expect(viem.from).toBe(account.address.toLowerCase());
        },
      ),
      { numRuns: runs(80) },
    );
    expect(fastCount).toBeGreaterThan(40);
  }, 60_000); // property runs: generous under a loaded machine

  it("leaves blob transactions, unsigned and malformed bytes to viem's path", () => {
    expect(decodeSignedFast(Uint8Array.of(3, 0xc0))).toBeUndefined();
    expect(decodeSignedFast(Uint8Array.of(2, 0xc1, 0x80))).toBeUndefined();
    expect(decodeSignedFast(Uint8Array.of(2, 0xcc, ...new Array(12).fill(0x80)))).toBeUndefined();
    expect(decodeSignedFast(Uint8Array.of(0xc9, ...new Array(9).fill(0x80)))).toBeUndefined();
    expect(decodeSignedFast(Uint8Array.of(2, 0x81, 0x00))).toBeUndefined();
    expect(decodeSignedFast(new Uint8Array(0))).toBeUndefined();
  });
});
