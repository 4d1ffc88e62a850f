/**
 * `payload_by_number` req-resp frames (op-node `p2p/sync.go`): the protocol ID (no trailing slash), the 8-byte
 * little-endian request, the response's result byte, and on success a u32 LE version then the snappy-framed SSZ
 * payload (version 0 = bare payload V1/V2, 1 = envelope V3/V4; the V2/V4 variant follows the number's fork).
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { ExecutionPayloadEnvelope } from "../engine-api-types.js";
import { isForkActive, type RollupConfig } from "../rollup-config.js";
import { snappyFrameDecode, snappyFrameEncode } from "./snappy.js";
import { type DecodedEnvelope, decodeEnvelopeSsz, encodeEnvelopeSsz, type PayloadVersion } from "./ssz-payload.js";

/** Response result codes (≥ 128 reserved). */
export const ResultCode = { Success: 0, NotFound: 1, InvalidRequest: 2, OtherError: 3 } as const;

export function payloadByNumberProtocol(chainId: bigint): string {
  return `/opstack/req/payload_by_number/${chainId}/0`;
}

export function encodeRequest(n: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n), true);
  return out;
}

export function decodeRequest(b: Uint8Array): number {
  if (b.length !== 8) throw new DecodeError(`payload_by_number: request of ${b.length} bytes, want 8`);
  const v = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError("payload_by_number: number too large");
  return Number(v);
}

/** The L2 timestamp of block `n` per the rollup config (genesis time + blocks × block time). */
export function l2TimestampOf(cfg: RollupConfig, n: number): number {
  return cfg.genesis.l2_time + (n - cfg.genesis.l2.number) * cfg.block_time;
}

/** The SSZ layout of block `n`. */
export function layoutForNumber(cfg: RollupConfig, n: number): PayloadVersion {
  const t = l2TimestampOf(cfg, n);
  if (isForkActive(cfg, "isthmus", t)) return 3;
  if (isForkActive(cfg, "ecotone", t)) return 2;
  if (isForkActive(cfg, "canyon", t)) return 1;
  return 0;
}

/** Server: a success response for `env`, which is block `n`. */
export function encodeSuccessResponse(cfg: RollupConfig, env: ExecutionPayloadEnvelope): Uint8Array {
  const t = env.executionPayload.timestamp;
  const layout: PayloadVersion = isForkActive(cfg, "isthmus", t)
    ? 3
    : isForkActive(cfg, "ecotone", t)
      ? 2
      : isForkActive(cfg, "canyon", t)
        ? 1
        : 0;
  const body = snappyFrameEncode(encodeEnvelopeSsz(env, layout));
  const out = new Uint8Array(5 + body.length);
  out[0] = ResultCode.Success;
  new DataView(out.buffer).setUint32(1, layout >= 2 ? 1 : 0, true);
  out.set(body, 5);
  return out;
}

export type PayloadByNumberResponse =
  | { readonly code: 0; readonly envelope: DecodedEnvelope }
  | { readonly code: number; readonly envelope?: undefined };

/** Client: decodes a whole response for requested number `n`. */
export function decodeResponse(cfg: RollupConfig, n: number, b: Uint8Array): PayloadByNumberResponse {
  if (b.length < 1) throw new DecodeError("payload_by_number: empty response");
  const code = b[0] as number;
  if (code !== ResultCode.Success) return { code };
  if (b.length < 5) throw new DecodeError("payload_by_number: truncated version");
  const version = new DataView(b.buffer, b.byteOffset + 1, 4).getUint32(0, true);
  const layout = layoutForNumber(cfg, n);
  let v: PayloadVersion;
  if (version === 0) v = layout >= 1 ? 1 : 0;
  else if (version === 1) v = layout === 3 ? 3 : 2;
  else throw new DecodeError(`payload_by_number: unrecognized version ${version}`);
  const envelope = decodeEnvelopeSsz(snappyFrameDecode(b.subarray(5)), v);
  if (envelope.executionPayload.blockNumber !== n)
    throw new DecodeError(`payload_by_number: got block ${envelope.executionPayload.blockNumber}, asked ${n}`);
  return { code: ResultCode.Success, envelope };
}
