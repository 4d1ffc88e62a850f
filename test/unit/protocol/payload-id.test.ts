import { createHash } from "node:crypto";
import { keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../src/core/codec/hex.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import fc from "fast-check";
import type { AttributesFields } from "../../../src/protocol/engine-api-types.js";
import { attributesFromHex } from "../../../src/protocol/l2/attributes.js";
import { payloadVersionOf, predictPayloadId } from "../../../src/protocol/payload-id.js";

/** Attributes as the tests write them: the fields and the transactions' hex. */
type Flat = AttributesFields & { readonly transactions: readonly Hex[] };
const attrs = ({ transactions, ...fields }: Flat) => attributesFromHex(fields, transactions);

// A build start op-geth answered in a live network (op-reth's parity test `test_payload_id_parity_op_geth` records
// these attributes and the id op-geth returned, "payload_id_l2=0x03d2dae446d2a86a"): sequencer attributes with one
// L1-info deposit, noTxPool false, gasLimit 30M, no eip1559Params, forkchoiceUpdatedV3.
const LIVE_PARENT: Hash = "0x3533bf30edaf9505d0810bf475cbe4e5f4b9889904b9845e83efdeab4e92eb1e";
const LIVE_DEPOSIT: Hex =
  "0x7ef8f8a0dc19cfa777d90980e4875d0a548a881baaa3f83f14d1bc0d3038bc329350e54194deaddeaddeaddeaddeaddeaddeaddeaddead00019442000000000000000000000000000000000000158080830f424080b8a4440a5e20000f424000000000000000000000000300000000670d6d890000000000000125000000000000000000000000000000000000000000000000000000000000000700000000000000000000000000000000000000000000000000000000000000014bf9181db6e381d4384bbf69c48b0ee0eed23c6ca26143c6d2544f9d39997a590000000000000000000000007f83d659683caf2767fd3c720981d51f5bc365bc";
const LIVE: Flat = {
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

/** The id written out field by field from the rules (docs/performance.md), with node's sha256 and viem's keccak. */
function byTheRules(parent: Hash, a: Flat, version: number): Hex {
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

const DERIVED: Flat = {
  ...LIVE,
  transactions: [LIVE_DEPOSIT, "0x02f86b0180843b9aca00", "0x7ef85a"],
  noTxPool: true,
  eip1559Params: "0x000000fa00000006",
};

describe("payload id (op-geth BuildPayloadArgs.Id / op-reth payload_id_optimism)", () => {
  it("is the id op-geth returned for a live build start", () => {
    expect(predictPayloadId(LIVE_PARENT, attrs(LIVE), 3)).toBe("0x03d2dae446d2a86a");
    expect(byTheRules(LIVE_PARENT, LIVE, 3)).toBe("0x03d2dae446d2a86a");
  });

  it("puts the forkchoiceUpdated version in byte 0 and keeps the other seven", () => {
    expect(predictPayloadId(LIVE_PARENT, attrs(LIVE), 2)).toBe("0x02d2dae446d2a86a");
    expect(payloadVersionOf("engine_forkchoiceUpdatedV3")).toBe(3);
    expect(payloadVersionOf("engine_forkchoiceUpdatedV2")).toBe(2);
    expect(payloadVersionOf("engine_forkchoiceUpdatedV1")).toBe(1);
    expect(payloadVersionOf("engine_forkchoiceUpdatedV4")).toBeUndefined();
    expect(payloadVersionOf("engine_getPayloadV3")).toBeUndefined();
  });

  it("hashes noTxPool, the transactions, eip1559Params and minBaseFee (0 included) when present", () => {
    const cases: Flat[] = [
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
      const id = predictPayloadId(LIVE_PARENT, attrs(a), 3);
      expect(id).toBe(byTheRules(LIVE_PARENT, a, 3));
      ids.add(id as string);
    }
    expect(ids.size).toBe(cases.length);
  });

  it("is the id by the rules for any attributes the node can send (property)", () => {
    const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
    const hex = (n: number) => bytes(n).map((b) => bytesToHex(b));
    const flat = fc.record({
      timestamp: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      prevRandao: hex(32),
      suggestedFeeRecipient: hex(20),
      withdrawals: fc.constant([]),
      parentBeaconBlockRoot: fc.option(hex(32), { nil: undefined }),
      transactions: fc.array(
        fc.uint8Array({ minLength: 1, maxLength: 80 }).map((b) => bytesToHex(b)),
        {
          maxLength: 6,
        },
      ),
      noTxPool: fc.boolean(),
      gasLimit: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      eip1559Params: fc.option(hex(8), { nil: undefined }),
      minBaseFee: fc.option(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { nil: undefined }),
    });
    fc.assert(
      fc.property(hex(32), flat, fc.constantFrom(1, 2, 3), (parent, a, v) => {
        expect(predictPayloadId(parent, attrs(a), v as 1 | 2 | 3)).toBe(byTheRules(parent, a, v));
      }),
      { numRuns: 300 },
    );
  });

  it("predicts nothing where the clients differ or the input is not what the node sends", () => {
    expect(predictPayloadId(LIVE_PARENT, attrs({ ...DERIVED, withdrawals: undefined }), 1)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, attrs({ ...DERIVED, withdrawals: [{}] }), 3)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, attrs({ ...DERIVED, eip1559Params: "0x00" }), 3)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, attrs({ ...DERIVED, gasLimit: 1n << 64n }), 3)).toBeUndefined();
    expect(predictPayloadId(LIVE_PARENT, attrs({ ...DERIVED, minBaseFee: -1n }), 3)).toBeUndefined();
    expect(predictPayloadId("0x1234" as Hash, attrs(DERIVED), 3)).toBeUndefined();
  });
});
