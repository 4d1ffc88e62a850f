import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../../src/core/codec/hex.js";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import type { Address, Hash, Hex } from "../../../../src/core/types/primitives.js";
import { keccak } from "../../../../src/protocol/block/keccak.js";
import type { Log, Receipt } from "../../../../src/protocol/block/receipt.js";
import {
  DEPOSIT_EVENT_TOPIC,
  depositFromLog,
  depositToLog,
  userDepositsFromReceipts,
} from "../../../../src/protocol/l1/deposit-log.js";
import {
  invalidatedBlockSourceHash,
  l1InfoDepositSourceHash,
  sourceHash,
  upgradeDepositSourceHash,
  userDepositSourceHash,
} from "../../../../src/protocol/l1/source-hash.js";
import { decodeDepositTx, encodeDepositTx } from "../../../../src/protocol/l2/deposit-tx.js";
import { runs } from "../../../support/property.js";

const BLOCK: Hash = "0xc00e5d67c2755389aded7d8b151cbd5bcdf7ed275ad5e028b664880fc7581c77";
const PORTAL: Address = "0xbeb5fc579115071764c7423a4f12edde41f106ed";

describe("deposit source hashes (op-node §2.9.2 vectors)", () => {
  it("L1 info domain", () => {
    expect(l1InfoDepositSourceHash(BLOCK, 4)).toBe(
      "0x0586c503340591999b8b38bc9834bb16aec7d5bc00eb5587ab139c9ddab81977",
    );
  });
  it("upgrade domain", () => {
    expect(upgradeDepositSourceHash("Ecotone: L1 Block Proxy Update")).toBe(
      "0x18acb38c5ff1c238a7460ebc1b421fa49ec4874bdf1e0a530d234104e5e67dbc",
    );
  });
  it("generic form reproduces the deprecated domain-3 vector", () => {
    // keccak(uint256(3) ‖ keccak(blockHash ‖ uint256(4)))
    const pre = new Uint8Array(64);
    pre.set(hexToBytes(BLOCK), 0);
    pre[63] = 4;
    expect(sourceHash(3, keccak(pre))).toBe("0x0d165c391384b29c29f655e3f32315755b8c1e4c1147d1824d1243420dda5ec3");
  });
  it("user and invalidated-block domains differ from each other and from L1 info", () => {
    const a = userDepositSourceHash(BLOCK, 4);
    const b = l1InfoDepositSourceHash(BLOCK, 4);
    const c = invalidatedBlockSourceHash(BLOCK);
    expect(new Set([a, b, c]).size).toBe(3);
  });
});

const addrArb = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => bytesToHex(b) as Address);
const depositArb = fc.record({
  from: addrArb,
  to: fc.option(addrArb, { nil: null }),
  mint: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
  value: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
  gas: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  data: fc.uint8Array({ maxLength: 300 }),
});

describe("TransactionDeposited logs", () => {
  it("log → deposit round trip, and deposit tx encode/decode", () => {
    fc.assert(
      fc.property(depositArb, fc.nat(1000), (d, logIndex) => {
        const log = depositToLog(PORTAL, d);
        const dep = depositFromLog(log, BLOCK, logIndex);
        expect(dep.from).toBe(d.from);
        expect(dep.to).toBe(d.to);
        expect(dep.mint).toBe(d.mint);
        expect(dep.value).toBe(d.value);
        expect(dep.gas).toBe(d.gas);
        expect(dep.data).toBe(bytesToHex(d.data));
        expect(dep.isSystemTx).toBe(false);
        expect(dep.sourceHash).toBe(userDepositSourceHash(BLOCK, logIndex));
        expect(decodeDepositTx(encodeDepositTx(dep))).toEqual(dep);
      }),
      { numRuns: runs(200) },
    );
  });

  it("rejects malformed logs with DecodeError only", () => {
    const good = depositToLog(PORTAL, {
      from: PORTAL,
      to: PORTAL,
      mint: 1n,
      value: 2n,
      gas: 3n,
      data: Uint8Array.of(1),
    });
    const variants: Log[] = [
      { ...good, topics: good.topics.slice(0, 3) },
      {
        ...good,
        topics: [good.topics[0] as Hash, good.topics[1] as Hash, good.topics[2] as Hash, `0x${"00".repeat(31)}01`],
      },
      { ...good, data: `${good.data}00` as Hex },
      { ...good, data: `0x${"00".repeat(31)}40${good.data.slice(66)}` as Hex },
      { ...good, data: `${good.data}${"00".repeat(32)}` as Hex },
      { ...good, data: `0x${"00".repeat(31)}20${"00".repeat(31)}10${"00".repeat(32)}` as Hex },
    ];
    for (const v of variants) expect(() => depositFromLog(v, BLOCK, 0)).toThrow(DecodeError);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        try {
          depositFromLog({ ...good, data: bytesToHex(data) }, BLOCK, 0);
        } catch (e) {
          expect(e).toBeInstanceOf(DecodeError);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it("selects successful portal logs with block-wide log indices", () => {
    const dep = { from: PORTAL, to: null, mint: 5n, value: 0n, gas: 100000n, data: Uint8Array.of(0x60) };
    const other: Log = {
      address: "0x0000000000000000000000000000000000000001",
      topics: [DEPOSIT_EVENT_TOPIC],
      data: "0x",
    };
    const receipts: Receipt[] = [
      { type: 2, status: 1, cumulativeGasUsed: 1n, logs: [other, depositToLog(PORTAL, dep)] },
      { type: 2, status: 0, cumulativeGasUsed: 2n, logs: [depositToLog(PORTAL, dep)] },
      { type: 2, status: 1, cumulativeGasUsed: 3n, logs: [depositToLog(PORTAL, dep)] },
    ];
    const out = userDepositsFromReceipts(receipts, PORTAL, BLOCK);
    expect(out).toHaveLength(2);
    expect(out[0]?.sourceHash).toBe(userDepositSourceHash(BLOCK, 1));
    expect(out[1]?.sourceHash).toBe(userDepositSourceHash(BLOCK, 3));
    expect(out[0]?.to).toBeNull();
    const bad: Receipt = {
      type: 2,
      status: 1,
      cumulativeGasUsed: 1n,
      logs: [{ ...depositToLog(PORTAL, dep), data: "0x" }],
    };
    expect(() => userDepositsFromReceipts([bad], PORTAL, BLOCK)).toThrow(DecodeError);
  });
});
