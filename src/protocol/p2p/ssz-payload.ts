/**
 * SSZ execution payloads as OP gossip and req-resp carry them (op-service `eth/ssz.go` layout): V1 (Bedrock),
 * V2 (+withdrawals offset, Canyon), V3 (+blob gas fields, Ecotone), V4 (+withdrawalsRoot, Isthmus). Envelopes
 * (V3/V4 topics) are the 32-byte parent beacon block root followed by the payload — a plain prefix, not an SSZ
 * container. Decoding is as strict as Go's; every failure is a DecodeError.
 */
import { bytesToHex, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import type { ExecutionPayload } from "../block/payload-hash.js";
import type { ExecutionPayloadEnvelope, ExecutionPayload as EnginePayload } from "../engine-api-types.js";

/** Block topic / payload layout version: 0 = V1 … 3 = V4. */
export type PayloadVersion = 0 | 1 | 2 | 3;

const FIXED = [508, 512, 528, 560] as const;
const MAX_TXS = 1 << 20;
const MAX_WITHDRAWALS = 16;
const WITHDRAWAL_SIZE = 44;
const MAX_EXTRA = 32;

/** The fixed part's size of a payload of this version. */
export function payloadFixedSize(v: PayloadVersion): number {
  return FIXED[v];
}

/** Whether payloads of this version travel as an envelope (parent beacon block root prefix). */
export function isEnvelopeVersion(v: PayloadVersion): boolean {
  return v >= 2;
}

function putU64(view: DataView, at: number, v: bigint | number): void {
  view.setBigUint64(at, BigInt(v), true);
}

function putBytes(out: Uint8Array, at: number, hex: Hex | undefined, size: number, what: string): void {
  if (hex === undefined) return; // left zero
  const b = hexToBytes(hex);
  if (b.length !== size) throw new DecodeError(`ssz payload: ${what} must be ${size} bytes`);
  out.set(b, at);
}

/** SSZ-encodes an execution payload with the layout of `version`. */
export function encodePayloadSsz(p: EnginePayload, version: PayloadVersion): Uint8Array {
  const fixed = FIXED[version];
  const extra = hexToBytes(p.extraData);
  if (extra.length > MAX_EXTRA) throw new DecodeError("ssz payload: extraData longer than 32 bytes");
  const txs = p.transactions.map((t) => hexToBytes(t));
  const txRegion = txs.reduce((n, t) => n + 4 + t.length, 0);
  const withdrawals = version >= 1 ? (p.withdrawals ?? []) : [];
  if (withdrawals.length > 0) throw new DecodeError("ssz payload: OP payloads carry no withdrawals");
  const out = new Uint8Array(fixed + extra.length + txRegion);
  const view = new DataView(out.buffer);
  putBytes(out, 0, p.parentHash, 32, "parentHash");
  putBytes(out, 32, p.feeRecipient, 20, "feeRecipient");
  putBytes(out, 52, p.stateRoot, 32, "stateRoot");
  putBytes(out, 84, p.receiptsRoot, 32, "receiptsRoot");
  putBytes(out, 116, p.logsBloom, 256, "logsBloom");
  putBytes(out, 372, p.prevRandao, 32, "prevRandao");
  putU64(view, 404, p.blockNumber);
  putU64(view, 412, p.gasLimit);
  putU64(view, 420, p.gasUsed ?? 0n);
  putU64(view, 428, p.timestamp);
  view.setUint32(436, fixed, true);
  let fee = p.baseFeePerGas ?? 0n;
  for (let i = 0; i < 32; i++) {
    out[440 + i] = Number(fee & 0xffn);
    fee >>= 8n;
  }
  putBytes(out, 472, p.blockHash, 32, "blockHash");
  const txOffset = fixed + extra.length;
  view.setUint32(504, txOffset, true);
  if (version >= 1) view.setUint32(508, txOffset + txRegion, true);
  if (version >= 2) {
    putU64(view, 512, p.blobGasUsed ?? 0n);
    putU64(view, 520, p.excessBlobGas ?? 0n);
  }
  if (version >= 3) putBytes(out, 528, p.withdrawalsRoot, 32, "withdrawalsRoot");
  out.set(extra, fixed);
  let at = txOffset + 4 * txs.length;
  txs.forEach((t, i) => {
    view.setUint32(txOffset + 4 * i, at - txOffset, true);
    out.set(t, at);
    at += t.length;
  });
  return out;
}

const hex = (b: Uint8Array, from: number, size: number): Hex => bytesToHex(b.subarray(from, from + size));

/** Decodes an SSZ execution payload of `version` (the whole of `b`). */
export function decodePayloadSsz(b: Uint8Array, version: PayloadVersion): ExecutionPayload {
  const fixed = FIXED[version];
  const scope = b.length;
  if (scope < fixed) throw new DecodeError(`ssz payload: ${scope} bytes, below the fixed size ${fixed}`);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const extraOffset = view.getUint32(436, true);
  if (extraOffset !== fixed) throw new DecodeError(`ssz payload: extraData offset ${extraOffset} ≠ ${fixed}`);
  const txOffset = view.getUint32(504, true);
  if (txOffset < extraOffset || txOffset > extraOffset + MAX_EXTRA || txOffset > scope)
    throw new DecodeError(`ssz payload: bad transactions offset ${txOffset}`);
  let wOffset = scope;
  if (version >= 1) {
    wOffset = view.getUint32(508, true);
    if (wOffset < txOffset || wOffset > scope) throw new DecodeError(`ssz payload: bad withdrawals offset ${wOffset}`);
  }
  let fee = 0n;
  for (let i = 31; i >= 0; i--) fee = (fee << 8n) | BigInt(b[440 + i] ?? 0);
  const transactions = decodeTxs(b.subarray(txOffset, wOffset));
  const p: { -readonly [K in keyof ExecutionPayload]: ExecutionPayload[K] } = {
    parentHash: hex(b, 0, 32),
    feeRecipient: hex(b, 32, 20),
    stateRoot: hex(b, 52, 32),
    receiptsRoot: hex(b, 84, 32),
    logsBloom: hex(b, 116, 256),
    prevRandao: hex(b, 372, 32),
    blockNumber: safeNumber(view.getBigUint64(404, true), "blockNumber"),
    gasLimit: view.getBigUint64(412, true),
    gasUsed: view.getBigUint64(420, true),
    timestamp: safeNumber(view.getBigUint64(428, true), "timestamp"),
    extraData: hex(b, extraOffset, txOffset - extraOffset),
    baseFeePerGas: fee,
    blockHash: hex(b, 472, 32),
    transactions,
  };
  if (version >= 1) {
    const wLen = scope - wOffset;
    if (wLen % WITHDRAWAL_SIZE !== 0) throw new DecodeError("ssz payload: withdrawals region not a multiple of 44");
    if (wLen / WITHDRAWAL_SIZE > MAX_WITHDRAWALS) throw new DecodeError("ssz payload: too many withdrawals");
    const ws = [];
    for (let at = wOffset; at < scope; at += WITHDRAWAL_SIZE) {
      ws.push({
        index: view.getBigUint64(at, true),
        validatorIndex: view.getBigUint64(at + 8, true),
        address: hex(b, at + 16, 20),
        amount: view.getBigUint64(at + 36, true),
      });
    }
    p.withdrawals = ws;
  }
  if (version >= 2) {
    p.blobGasUsed = view.getBigUint64(512, true);
    p.excessBlobGas = view.getBigUint64(520, true);
  }
  if (version >= 3) p.withdrawalsRoot = hex(b, 528, 32) as Hash;
  return p;
}

function safeNumber(v: bigint, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError(`ssz payload: ${what} too large`);
  return Number(v);
}

function decodeTxs(r: Uint8Array): Hex[] {
  if (r.length === 0) return [];
  if (r.length < 4) throw new DecodeError("ssz payload: transactions region too short");
  const view = new DataView(r.buffer, r.byteOffset, r.byteLength);
  const first = view.getUint32(0, true);
  if (first === 0 || first % 4 !== 0 || first > r.length) throw new DecodeError("ssz payload: bad first tx offset");
  const n = first / 4;
  if (n > MAX_TXS) throw new DecodeError("ssz payload: too many transactions");
  const out: Hex[] = [];
  for (let i = 0; i < n; i++) {
    const start = view.getUint32(4 * i, true);
    const end = i + 1 < n ? view.getUint32(4 * (i + 1), true) : r.length;
    if (start > end || end > r.length || start < first) throw new DecodeError("ssz payload: bad tx offsets");
    out.push(bytesToHex(r.subarray(start, end)));
  }
  return out;
}

/** The bytes a block signature covers: the payload (V1/V2) or root ‖ payload (V3/V4). */
export function encodeEnvelopeSsz(env: ExecutionPayloadEnvelope, version: PayloadVersion): Uint8Array {
  const payload = encodePayloadSsz(env.executionPayload, version);
  if (!isEnvelopeVersion(version)) return payload;
  if (env.parentBeaconBlockRoot === undefined)
    throw new DecodeError("ssz envelope: V3/V4 payloads need a parent beacon block root");
  const out = new Uint8Array(32 + payload.length);
  out.set(hexToBytes(env.parentBeaconBlockRoot), 0);
  out.set(payload, 32);
  return out;
}

/** A decoded envelope; `parentBeaconBlockRoot` is set exactly for V3/V4. */
export interface DecodedEnvelope {
  readonly executionPayload: ExecutionPayload;
  readonly parentBeaconBlockRoot?: Hash;
}

export function decodeEnvelopeSsz(b: Uint8Array, version: PayloadVersion): DecodedEnvelope {
  if (!isEnvelopeVersion(version)) return { executionPayload: decodePayloadSsz(b, version) };
  if (b.length < 32 + FIXED[version]) throw new DecodeError("ssz envelope: too short");
  return { parentBeaconBlockRoot: hex(b, 0, 32), executionPayload: decodePayloadSsz(b.subarray(32), version) };
}
