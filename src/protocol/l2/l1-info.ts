import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash } from "../../core/types/primitives.js";
import { bytesToBigint } from "../block/rlp.js";
import { decodeEcotoneScalars, decodeOperatorFeeParams } from "../l1/fee-scalars.js";
import { l1InfoDepositSourceHash, l1InfoDepositSourceHashBytes } from "../l1/source-hash.js";
import { isForkActivationBlock, isForkActive, type RollupConfig, type SystemConfig } from "../rollup-config.js";
import { type DepositTx, encodeDepositTxBytes } from "./deposit-tx.js";
import { L1_BLOCK_PREDEPLOY, L1_INFO_DEPOSITOR } from "./upgrade-txs.js";

export type L1InfoFormat = "bedrock" | "ecotone" | "isthmus" | "jovian";

export const L1_INFO_SELECTORS: Record<L1InfoFormat, string> = {
  bedrock: "015d8eb9",
  ecotone: "440a5e20",
  isthmus: "098999be",
  jovian: "3db6be2b",
};
export const L1_INFO_LENGTHS: Record<L1InfoFormat, number> = { bedrock: 260, ecotone: 164, isthmus: 176, jovian: 178 };

/** Default DA footprint gas scalar when the SystemConfig value is 0 (Jovian). */
export const DEFAULT_DA_FOOTPRINT_GAS_SCALAR = 400;

/** The values carried by the L1-info deposit (fields beyond the format's are 0 / zero). */
export interface L1BlockInfo {
  readonly number: number;
  readonly time: number;
  readonly baseFee: bigint;
  readonly blockHash: Hash;
  readonly sequenceNumber: number;
  readonly batcherAddr: Address;
  /** Bedrock format only. */
  readonly l1FeeOverhead: Hash;
  /** Bedrock format only. */
  readonly l1FeeScalar: Hash;
  /** Ecotone+. */
  readonly blobBaseFee: bigint;
  readonly baseFeeScalar: number;
  readonly blobBaseFeeScalar: number;
  /** Isthmus+. */
  readonly operatorFeeScalar: number;
  readonly operatorFeeConstant: bigint;
  /** Jovian+. */
  readonly daFootprintGasScalar: number;
}

const ZERO32: Hash = `0x${"00".repeat(32)}`;

/** The Ecotone-and-later fields, zero (Bedrock-format L1 info). */
const NO_POST_BEDROCK_FIELDS = {
  blobBaseFee: 0n,
  baseFeeScalar: 0,
  blobBaseFeeScalar: 0,
  operatorFeeScalar: 0,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 0,
} as const;

/** Format of the L1-info deposit of the L2 block at `l2Timestamp` (a fork's first block keeps the old format). */
export function l1InfoFormatAt(cfg: RollupConfig, l2Timestamp: number): L1InfoFormat {
  if (activeAfterActivation(cfg, "jovian", l2Timestamp)) return "jovian";
  if (activeAfterActivation(cfg, "isthmus", l2Timestamp)) return "isthmus";
  if (activeAfterActivation(cfg, "ecotone", l2Timestamp)) return "ecotone";
  return "bedrock";
}

function activeAfterActivation(cfg: RollupConfig, f: "ecotone" | "isthmus" | "jovian", ts: number): boolean {
  return isForkActive(cfg, f, ts) && !isForkActivationBlock(cfg, f, ts);
}

class Writer {
  readonly buf: Uint8Array;
  private readonly dv: DataView;
  pos = 0;
  constructor(n: number) {
    this.buf = new Uint8Array(n);
    this.dv = new DataView(this.buf.buffer);
  }
  bytes(b: Uint8Array, size: number): void {
    if (b.length > size) throw new DecodeError(`l1 info: value exceeds ${size} bytes`);
    this.buf.set(b, this.pos + size - b.length);
    this.pos += size;
  }
  uint(v: bigint | number, size: number): void {
    // Values below 2^53 (every number field, and fees in practice) without BigInt arithmetic; the buffer is zeroed.
    const n = typeof v === "bigint" && v >= 0n && v <= 9_007_199_254_740_991n ? Number(v) : v;
    if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 && (size >= 7 || n < 2 ** (8 * size))) {
      for (let i = size - 1, x = n; i >= 0 && x > 0; i--, x = Math.floor(x / 256)) this.buf[this.pos + i] = x % 256;
      this.pos += size;
      return;
    }
    let x = BigInt(v);
    if (x < 0n || x >= 1n << BigInt(size * 8)) throw new DecodeError(`l1 info: value exceeds uint${size * 8}`);
    for (let i = size - 1; i >= 0; i--) {
      this.buf[this.pos + i] = Number(x & 0xffn);
      x >>= 8n;
    }
    this.pos += size;
  }
  u32(v: number): void {
    this.dv.setUint32(this.pos, v);
    this.pos += 4;
  }
}

const SELECTOR_BYTES: Record<L1InfoFormat, Uint8Array> = {
  bedrock: hexToBytes(`0x${L1_INFO_SELECTORS.bedrock}`),
  ecotone: hexToBytes(`0x${L1_INFO_SELECTORS.ecotone}`),
  isthmus: hexToBytes(`0x${L1_INFO_SELECTORS.isthmus}`),
  jovian: hexToBytes(`0x${L1_INFO_SELECTORS.jovian}`),
};

