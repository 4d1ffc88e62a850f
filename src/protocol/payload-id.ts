/**
 * The payload id an OP execution client returns from `engine_forkchoiceUpdated` with attributes, computed from the
 * same inputs (docs/performance.md): op-geth (`BuildPayloadArgs.Id`) and op-reth
 * (`payload_id_optimism`) both take the first 8 bytes of
 *
 *   sha256( parent hash ‖ timestamp u64 BE ‖ prevRandao ‖ fee recipient ‖ RLP(withdrawals)
 *           ‖ parentBeaconBlockRoot (when present)
 *           ‖ [noTxPool 1 byte ‖ tx count u64 BE ‖ keccak256(tx) for each tx]  (when noTxPool or any tx)
 *           ‖ gasLimit u64 BE (when present) ‖ eip1559Params 8 bytes (when present) ‖ minBaseFee u64 BE (when present) )
 *
 * with byte 0 replaced by the payload version (1, 2 or 3: the forkchoiceUpdated method's version). Knowing the id
 * before the answer lets `engine_getPayload` ride in the same request as the build start.
 *
 * Undefined where the two clients differ or the input is outside what the node sends: withdrawals absent (op-geth
 * hashes RLP of the empty list, op-reth nothing) or not empty (OP blocks carry none), malformed hex, or an integer
 * past 64 bits. A prediction is only ever a guess: the caller checks it against the id the EL returns.
 */
import { hash } from "node:crypto";
import { writeHexBytes } from "../core/codec/hex.js";
import type { Hash, Hex } from "../core/types/primitives.js";
import { keccak } from "./block/keccak.js";
import type { PayloadAttributes } from "./engine-api-types.js";

