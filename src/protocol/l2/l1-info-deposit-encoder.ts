/**
 * The L1-info deposit of consecutive L2 blocks, from a template: within an epoch only the sequence number changes
 * (the deposit's source hash and one field of its calldata), so the rest — fee scalars decoded from the
 * SystemConfig, the L1 origin's fields, the RLP framing — is encoded once per (config, SystemConfig, origin,
 * L1-info format, Regolith) and each block patches two fixed-size fields of a copy. A new epoch with the same
 * config, SystemConfig, format and Regolith rule (the usual case) patches the origin's fields as well (number,
 * time, base fees, hash: fixed-size fields of every format) instead of encoding the whole deposit again — which,
 * run once per epoch, runs cold. The result is byte for byte {@link encodeL1InfoDepositTx} (a test checks every
 * format); any value that does not fit its field goes the full way (and meets its error).
 */
import { hexToBytes } from "../../core/codec/hex.js";
import { l1InfoDepositSourceHashBytes } from "../l1/source-hash.js";
import { isForkActive, type RollupConfig, type SystemConfig } from "../rollup-config.js";
import {
  encodeL1InfoDepositTx,
  L1_INFO_LENGTHS,
  type L1InfoFormat,
  type L1OriginInfo,
  l1InfoFormatAt,
} from "./l1-info.js";

interface Template {
  readonly cfg: RollupConfig;
  readonly sys: SystemConfig;
  readonly origin: L1OriginInfo;
  readonly format: L1InfoFormat;
  readonly regolith: boolean;
  readonly bytes: Uint8Array;
  readonly originHash: Uint8Array;
  /** Offset of the 32-byte source hash. */
  readonly hashAt: number;
  /** Offset of the L1-info calldata (after its RLP header). */
  readonly dataAt: number;
  /** Offset and size of the big-endian sequence number in the calldata. */
  readonly seqAt: number;
  readonly seqSize: number;
}

/** Offset of the source hash: after the type byte, the list header and the 0xa0 string header. */
function sourceHashOffset(tx: Uint8Array): number {
  const first = tx[1]!;
  const listHeader = first >= 0xf8 ? 1 + (first - 0xf7) : 1;
  return 1 + listHeader + 1;
}

const U256_LIMIT = 1n << 256n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Writes `v` big-endian into `out[at, at + size)` (every byte: the field is overwritten whole); false, nothing
 * written, unless `v` is a non-negative integer that is safe (any size here) or, as a bigint, below 2^256 (size 32).
 */
function putUint(out: Uint8Array, at: number, size: 8 | 32, v: number | bigint): boolean {
  let n: number;
  if (typeof v === "bigint") {
    if (v < 0n) return false;
    if (v > MAX_SAFE) {
      if (size !== 32 || v >= U256_LIMIT) return false;
      let x = v;
      for (let i = at + size - 1; i >= at; i--, x >>= 8n) out[i] = Number(x & 0xffn);
      return true;
    }
    n = Number(v);
  } else {
    if (!Number.isSafeInteger(v) || v < 0) return false;
    n = v;
  }
  for (let i = at + size - 1, x = n; i >= at; i--, x = Math.floor(x / 256)) out[i] = x % 256;
  return true;
}

/**
 * The template `t` for another origin (same config, SystemConfig, format and Regolith rule): a copy of its bytes
 * with the origin's calldata fields written (the sequence number and source hash are written per block anyway).
 * Undefined when a value does not fit its field or the hash is not 32 bytes of hex: the caller encodes in full.
 * Calldata layout (op-node `L1BlockInfo` marshalling): Bedrock — selector, number, time, baseFee (uint256 each),
 * hash, …; Ecotone and later — selector, two uint32 scalars, sequence number, time, number (uint64 each),
 * baseFee, blobBaseFee (uint256), hash, ….
 */
function withOrigin(t: Template, origin: L1OriginInfo): Template | undefined {
  let originHash: Uint8Array;
  try {
    originHash = hexToBytes(origin.hash);
  } catch {
    return undefined;
  }
  if (originHash.length !== 32) return undefined;
  const bytes = t.bytes.slice();
  const d = t.dataAt;
  const ok =
    t.format === "bedrock"
      ? putUint(bytes, d + 4, 32, origin.number) &&
        putUint(bytes, d + 36, 32, origin.time) &&
        putUint(bytes, d + 68, 32, origin.baseFee)
      : putUint(bytes, d + 20, 8, origin.time) &&
        putUint(bytes, d + 28, 8, origin.number) &&
        putUint(bytes, d + 36, 32, origin.baseFee) &&
        putUint(bytes, d + 68, 32, origin.blobBaseFee);
  if (!ok) return undefined;
  bytes.set(originHash, d + 100);
  return { ...t, origin, bytes, originHash };
}

/** Bytes of the slabs the per-block copies are cut from. */
const SLAB_BYTES = 16 * 1024;
let slab = new ArrayBuffer(SLAB_BYTES);
let slabUsed = 0;

/**
 * A copy of `src` in a view of a shared slab (as Node's `Buffer.allocUnsafe` pool does), instead of `slice()`: a
 * typed array over 64 bytes gets a buffer of its own outside V8's heap (an allocation and a later sweep per block,
 * ADR 0106). A slab lives while any copy cut from it does (at most 16 kB: a deposit lives about one block).
 */
function slabCopy(src: Uint8Array): Uint8Array {
  const n = src.length;
  if (n > SLAB_BYTES >> 2) return src.slice();
  if (slabUsed + n > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  const out = new Uint8Array(slab, slabUsed, n);
  out.set(src);
  slabUsed = (slabUsed + n + 7) & ~7;
  return out;
}

export class L1InfoDepositEncoder {
  private last: Template | undefined;

  /** Same signature and bytes as {@link encodeL1InfoDepositTx}. */
  readonly encode = (
    cfg: RollupConfig,
    sys: SystemConfig,
    origin: L1OriginInfo,
    seqNumber: number,
    l2Timestamp: number,
  ): Uint8Array => {
    const format = l1InfoFormatAt(cfg, l2Timestamp);
    const regolith = isForkActive(cfg, "regolith", l2Timestamp);
    let t = this.last;
    if (t !== undefined && (t.cfg !== cfg || t.sys !== sys || t.format !== format || t.regolith !== regolith))
      t = undefined;
    if (t !== undefined && t.origin !== origin) t = this.last = withOrigin(t, origin);
    if (t === undefined || !Number.isSafeInteger(seqNumber) || seqNumber < 0) {
      const bytes = encodeL1InfoDepositTx(cfg, sys, origin, seqNumber, l2Timestamp);
      const dataAt = bytes.length - L1_INFO_LENGTHS[format];
      this.last = {
        cfg,
        sys,
        origin,
        format,
        regolith,
        bytes,
        originHash: hexToBytes(origin.hash),
        hashAt: sourceHashOffset(bytes),
        dataAt,
        // Bedrock: the fifth 32-byte word after the selector; later formats: a uint64 after two uint32 scalars.
        seqAt: format === "bedrock" ? dataAt + 4 + 32 * 4 : dataAt + 12,
        seqSize: format === "bedrock" ? 32 : 8,
      };
      return bytes.slice();
    }
    const out = slabCopy(t.bytes);
    out.set(l1InfoDepositSourceHashBytes(t.originHash, seqNumber), t.hashAt);
    for (let i = t.seqAt + t.seqSize - 1, x = seqNumber; i >= t.seqAt; i--, x = Math.floor(x / 256)) out[i] = x % 256;
    return out;
  };
}
