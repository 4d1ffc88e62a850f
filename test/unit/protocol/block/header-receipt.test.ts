import { createBlockHeader } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { encodeReceipt as ejsEncodeReceipt } from "@ethereumjs/vm";
import fc from "fast-check";
import { bytesToHex } from "viem";
import { describe, expect, it } from "vitest";
import { hexToBytes } from "../../../../src/core/codec/hex.js";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";
import type { Hash, Hex } from "../../../../src/core/types/primitives.js";
import { type BlockHeader, encodeHeader, headerHash, parseRpcHeader } from "../../../../src/protocol/block/header.js";
import { computePayloadBlockHash, executionPayloadHeader } from "../../../../src/protocol/block/payload-hash.js";
import { encodeReceipt, logsBloom, type Receipt } from "../../../../src/protocol/block/receipt.js";
import { EMPTY_OMMERS_HASH, EMPTY_REQUESTS_HASH, EMPTY_TRIE_ROOT } from "../../../../src/protocol/block/trie.js";
import { runs } from "../../../support/property.js";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;

function rpcOf(hd: BlockHeader): Record<string, unknown> {
  const q = (v: bigint | number): string => `0x${v.toString(16)}`;
  const o: Record<string, unknown> = {
    ...hd,
    difficulty: q(hd.difficulty),
    number: q(hd.number),
    gasLimit: q(hd.gasLimit),
    gasUsed: q(hd.gasUsed),
    timestamp: q(hd.timestamp),
  };
  for (const k of ["baseFeePerGas", "blobGasUsed", "excessBlobGas"] as const) {
    const v = hd[k];
    if (v !== undefined) o[k] = q(v);
  }
  return o;
}

const prague: BlockHeader = {
  parentHash: h(1),
  sha3Uncles: EMPTY_OMMERS_HASH,
  miner: "0x4200000000000000000000000000000000000011",
  stateRoot: h(2),
  transactionsRoot: EMPTY_TRIE_ROOT,
  receiptsRoot: EMPTY_TRIE_ROOT,
  logsBloom: `0x${"00".repeat(256)}`,
  difficulty: 0n,
  number: 123456,
  gasLimit: 30_000_000n,
  gasUsed: 21_000n,
  timestamp: 1_750_000_000,
  extraData: "0x01000000fa0000000600000000000003e8",
  mixHash: h(3),
  nonce: "0x0000000000000000",
  baseFeePerGas: 1_000_000n,
  withdrawalsRoot: h(4),
  blobGasUsed: 0n,
  excessBlobGas: 0n,
  parentBeaconBlockRoot: h(5),
  requestsHash: EMPTY_REQUESTS_HASH,
};

describe("block header", () => {
  it("hash agrees with @ethereumjs/block for London..Prague headers", () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const ejs = createBlockHeader(
      {
        ...prague,
        coinbase: prague.miner,
        uncleHash: prague.sha3Uncles,
        transactionsTrie: prague.transactionsRoot,
        receiptTrie: prague.receiptsRoot,
        withdrawalsRoot: prague.withdrawalsRoot,
        number: BigInt(prague.number),
        timestamp: BigInt(prague.timestamp),
      } as never,
      { common, skipConsensusFormatValidation: true },
    );
    expect(bytesToHex(encodeHeader(prague))).toBe(bytesToHex(ejs.serialize()));
    expect(headerHash(prague)).toBe(bytesToHex(ejs.hash()));
    // Fewer trailing fields: the optional tail stops at the first absent field.
    const { requestsHash: _r, parentBeaconBlockRoot: _p, blobGasUsed: _b, excessBlobGas: _e, ...shanghai } = prague;
    expect(encodeHeader(shanghai).length).toBeLessThan(encodeHeader(prague).length);
  });

  it("parses RPC JSON and round-trips", () => {
    expect(parseRpcHeader(rpcOf(prague))).toEqual(prague);
    expect(() => parseRpcHeader({ ...rpcOf(prague), stateRoot: "0x12" })).toThrow(DecodeError);
    expect(() => parseRpcHeader(null)).toThrow(DecodeError);
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...Object.keys(prague)), fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
        (junk) => {
          try {
            parseRpcHeader({ ...rpcOf(prague), ...junk });
          } catch (e) {
            expect(e).toBeInstanceOf(DecodeError);
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it("execution payload → block hash (Isthmus: withdrawalsRoot from payload + empty requests hash)", () => {
    const tx: Hex = "0x7ef8";
    const payload = {
      parentHash: prague.parentHash,
      feeRecipient: prague.miner,
      stateRoot: prague.stateRoot,
      receiptsRoot: prague.receiptsRoot,
      logsBloom: prague.logsBloom,
      prevRandao: prague.mixHash,
      blockNumber: prague.number,
      gasLimit: prague.gasLimit,
      gasUsed: prague.gasUsed,
      timestamp: prague.timestamp,
      extraData: prague.extraData,
      baseFeePerGas: prague.baseFeePerGas as bigint,
      blockHash: h(0),
      transactions: [] as Hex[],
      withdrawals: [],
      blobGasUsed: 0n,
      excessBlobGas: 0n,
      withdrawalsRoot: prague.withdrawalsRoot as Hash,
    };
    expect(executionPayloadHeader(payload, prague.parentBeaconBlockRoot)).toEqual(prague);
    expect(computePayloadBlockHash(payload, prague.parentBeaconBlockRoot)).toBe(headerHash(prague));
    const { withdrawalsRoot: _w, ...canyon } = payload;
    expect(executionPayloadHeader({ ...canyon, transactions: [tx] }).withdrawalsRoot).toBe(EMPTY_TRIE_ROOT);
    expect(executionPayloadHeader({ ...canyon, transactions: [tx] }).requestsHash).toBeUndefined();
  });
});

describe("receipts", () => {
  const log = {
    address: "0x4200000000000000000000000000000000000016" as const,
    topics: [h(0xaa), h(0xbb)],
    data: "0x1234" as Hex,
  };
  it("encoding and bloom agree with @ethereumjs/vm", () => {
    const cases: Receipt[] = [
      { type: 0, status: 1, cumulativeGasUsed: 21000n, logs: [] },
      { type: 2, status: 0, cumulativeGasUsed: 50000n, logs: [log] },
      { type: 3, status: 1, cumulativeGasUsed: 90000n, logs: [log, { ...log, topics: [] }] },
    ];
    for (const r of cases) {
      const bloom = logsBloom(r.logs);
      const ejs = ejsEncodeReceipt(
        {
          status: r.status,
          cumulativeBlockGasUsed: r.cumulativeGasUsed,
          bitvector: bloom,
          logs: r.logs.map((l) => [hexToBytes(l.address), l.topics.map((t) => hexToBytes(t)), hexToBytes(l.data)]),
        } as never,
        r.type as never,
      );
      expect(bytesToHex(encodeReceipt(r))).toBe(bytesToHex(ejs));
    }
  });
  it("bloom sets 3 bits per item and deposit receipts append nonce and version", () => {
    const b = logsBloom([{ ...log, topics: [] }]);
    const bits = [...b].reduce((n, x) => n + x.toString(2).replaceAll("0", "").length, 0);
    expect(bits).toBeGreaterThan(0);
    expect(bits).toBeLessThanOrEqual(3);
    const dep = encodeReceipt({
      type: 0x7e,
      status: 1,
      cumulativeGasUsed: 1n,
      logs: [],
      depositNonce: 7n,
      depositReceiptVersion: 1n,
    });
    expect(dep[0]).toBe(0x7e);
    expect(bytesToHex(dep.subarray(dep.length - 2))).toBe("0x0701");
  });
});