/** Encodes the L1-info calldata in the given format. */
export function encodeL1InfoData(info: L1BlockInfo, format: L1InfoFormat): Uint8Array {
  const w = new Writer(L1_INFO_LENGTHS[format]);
  w.bytes(SELECTOR_BYTES[format], 4);
  if (format === "bedrock") {
    w.uint(info.number, 32);
    w.uint(info.time, 32);
    w.uint(info.baseFee, 32);
    w.bytes(hexToBytes(info.blockHash), 32);
    w.uint(info.sequenceNumber, 32);
    w.bytes(hexToBytes(info.batcherAddr), 32);
    w.bytes(hexToBytes(info.l1FeeOverhead), 32);
    w.bytes(hexToBytes(info.l1FeeScalar), 32);
    return w.buf;
  }
  w.u32(info.baseFeeScalar);
  w.u32(info.blobBaseFeeScalar);
  w.uint(info.sequenceNumber, 8);
  w.uint(info.time, 8);
  w.uint(info.number, 8);
  w.uint(info.baseFee, 32);
  w.uint(info.blobBaseFee, 32);
  w.bytes(hexToBytes(info.blockHash), 32);
  w.bytes(hexToBytes(info.batcherAddr), 32);
  if (format === "isthmus" || format === "jovian") {
    w.u32(info.operatorFeeScalar);
    w.uint(info.operatorFeeConstant, 8);
  }
  if (format === "jovian") w.uint(info.daFootprintGasScalar, 2);
  return w.buf;
}

const FORMATS = Object.keys(L1_INFO_SELECTORS) as L1InfoFormat[];

function formatOfSelector(data: Uint8Array): L1InfoFormat | undefined {
  for (const f of FORMATS) {
    const sel = SELECTOR_BYTES[f];
    if (data[0] === sel[0] && data[1] === sel[1] && data[2] === sel[2] && data[3] === sel[3]) return f;
  }
  return undefined;
}

/** Big-endian unsigned integer of `n` bytes at `off`; a number when it is at most 6 bytes. */
function uintAt(data: Uint8Array, off: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + data[off + i]!;
  return v;
}

/** The `i`-th 32-byte word of Bedrock-format L1-info calldata. */
function wordAt(data: Uint8Array, i: number): Uint8Array {
  return data.subarray(4 + 32 * i, 36 + 32 * i);
}

/** A uint64 field as a number (DecodeError beyond 2^53 - 1). */
function u64(data: Uint8Array, off: number, what: string): number {
  const hi = uintAt(data, off, 4);
  const lo = uintAt(data, off + 4, 4);
  if (hi > 0x1fffff) throw new DecodeError(`l1 info: ${what} too large`);
  return hi * 0x1_0000_0000 + lo;
}

function safeNumber(v: bigint, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError(`l1 info: ${what} too large`);
  return Number(v);
}

/**
 * Decodes L1-info calldata. With `format`, the selector and exact length of that format are required;
 * without it the format is taken from the selector. Throws DecodeError on any mismatch.
 */
export function decodeL1InfoData(data: Uint8Array, format?: L1InfoFormat): L1BlockInfo & { format: L1InfoFormat } {
  if (data.length < 4) throw new DecodeError("l1 info: data too short");
  const f = format ?? formatOfSelector(data);
  if (f === undefined) throw new DecodeError("l1 info: unknown selector");
  if (formatOfSelector(data) !== f) throw new DecodeError(`l1 info: selector is not the ${f} selector`);
  if (data.length !== L1_INFO_LENGTHS[f])
    throw new DecodeError(`l1 info: ${f} data must be ${L1_INFO_LENGTHS[f]} bytes, got ${data.length}`);
  if (f === "bedrock") {
    const word = wordAt;
    const batcherWord = word(data, 5);
    for (let i = 0; i < 12; i++)
      if (batcherWord[i] !== 0) throw new DecodeError("l1 info: batcher hash not an address");
    return {
      format: f,
      number: safeNumber(bytesToBigint(word(data, 0)), "number"),
      time: safeNumber(bytesToBigint(word(data, 1)), "time"),
      baseFee: bytesToBigint(word(data, 2)),
      blockHash: bytesToHex(word(data, 3)),
      sequenceNumber: safeNumber(bytesToBigint(word(data, 4)), "sequence number"),
      batcherAddr: bytesToHex(batcherWord.subarray(12)),
      l1FeeOverhead: bytesToHex(word(data, 6)),
      l1FeeScalar: bytesToHex(word(data, 7)),
      ...NO_POST_BEDROCK_FIELDS,
    };
  }
  // The 12 padding bytes before the batcher address are skipped unchecked (as op-node does for packed formats).
  const ext = f === "isthmus" || f === "jovian";
  return {
    format: f,
    baseFeeScalar: uintAt(data, 4, 4),
    blobBaseFeeScalar: uintAt(data, 8, 4),
    sequenceNumber: u64(data, 12, "sequence number"),
    time: u64(data, 20, "time"),
    number: u64(data, 28, "number"),
    baseFee: bytesToBigint(data.subarray(36, 68)),
    blobBaseFee: bytesToBigint(data.subarray(68, 100)),
    blockHash: bytesToHex(data.subarray(100, 132)),
    batcherAddr: bytesToHex(data.subarray(144, 164)),
    l1FeeOverhead: ZERO32,
    l1FeeScalar: ZERO32,
    operatorFeeScalar: ext ? uintAt(data, 164, 4) : 0,
    operatorFeeConstant: ext ? bytesToBigint(data.subarray(168, 176)) : 0n,
    daFootprintGasScalar: f === "jovian" ? uintAt(data, 176, 2) : 0,
  };
}

