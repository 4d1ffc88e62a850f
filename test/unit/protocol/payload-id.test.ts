import { createHash } from "node:crypto";
import { keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { hexToBytes } from "../../../src/core/codec/hex.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import type { PayloadAttributes } from "../../../src/protocol/engine-api-types.js";
import { attributesWithTransactionBytes } from "../../../src/protocol/l2/attributes.js";
import { payloadVersionOf, predictPayloadId } from "../../../src/protocol/payload-id.js";

// A build start op-geth answered in a live network (op-reth's parity test `test_payload_id_parity_op_geth` records
// these attributes and the id op-geth returned, "payload_id_l2=0x03d2dae446d2a86a"): sequencer attributes with one
// L1-info deposit, noTxPool false, gasLimit 30M, no eip1559Params, forkchoiceUpdatedV3.
const LIVE_PARENT: Hash = "0x3533bf30edaf9505d0810bf475cbe4e5f4b9889904b9845e83efdeab4e92eb1e";
const LIVE_DEPOSIT: Hex =
  "0x7ef8f8a0dc19cfa777d90980e4875d0a548a881baaa3f83f14d1bc0d3038bc329350e54194deaddeaddeaddeaddeaddeaddeaddeaddead00019442000000000000000000000000000000000000158080830f424080b8a4440a5e20000f424000000000000000000000000300000000670d6d890000000000000125000000000000000000000000000000000000000000000000000000000000000700000000000000000000000000000000000000000000000000000000000000014bf9181db6e381d4384bbf69c48b0ee0eed23c6ca26143c6d2544f9d39997a590000000000000000000000007f83d659683caf2767fd3c720981d51f5bc365bc";
const LIVE: PayloadAttributes = {
  timestamp: 1728933301,
  prevRandao: "0x9158595abbdab2c90635087619aa7042bbebe47642dfab3c9bfb934f6b082765",
  suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
  withdrawals: [],
  parentBeaconBlockRoot: "0x8fe0193b9bf83cb7e5a08538e494fecc23046aab9a497af3704f4afdae3250ff",
  transactions: [LIVE_DEPOSIT],
  noTxPool: false,
  gasLimit: 30_000_000n,
};

const u64 = (v: bigint | number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(v));
  return b;
};

/** The id written out field by field from the rules (ADR 0094), with node's sha256 and viem's keccak. */
function byTheRules(parent: Hash, a: PayloadAttributes, version: number): Hex {
  const parts: Buffer[] = [
    Buffer.from(hexToBytes(parent)),
    u64(a.timestamp),
    Buffer.from(hexToBytes(a.prevRandao)),
    Buffer.from(hexToBytes(a.suggestedFeeRecipient)),
    Buffer.of(0xc0),
  ];
  if (a.parentBeaconBlockRoot !== undefined) parts.push(Buffer.from(hexToBytes(a.parentBeaconBlockRoot)));
  if (a.noTxPool || a.transactions.length > 0) {
    parts.push(Buffer.of(a.noTxPool ? 1 : 0), u64(a.transactions.length));
    for (const t of a.transactions) parts.push(Buffer.from(hexToBytes(keccak256(t))));
  }
  parts.push(u64(a.gasLimit));
  if (a.eip1559Params !== undefined) parts.push(Buffer.from(hexToBytes(a.eip1559Params)));
  if (a.minBaseFee !== undefined) parts.push(u64(a.minBaseFee));
  const d = createHash("sha256").update(Buffer.concat(parts)).digest();
  d[0] = version;
  return `0x${d.subarray(0, 8).toString("hex")}`;
}

const DERIVED: PayloadAttributes = {
  ...LIVE,
  transactions: [LIVE_DEPOSIT, "0x02f86b0180843b9aca00", "0x7ef85a"],
  noTxPool: true,
  eip1559Params: "0x000000fa00000006",
};

