import { DecodeError } from "../../../core/errors/supernode-error.js";
import type { Address, Hash } from "../../../core/types/primitives.js";
import type { StoredLog } from "../../../protocol/interop/messages.js";
import type { SealedBlock } from "../../../protocol/interop/types.js";

/** A sealed block with its logs, as one value of the logs store. */
export interface StoredBlock {
  readonly block: SealedBlock;
  readonly logs: readonly StoredLog[];
}

/**
 * The value layout (format 1), all integers big-endian:
 *
 *     0x01 ‖ hash(32) ‖ number(u64) ‖ parentHash(32) ‖ timestamp(u64) ‖ logCount(u32) ‖ log*
 *     log = kind(u8: 0 plain, 1 executing, 2 malformed) ‖ logHash(32) ‖
 *           executing: origin(20) ‖ blockNumber(u64) ‖ logIndex(u32) ‖ timestamp(u64) ‖ chainId(32) ‖ payloadHash(32)
 *           malformed: reasonLength(u16) ‖ reason (UTF-8)
 *
 * A plain log costs 33 bytes (JSON: ~80), an executing message 161 (JSON: ~330), and neither side parses text.
 * Values written before this format (JSON objects, first byte `{`) are still read.
 */
const FORMAT = 0x01;
const HEADER = 1 + 32 + 8 + 32 + 8 + 4;
const EXEC = 20 + 8 + 4 + 8 + 32 + 32;
const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

function putHex(out: Buffer, at: number, hex: string, bytes: number): void {
  if (hex.length !== 2 + 2 * bytes || out.write(hex.slice(2), at, bytes, "hex") !== bytes)
    throw new DecodeError("logs store: bad hex field", { value: hex });
}

function hexAt(v: Buffer, at: number, bytes: number): string {
  return `0x${v.toString("hex", at, at + bytes)}`;
}

export function encodeStoredBlock(s: StoredBlock): Uint8Array {
  const reasons: (Uint8Array | undefined)[] = [];
  let size = HEADER;
  for (const l of s.logs) {
    size += 33;
    if (l.executing !== undefined) size += EXEC;
    else if (l.malformed !== undefined) {
      const r = utf8.encode(l.malformed).subarray(0, 0xffff);
      reasons.push(r);
      size += 2 + r.length;
    }
  }
  const out = Buffer.alloc(size);
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out[0] = FORMAT;
  putHex(out, 1, s.block.hash, 32);
  dv.setBigUint64(33, BigInt(s.block.number));
  putHex(out, 41, s.block.parentHash, 32);
  dv.setBigUint64(73, BigInt(s.block.timestamp));
  dv.setUint32(81, s.logs.length);
  let at = HEADER;
  let r = 0;
  for (const l of s.logs) {
    const e = l.executing;
    out[at] = e !== undefined ? 1 : l.malformed !== undefined ? 2 : 0;
    putHex(out, at + 1, l.hash, 32);
    at += 33;
    if (e !== undefined) {
      putHex(out, at, e.id.origin, 20);
      dv.setBigUint64(at + 20, BigInt(e.id.blockNumber));
      dv.setUint32(at + 28, e.id.logIndex);
      dv.setBigUint64(at + 32, BigInt(e.id.timestamp));
      putHex(out, at + 40, `0x${e.id.chainId.toString(16).padStart(64, "0")}`, 32);
      putHex(out, at + 72, e.payloadHash, 32);
      at += EXEC;
    } else if (l.malformed !== undefined) {
      const reason = reasons[r++] as Uint8Array;
      dv.setUint16(at, reason.length);
      out.set(reason, at + 2);
      at += 2 + reason.length;
    }
  }
  return out;
}

export function decodeStoredBlock(value: Uint8Array): StoredBlock {
  if (value[0] === 0x7b) return decodeJson(value);
  const v = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (v[0] !== FORMAT || v.length < HEADER) throw new DecodeError("logs store: unknown value format", { first: v[0] });
  const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
  const block: SealedBlock = {
    hash: hexAt(v, 1, 32) as Hash,
    number: Number(dv.getBigUint64(33)),
    parentHash: hexAt(v, 41, 32) as Hash,
    timestamp: Number(dv.getBigUint64(73)),
  };
  const count = dv.getUint32(81);
  const logs: StoredLog[] = new Array(count);
  let at = HEADER;
  for (let i = 0; i < count; i++) {
    const kind = v[at];
    const hash = hexAt(v, at + 1, 32) as Hash;
    at += 33;
    if (kind === 1) {
      logs[i] = {
        hash,
        executing: {
          id: {
            origin: hexAt(v, at, 20) as Address,
            blockNumber: Number(dv.getBigUint64(at + 20)),
            logIndex: dv.getUint32(at + 28),
            timestamp: Number(dv.getBigUint64(at + 32)),
            chainId: BigInt(hexAt(v, at + 40, 32)),
          },
          payloadHash: hexAt(v, at + 72, 32) as Hash,
        },
      };
      at += EXEC;
    } else if (kind === 2) {
      const n = dv.getUint16(at);
      logs[i] = { hash, malformed: utf8d.decode(v.subarray(at + 2, at + 2 + n)) };
      at += 2 + n;
    } else logs[i] = { hash };
  }
  if (at !== v.length) throw new DecodeError("logs store: value length mismatch", { expected: at, got: v.length });
  return { block, logs };
}

/** The earlier JSON layout `{b: block, l: logs}` (chain IDs as decimal strings). */
function decodeJson(v: Uint8Array): StoredBlock {
  const o = JSON.parse(utf8d.decode(v)) as { b: SealedBlock; l: StoredLog[] };
  const logs = o.l.map((l) =>
    l.executing === undefined
      ? l
      : { ...l, executing: { ...l.executing, id: { ...l.executing.id, chainId: BigInt(l.executing.id.chainId) } } },
  );
  return { block: o.b, logs };
}
