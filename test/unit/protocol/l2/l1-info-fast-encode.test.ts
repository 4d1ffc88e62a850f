import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../../src/core/codec/hex.js";
import type { Hash } from "../../../../src/core/types/primitives.js";
import { encodeEcotoneScalars, encodeOperatorFeeParams } from "../../../../src/protocol/l1/fee-scalars.js";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import { decodeDepositTx, depositTxData, encodeDepositTx } from "../../../../src/protocol/l2/deposit-tx.js";
import { encodeL1InfoDepositTx, l1InfoDepositTx } from "../../../../src/protocol/l2/l1-info.js";
import { L1InfoDepositEncoder } from "../../../../src/protocol/l2/l1-info-deposit-encoder.js";
import type { RollupConfig, SystemConfig } from "../../../../src/protocol/rollup-config.js";
import { runs } from "../../../support/property.js";

// The direct L1-info deposit encoder must be byte-for-byte the generic path (DepositTx with hex fields → RLP).
const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;
const sys: SystemConfig = {
  batcherAddr: "0x6887246668a3b87f54deb3b94ba47a6f63f32985",
  overhead: h(0xbc),
  scalar: encodeEcotoneScalars({ baseFeeScalar: 1368, blobBaseFeeScalar: 810949 }),
  gasLimit: 60_000_000n,
  eip1559Params: "0x000000fa00000006",
  operatorFeeParams: encodeOperatorFeeParams({ scalar: 5, constant: 77n }),
  minBaseFee: 1000n,
  daFootprintGasScalar: 0,
};
const base = {
  genesis: { l1: { hash: h(0xa1), number: 100 }, l2: { hash: h(0xb1), number: 0 }, l2_time: 1000, system_config: sys },
  block_time: 2,
  max_sequencer_drift: 600,
  seq_window_size: 3600,
  channel_timeout: 300,
  l1_chain_id: 900n,
  l2_chain_id: 901n,
  batch_inbox_address: "0xff00000000000000000000000000000000000901",
  deposit_contract_address: "0x0000000000000000000000000000000000000abc",
  l1_system_config_address: "0x0000000000000000000000000000000000000def",
  protocol_versions_address: "0x0000000000000000000000000000000000000000",
} as const;
// Forks activate at 2000 (regolith at 1500 when set), so timestamps around them cover every format, the
// activation blocks (old format) and pre-Regolith deposits.
const configs: RollupConfig[] = [
  { ...base },
  { ...base, regolith_time: 1500 },
  { ...base, regolith_time: 0, canyon_time: 0, ecotone_time: 2000 },
  { ...base, regolith_time: 0, canyon_time: 0, ecotone_time: 0, isthmus_time: 2000 },
  { ...base, regolith_time: 0, canyon_time: 0, ecotone_time: 0, isthmus_time: 0, jovian_time: 2000 },
];

describe("encodeL1InfoDepositTx", () => {
  it("equals encodeDepositTx(l1InfoDepositTx(...)) for every format, sequence number and origin", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...configs),
        fc.integer({ min: 1000, max: 3000 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
        fc.integer({ min: 0, max: 0xffff }),
        (cfg, ts, seq, hash, fee, da) => {
          const origin = {
            number: 12_345_678,
            hash: bytesToHex(hash) as Hash,
            time: ts - 10,
            baseFee: fee,
            blobBaseFee: fee / 3n + 1n,
            mixHash: h(7),
          };
          const s = { ...sys, daFootprintGasScalar: da };
          const fast = encodeL1InfoDepositTx(cfg, s, origin, seq, ts);
          expect(bytesToHex(fast)).toBe(bytesToHex(encodeDepositTx(l1InfoDepositTx(cfg, s, origin, seq, ts))));
        },
      ),
      { numRuns: runs(400) },
    );
  });
});