const U64_MAX = (1n << 64n) - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Two hex digits of each byte value (the id's first byte is the payload version). */
const VERSION_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** RLP of an empty list: what both clients hash for `withdrawals: []`. */
const EMPTY_LIST_RLP: Uint8Array = Uint8Array.of(0xc0);

/** The payload version byte of a forkchoiceUpdated method (`engine_forkchoiceUpdatedV3` → 3), else undefined. */
export function payloadVersionOf(forkchoiceMethod: string): 1 | 2 | 3 | undefined {
  const v = forkchoiceMethod.charCodeAt(forkchoiceMethod.length - 1) - 48;
  return forkchoiceMethod.startsWith("engine_forkchoiceUpdatedV") && (v === 1 || v === 2 || v === 3) ? v : undefined;
}

/** The inputs of a payload id, as the execution client holds them after parsing the attributes. */
export interface PayloadIdInput {
  readonly parentHash: Hash;
  readonly timestamp: number;
  readonly prevRandao: Hash;
  readonly feeRecipient: Hex;
  /** RLP of the withdrawals list as the client hashes it (op-geth: always, `0xc0` for none; op-reth: when given). */
  readonly withdrawalsRlp: Uint8Array | undefined;
  readonly parentBeaconBlockRoot: Hash | undefined;
  readonly noTxPool: boolean;
  /** keccak256 of each transaction's EIP-2718 bytes (its hash). */
  readonly txHashes: readonly Uint8Array[];
  readonly gasLimit: bigint | undefined;
  /** 8 bytes of hex, from Holocene. */
  readonly eip1559Params: Hex | undefined;
  readonly minBaseFee: bigint | undefined;
  readonly version: number;
}

/** The payload id of `x` (0x + 16 lower-case hex digits); undefined when a field is malformed or out of range. */
export function payloadId(x: PayloadIdInput): Hex | undefined {
  const n = x.txHashes.length;
  const extended = x.noTxPool || n > 0;
  const { gasLimit, minBaseFee: mbf, eip1559Params: eip, parentBeaconBlockRoot: pbr } = x;
  if (gasLimit !== undefined && (gasLimit < 0n || gasLimit > U64_MAX)) return undefined;
  if (mbf !== undefined && (mbf < 0n || mbf > U64_MAX)) return undefined;
  if (!Number.isSafeInteger(x.timestamp) || x.timestamp < 0) return undefined;
  const wLen = x.withdrawalsRlp?.length ?? 0;
  const size =
    32 +
    8 +
    32 +
    20 +
    wLen +
    (pbr === undefined ? 0 : 32) +
    (extended ? 9 + 32 * n : 0) +
    (gasLimit === undefined ? 0 : 8) +
    (eip === undefined ? 0 : 8) +
    (mbf === undefined ? 0 : 8);
  const buf = Buffer.allocUnsafe(size);
  if (!writeHexBytes(x.parentHash, 32, buf, 0)) return undefined;
  putU64(buf, 32, x.timestamp);
  if (!writeHexBytes(x.prevRandao, 32, buf, 40) || !writeHexBytes(x.feeRecipient, 20, buf, 72)) return undefined;
  let off = 92;
  if (x.withdrawalsRlp !== undefined) {
    buf.set(x.withdrawalsRlp, off);
    off += wLen;
  }
  if (pbr !== undefined) {
    if (!writeHexBytes(pbr, 32, buf, off)) return undefined;
    off += 32;
  }
  if (extended) {
    buf[off++] = x.noTxPool ? 1 : 0;
    putU64(buf, off, n);
    off += 8;
    for (const h of x.txHashes) {
      if (h.length !== 32) return undefined;
      buf.set(h, off);
      off += 32;
    }
  }
  if (gasLimit !== undefined) {
    putU64(buf, off, gasLimit);
    off += 8;
  }
  if (eip !== undefined) {
    if (!writeHexBytes(eip, 8, buf, off)) return undefined;
    off += 8;
  }
  if (mbf !== undefined) putU64(buf, off, mbf);
  // The id is the first 8 bytes of the sha256, byte 0 replaced by the version.
  return `0x${VERSION_HEX[x.version & 0xff]}${hash("sha256", buf, "hex").slice(2, 16)}`;
}

/** `v` (a non-negative integer below 2^64) big-endian in the 8 bytes at `off`. */
function putU64(buf: Uint8Array, off: number, v: number | bigint): void {
  let hi: number;
  let lo: number;
  if (typeof v === "number") {
    hi = Math.floor(v / 2 ** 32);
    lo = v >>> 0;
  } else if (v <= MAX_SAFE) {
    const n = Number(v);
    hi = Math.floor(n / 2 ** 32);
    lo = n >>> 0;
  } else {
    hi = Number(v >> 32n);
    lo = Number(v & 0xffffffffn);
  }
  buf[off] = hi >>> 24;
  buf[off + 1] = (hi >>> 16) & 0xff;
  buf[off + 2] = (hi >>> 8) & 0xff;
  buf[off + 3] = hi & 0xff;
  buf[off + 4] = lo >>> 24;
  buf[off + 5] = (lo >>> 16) & 0xff;
  buf[off + 6] = (lo >>> 8) & 0xff;
  buf[off + 7] = lo & 0xff;
}

/**
 * The id the EL will return for building `attrs` on `parentHash` with forkchoiceUpdated version `version`, or
 * undefined where op-geth and op-reth would differ (withdrawals absent, i.e. before Canyon) or the attributes hold
 * withdrawals (OP blocks never do) or malformed fields.
 */
export function predictPayloadId(parentHash: Hash, attrs: PayloadAttributes, version: 1 | 2 | 3): Hex | undefined {
  const f = attrs.fields;
  if (f.withdrawals === undefined || f.withdrawals.length !== 0) return undefined;
  return payloadId({
    parentHash,
    timestamp: f.timestamp,
    prevRandao: f.prevRandao,
    feeRecipient: f.suggestedFeeRecipient,
    withdrawalsRlp: EMPTY_LIST_RLP,
    parentBeaconBlockRoot: f.parentBeaconBlockRoot,
    noTxPool: f.noTxPool,
    txHashes: attrs.txBytes.map((t) => keccak(t)),
    gasLimit: f.gasLimit,
    eip1559Params: f.eip1559Params,
    minBaseFee: f.minBaseFee,
    version,
  });
}
