/**
 * Block gossip wire format: topics `/optimism/<chainId>/<v>/blocks`, message data
 * `snappy_block(signature[65] ‖ payloadBytes)`, and the gossipsub message ID (topic included, as op-node computes it).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { ExecutionPayloadEnvelope } from "../engine-api-types.js";
import { isForkActive, type RollupConfig } from "../rollup-config.js";
import { MAX_PAYLOAD_SIZE, snappyCompress, snappyDecodedLength, snappyUncompress } from "./snappy.js";
import { blockSigningHash, SIGNATURE_SIZE, signHash } from "./signing.js";
import { encodeEnvelopeSsz, type PayloadVersion } from "./ssz-payload.js";

export const PAYLOAD_VERSIONS: readonly PayloadVersion[] = [0, 1, 2, 3];

/** The block topic of one payload version. */
export function blocksTopic(chainId: bigint, version: PayloadVersion): string {
  return `/optimism/${chainId}/${version}/blocks`;
}

/** All four block topics of a chain, V1 first. */
export function blocksTopics(chainId: bigint): string[] {
  return PAYLOAD_VERSIONS.map((v) => blocksTopic(chainId, v));
}

/** The payload version (topic) of a block with this timestamp: Isthmus → 3, Ecotone → 2, Canyon → 1, else 0. */
export function payloadVersionAt(cfg: RollupConfig, timestamp: number): PayloadVersion {
  if (isForkActive(cfg, "isthmus", timestamp)) return 3;
  if (isForkActive(cfg, "ecotone", timestamp)) return 2;
  if (isForkActive(cfg, "canyon", timestamp)) return 1;
  return 0;
}

/** The topic's payload version, or undefined when `topic` is not one of `chainId`'s block topics. */
export function topicVersion(chainId: bigint, topic: string): PayloadVersion | undefined {
  return PAYLOAD_VERSIONS.find((v) => blocksTopic(chainId, v) === topic);
}

const enc = new TextEncoder();

/**
 * gossipsub message ID: `sha256(domain ‖ u64le(len(topic)) ‖ topic ‖ body)[:20]` — domain `01000000` with the
 * snappy-decoded body when it decodes (≤ 10 MiB), else `00000000` with the raw data.
 */
export function gossipMessageId(topic: string, data: Uint8Array): Uint8Array {
  let domain = 0;
  let body = data;
  try {
    if (snappyDecodedLength(data) <= MAX_PAYLOAD_SIZE) {
      body = snappyUncompress(data);
      domain = 1;
    }
  } catch {
    body = data;
  }
  const t = enc.encode(topic);
  const pre = new Uint8Array(4 + 8 + t.length);
  pre[0] = domain;
  new DataView(pre.buffer).setBigUint64(4, BigInt(t.length), true);
  pre.set(t, 12);
  const h = sha256.create();
  h.update(pre);
  h.update(body);
  return h.digest().subarray(0, 20);
}

/** The signed, uncompressed message body: signature ‖ payloadBytes. */
export function signedBlockBytes(chainId: bigint, payloadBytes: Uint8Array, sk: Uint8Array): Uint8Array {
  const sig = signHash(blockSigningHash(chainId, payloadBytes), sk);
  const out = new Uint8Array(SIGNATURE_SIZE + payloadBytes.length);
  out.set(sig, 0);
  out.set(payloadBytes, SIGNATURE_SIZE);
  return out;
}

/** The gossip message data of a sequencer's block: snappy(sign(ssz(envelope))) on the given version's topic. */
export function encodeBlockMessage(
  chainId: bigint,
  env: ExecutionPayloadEnvelope,
  version: PayloadVersion,
  sk: Uint8Array,
): Uint8Array {
  return snappyCompress(signedBlockBytes(chainId, encodeEnvelopeSsz(env, version), sk));
}

/** The gossip message data of a block signed elsewhere (a remote signer): snappy(signature ‖ payloadBytes). */
export function encodeSignedBlockMessage(signature: Uint8Array, payloadBytes: Uint8Array): Uint8Array {
  if (signature.length !== SIGNATURE_SIZE) throw new DecodeError("gossip: a block signature has 65 bytes");
  const out = new Uint8Array(SIGNATURE_SIZE + payloadBytes.length);
  out.set(signature, 0);
  out.set(payloadBytes, SIGNATURE_SIZE);
  return snappyCompress(out);
}

/** Splits a decompressed message into signature and payload bytes. */
export function splitSignedBlock(data: Uint8Array): { signature: Uint8Array; payload: Uint8Array } {
  if (data.length < SIGNATURE_SIZE + 1) throw new DecodeError("gossip: message too short");
  return { signature: data.subarray(0, SIGNATURE_SIZE), payload: data.subarray(SIGNATURE_SIZE) };
}
