/**
 * The L1-info deposit of consecutive L2 blocks of one epoch, from a template: within an epoch only the sequence
 * number changes (the deposit's source hash and one field of its calldata), so the rest — fee scalars decoded from
 * the SystemConfig, the L1 origin's fields, the RLP framing — is encoded once per (config, SystemConfig, origin,
 * L1-info format, Regolith) and each block patches two fixed-size fields of a copy. The result is byte for byte
 * {@link encodeL1InfoDepositTx} (a test checks every format).
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
    const t = this.last;
    if (
      t === undefined ||
      t.cfg !== cfg ||
      t.sys !== sys ||
      t.origin !== origin ||
      t.format !== format ||
      t.regolith !== regolith ||
      !Number.isSafeInteger(seqNumber) ||
      seqNumber < 0
    ) {
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
        // Bedrock: the fifth 32-byte word after the selector; later formats: a uint64 after two uint32 scalars.
        seqAt: format === "bedrock" ? dataAt + 4 + 32 * 4 : dataAt + 12,
        seqSize: format === "bedrock" ? 32 : 8,
      };
      return bytes.slice();
    }
    const out = t.bytes.slice();
    out.set(l1InfoDepositSourceHashBytes(t.originHash, seqNumber), t.hashAt);
    for (let i = t.seqAt + t.seqSize - 1, x = seqNumber; i >= t.seqAt; i--, x = Math.floor(x / 256)) out[i] = x % 256;
    return out;
  };
}
