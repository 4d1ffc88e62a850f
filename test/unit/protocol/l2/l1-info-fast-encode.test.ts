import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../../src/core/codec/hex.js";
import type { Hash } from "../../../../src/core/types/primitives.js";
import { encodeEcotoneScalars, encodeOperatorFeeParams } from "../../../../src/protocol/l1/fee-scalars.js";
import { encodeDepositTx } from "../../../../src/protocol/l2/deposit-tx.js";
import { encodeL1InfoDepositTx, l1InfoDepositTx } from "../../../../src/protocol/l2/l1-info.js";
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