describe("L1InfoDepositEncoder", () => {
  it("encodes each block of an epoch as encodeL1InfoDepositTx does, from one template per epoch and config", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...configs),
        fc.integer({ min: 1000, max: 3000 }),
        fc.array(fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 2 ** 53 - 1 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (cfg, ts, seqs, hash) => {
          const enc = new L1InfoDepositEncoder();
          const origin = {
            number: 12_345_678,
            hash: bytesToHex(hash) as Hash,
            time: ts - 10,
            baseFee: 7n,
            blobBaseFee: 3n,
            mixHash: h(0x77),
          };
          const other = { ...origin, hash: h(0x99) };
          const sys2 = { ...sys, scalar: encodeEcotoneScalars({ baseFeeScalar: 1, blobBaseFeeScalar: 2 }) };
          // Same epoch (cache hits), then another origin, another SystemConfig, and a timestamp across a fork.
          for (const [s, o, t] of [
            [sys, origin, ts],
            [sys, other, ts],
            [sys2, other, ts],
            [sys2, other, ts + 600],
          ] as const) {
            for (const seq of seqs) {
              const got = enc.encode(cfg, s, o, seq, t);
              expect(bytesToHex(got)).toBe(bytesToHex(encodeL1InfoDepositTx(cfg, s, o, seq, t)));
              // Each result is its own array (a caller may keep it while the next block is encoded).
              got.fill(0);
            }
          }
        },
      ),
      { numRuns: runs(150) },
    );
  });
});

describe("L1InfoDepositEncoder across epochs", () => {
  it("patches a new origin into the last template (same config and SystemConfig) exactly as a full encode, errors too", () => {
    const fee = fc.oneof(
      fc.bigInt({ min: 0n, max: 1n << 60n }),
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      fc.constantFrom(0n, (1n << 53n) - 1n, 1n << 53n, (1n << 256n) - 1n, 1n << 256n, -1n),
    );
    const origin = fc.record({
      number: fc.oneof(fc.integer({ min: 0, max: 2 ** 32 }), fc.constantFrom(2 ** 53 - 1, 2 ** 53, -1, 1.5)),
      hash: fc.oneof(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b) as Hash),
        fc.constantFrom("0x1234" as Hash, "0xzz" as Hash),
      ),
      time: fc.integer({ min: 0, max: 990 }),
      baseFee: fee,
      blobBaseFee: fee,
      mixHash: fc.constant(h(0x77)),
    });
    const outcome = (f: () => Uint8Array): string => {
      try {
        return bytesToHex(f());
      } catch (e) {
        return `error ${(e as Error).constructor.name}`;
      }
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...configs),
        fc.integer({ min: 1000, max: 3000 }),
        fc.array(fc.tuple(origin, fc.integer({ min: 0, max: 5 })), { minLength: 2, maxLength: 8 }),
        (cfg, ts, epochs) => {
          const enc = new L1InfoDepositEncoder();
          let t = ts;
          for (const [o, blocks] of epochs) {
            for (let seq = 0; seq <= blocks; seq++, t += 2) {
              const want = outcome(() => encodeL1InfoDepositTx(cfg, sys, o, seq, t));
              expect(outcome(() => enc.encode(cfg, sys, o, seq, t))).toBe(want);
            }
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });
});

describe("depositTxData", () => {
  it("is decodeDepositTx(raw).data, and throws DecodeError exactly when decodeDepositTx does", () => {
    const outcome = (f: () => Uint8Array): string => {
      try {
        return bytesToHex(f());
      } catch (e) {
        expect(e).toBeInstanceOf(DecodeError);
        return "error";
      }
    };
    const valid = fc
      .record({
        sourceHash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
        from: fc.uint8Array({ minLength: 20, maxLength: 20 }),
        to: fc.option(fc.uint8Array({ minLength: 20, maxLength: 20 }), { nil: null }),
        mint: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
        value: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
        gas: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        isSystemTx: fc.boolean(),
        data: fc.uint8Array({ maxLength: 300 }),
      })
      .map((t) =>
        encodeDepositTx({
          ...t,
          sourceHash: bytesToHex(t.sourceHash),
          from: bytesToHex(t.from),
          to: t.to === null ? null : bytesToHex(t.to),
          data: bytesToHex(t.data),
        }),
      );
    // Valid deposits, and the same bytes with one byte changed or cut short.
    const mutated = fc
      .tuple(valid, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.boolean())
      .map(([raw, i, v, cut]) => {
        const b = Uint8Array.from(raw);
        if (cut) return b.subarray(0, i % b.length);
        b[i % b.length] = v;
        return b;
      });
    fc.assert(
      fc.property(fc.oneof(valid, mutated), (raw) => {
        const want = outcome(() => hexToBytes(decodeDepositTx(raw).data));
        expect(outcome(() => depositTxData(raw))).toBe(want);
      }),
      { numRuns: runs(1000) },
    );
  });
});