describe("payload id (op-geth BuildPayloadArgs.Id / op-reth payload_id_optimism)", () => {
  it("is the id op-geth returned for a live build start", () => {
    expect(predictPayloadId(LIVE_PARENT, LIVE, 3)).toBe("0x03d2dae446d2a86a");
    expect(byTheRules(LIVE_PARENT, LIVE, 3)).toBe("0x03d2dae446d2a86a");
  });

  it("puts the forkchoiceUpdated version in byte 0 and keeps the other seven", () => {
    expect(predictPayloadId(LIVE_PARENT, LIVE, 2)).toBe("0x02d2dae446d2a86a");
    expect(payloadVersionOf("engine_forkchoiceUpdatedV3")).toBe(3);
    expect(payloadVersionOf("engine_forkchoiceUpdatedV2")).toBe(2);
    expect(payloadVersionOf("engine_forkchoiceUpdatedV1")).toBe(1);
    expect(payloadVersionOf("engine_forkchoiceUpdatedV4")).toBeUndefined();
    expect(payloadVersionOf("engine_getPayloadV3")).toBeUndefined();
  });

  it("hashes noTxPool, the transactions, eip1559Params and minBaseFee (0 included) when present", () => {
    const cases: PayloadAttributes[] = [
      DERIVED,
      { ...DERIVED, minBaseFee: 0n },
      { ...DERIVED, minBaseFee: 1_000_000_007n },
      { ...DERIVED, transactions: [] }, // noTxPool alone extends the hash (count 0)
      { ...LIVE, transactions: [] }, // neither: no extension
      { ...DERIVED, parentBeaconBlockRoot: undefined },
      { ...DERIVED, gasLimit: (1n << 64n) - 1n, timestamp: 2 ** 40 + 7 },
    ];
    const ids = new Set<string>();
    for (const a of cases) {
      const id = predictPayloadId(LIVE_PARENT, a, 3);
      expect(id).toBe(byTheRules(LIVE_PARENT, a, 3));
      ids.add(id as string);
    }
    expect(ids.size).toBe(cases.length);
  });

  it("hashes transaction bytes when the attributes keep them, without encoding their hex", () => {
    const { transactions, ...fields } = DERIVED;
    const withBytes = attributesWithTransactionBytes(
      fields,
      transactions.map((t) => hexToBytes(t)),
    );
    let hexRead = false;
    Object.defineProperty(withBytes, "transactions", {
      get() {
        hexRead = true;
        return transactions;
      },
    });
    expect(predictPayloadId(LIVE_PARENT, withBytes, 3)).toBe(byTheRules(LIVE_PARENT, DERIVED, 3));
    expect(hexRead).toBe(false);
  });

  it("is the id by the rules for a run of blocks whose fixed fields change, repeat and go bad in between", () => {
    const h = (k: number): Hash => `0x${k.toString(16).padStart(2, "0").repeat(32)}`;
    // A half-decoded bad value must not leave the last good one's bytes changed behind it.
    const badHash = `0x${"ab".repeat(20)}zz${"ab".repeat(11)}` as Hash;
    const runs: { a: PayloadAttributes; ok: boolean }[] = [];
    for (let k = 0; k < 24; k++) {
      const epoch = k >> 2;
      const a: PayloadAttributes = {
        ...DERIVED,
        timestamp: 1_728_933_301 + 2 * k,
        prevRandao: k % 7 === 5 ? badHash : h(epoch),
        parentBeaconBlockRoot: k % 9 === 4 ? badHash : h(100 + (epoch % 3)),
        suggestedFeeRecipient: k % 11 === 6 ? (`0x${"4g".repeat(20)}` as Hex) : LIVE.suggestedFeeRecipient,
        eip1559Params: k % 5 === 3 ? "0x000000fa0000000g" : k < 12 ? "0x000000fa00000006" : "0x000000fa00000008",
      };
      runs.push({ a, ok: k % 7 !== 5 && k % 9 !== 4 && k % 11 !== 6 && k % 5 !== 3 });
    }
    for (const { a, ok } of [...runs, ...runs.reverse()]) {
      const id = predictPayloadId(LIVE_PARENT, a, 3);
      if (ok) expect(id).toBe(byTheRules(LIVE_PARENT, a, 3));
      else expect(id).toBeUndefined();
    }
  });

  it("predicts nothing where the clients differ or the input is not what the node sends", () => {
    expect(predictPayloadId(LIVE_PARENT, { ...DERIVED, withdrawals: undefined }, 1)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, { ...DERIVED, withdrawals: [{}] }, 3)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, { ...DERIVED, transactions: ["0x7e0"] }, 3)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, { ...DERIVED, transactions: ["0xzz"] }, 3)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, { ...DERIVED, eip1559Params: "0x00" }, 3)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, { ...DERIVED, gasLimit: 1n << 64n }, 3)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, { ...DERIVED, minBaseFee: -1n }, 3)).toBeUndefined();
    expect(predictPayloadId("0x1234" as Hash, DERIVED, 3)).toBeUndefined();
  });
});