/** The L1 origin facts needed for the L1-info deposit and payload attributes. */
export interface L1OriginInfo {
  readonly number: number;
  readonly hash: Hash;
  readonly time: number;
  readonly baseFee: bigint;
  /** From the L1 header's excessBlobGas per the L1 fork schedule (1 when the block has none). */
  readonly blobBaseFee: bigint;
  /** L1 `mixHash` (prevRandao). */
  readonly mixHash: Hash;
  readonly parentBeaconBlockRoot?: Hash;
}

/** The L1-info values for an L2 block from its origin, SystemConfig and sequence number. */
export function l1BlockInfoFor(
  cfg: RollupConfig,
  sys: SystemConfig,
  origin: L1OriginInfo,
  seqNumber: number,
  l2Timestamp: number,
): L1BlockInfo & { format: L1InfoFormat } {
  const format = l1InfoFormatAt(cfg, l2Timestamp);
  const base = {
    format,
    number: origin.number,
    time: origin.time,
    baseFee: origin.baseFee,
    blockHash: origin.hash,
    sequenceNumber: seqNumber,
    batcherAddr: sys.batcherAddr,
    l1FeeOverhead: ZERO32,
    l1FeeScalar: ZERO32,
    ...NO_POST_BEDROCK_FIELDS,
  };
  if (format === "bedrock") return { ...base, l1FeeOverhead: sys.overhead, l1FeeScalar: sys.scalar };
  const scalars = decodeEcotoneScalars(sys.scalar);
  const withScalars = { ...base, ...scalars, blobBaseFee: origin.blobBaseFee };
  if (format === "ecotone") return withScalars;
  const op = decodeOperatorFeeParams(sys.operatorFeeParams);
  const withOp = { ...withScalars, operatorFeeScalar: op.scalar, operatorFeeConstant: op.constant };
  if (format === "isthmus") return withOp;
  return {
    ...withOp,
    daFootprintGasScalar: sys.daFootprintGasScalar === 0 ? DEFAULT_DA_FOOTPRINT_GAS_SCALAR : sys.daFootprintGasScalar,
  };
}

const L1_INFO_DEPOSITOR_BYTES = hexToBytes(L1_INFO_DEPOSITOR);
const L1_BLOCK_PREDEPLOY_BYTES = hexToBytes(L1_BLOCK_PREDEPLOY);

/**
 * The EIP-2718 bytes of the L1-info deposit: exactly `encodeDepositTx(l1InfoDepositTx(...))`, built without the
 * hex round trips (it is computed for every derived or sequenced block).
 */
export function encodeL1InfoDepositTx(
  cfg: RollupConfig,
  sys: SystemConfig,
  origin: L1OriginInfo,
  seqNumber: number,
  l2Timestamp: number,
): Uint8Array {
  const info = l1BlockInfoFor(cfg, sys, origin, seqNumber, l2Timestamp);
  const regolith = isForkActive(cfg, "regolith", l2Timestamp);
  return encodeDepositTxBytes({
    sourceHash: l1InfoDepositSourceHashBytes(hexToBytes(origin.hash), seqNumber),
    from: L1_INFO_DEPOSITOR_BYTES,
    to: L1_BLOCK_PREDEPLOY_BYTES,
    mint: 0n,
    value: 0n,
    gas: regolith ? 1_000_000n : 150_000_000n,
    isSystemTx: !regolith,
    data: encodeL1InfoData(info, info.format),
  });
}

/** The L1-info deposit transaction (first transaction of every L2 block). */
export function l1InfoDepositTx(
  cfg: RollupConfig,
  sys: SystemConfig,
  origin: L1OriginInfo,
  seqNumber: number,
  l2Timestamp: number,
): DepositTx {
  const info = l1BlockInfoFor(cfg, sys, origin, seqNumber, l2Timestamp);
  const regolith = isForkActive(cfg, "regolith", l2Timestamp);
  return {
    sourceHash: l1InfoDepositSourceHash(origin.hash, seqNumber),
    from: L1_INFO_DEPOSITOR,
    to: L1_BLOCK_PREDEPLOY,
    mint: 0n,
    value: 0n,
    gas: regolith ? 1_000_000n : 150_000_000n,
    isSystemTx: !regolith,
    data: bytesToHex(encodeL1InfoData(info, info.format)),
  };
}
