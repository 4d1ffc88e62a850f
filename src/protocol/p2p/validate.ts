/**
 * Gossip block validation in op-node's order (`p2p/gossip.go` BuildBlocksValidator): size and snappy, signature
 * (before decoding), decode with the topic's version, time window, block-hash recomputation, per-version field
 * rules, then equivocation / duplicate limits. Pure: the caller supplies the clock reading and the signer view, and
 * owns the {@link SeenBlocks} state. Results feed gossipsub (accept / ignore / reject) and the peer score.
 */
import type { Address, Hash } from "../../core/types/primitives.js";
import { checkPayloadBlockHash } from "../block/payload-hash.js";
import { isForkActive, type RollupConfig } from "../rollup-config.js";
import { splitSignedBlock } from "./gossip.js";
import { MAX_PAYLOAD_SIZE, snappyDecodedLength, snappyUncompress } from "./snappy.js";
import { blockSigningHash, recoverSigner, SIGNATURE_SIZE } from "./signing.js";
import { type DecodedEnvelope, decodeEnvelopeSsz, type PayloadVersion } from "./ssz-payload.js";

export type GossipVerdict = "accept" | "ignore" | "reject";

export interface ValidationResult {
  readonly verdict: GossipVerdict;
  /** Short machine-friendly reason (metrics label material), e.g. `bad-signature`. */
  readonly reason: string;
  /** The decoded envelope when decoding got that far. */
  readonly envelope?: DecodedEnvelope;
}

/**
 * The unsafe-block signer as read from the L1 SystemConfig. After a rotation the previous signer stays valid until
 * `previousValidUntil` (unix seconds), so blocks signed just before the change still propagate.
 */
export interface SignerView {
  readonly current: Address | undefined;
  readonly previous?: Address | undefined;
  readonly previousValidUntil?: number | undefined;
}

export interface GossipValidationContext {
  readonly chainId: bigint;
  readonly rollup: RollupConfig;
  /** Wall-clock unix seconds, floored. */
  readonly nowSec: number;
  /** Max age of a gossiped payload in seconds (`p2p.gossip.timestamp.threshold`, default 60). */
  readonly maxAgeSec: number;
  readonly signer: SignerView;
  readonly seen: SeenBlocks;
}

const ZERO_ADDRESS = `0x${"00".repeat(20)}`;
/** Payloads may be at most this far in the future (seconds). */
export const MAX_FUTURE_SEC = 5;
/** After this many distinct blocks at one height, everything at that height is rejected. */
export const MAX_BLOCKS_PER_HEIGHT = 5;

const r = (verdict: GossipVerdict, reason: string, envelope?: DecodedEnvelope): ValidationResult =>
  envelope === undefined ? { verdict, reason } : { verdict, reason, envelope };

/** Validates one gossip message's raw (compressed) data received on the topic of `version`. */
export function validateBlockMessage(
  ctx: GossipValidationContext,
  version: PayloadVersion,
  data: Uint8Array,
): ValidationResult {
  // 1–2. size and snappy
  let len: number;
  try {
    len = snappyDecodedLength(data);
  } catch {
    return r("reject", "bad-snappy-length");
  }
  if (len > MAX_PAYLOAD_SIZE) return r("reject", "too-large");
  if (len < SIGNATURE_SIZE + 1) return r("reject", "too-small");
  let raw: Uint8Array;
  try {
    raw = snappyUncompress(data);
  } catch {
    return r("reject", "bad-snappy");
  }
  const { signature, payload } = splitSignedBlock(raw);
  // 4. signature against the configured signer
  const sigCheck = checkSignature(ctx, signature, payload);
  if (sigCheck !== undefined) return sigCheck;
  // 5. decode with the topic's version
  let env: DecodedEnvelope;
  try {
    env = decodeEnvelopeSsz(payload, version);
  } catch {
    return r("reject", "invalid-payload");
  }
  return validateDecoded(ctx, version, env);
}

function checkSignature(
  ctx: GossipValidationContext,
  signature: Uint8Array,
  payload: Uint8Array,
): ValidationResult | undefined {
  const { current, previous, previousValidUntil } = ctx.signer;
  if (current === undefined || current.toLowerCase() === ZERO_ADDRESS) return r("ignore", "no-signer");
  const who = recoverSigner(blockSigningHash(ctx.chainId, payload), signature);
  if (who === null) return r("reject", "bad-signature");
  if (who === current.toLowerCase()) return undefined;
  if (
    previous !== undefined &&
    who === previous.toLowerCase() &&
    previousValidUntil !== undefined &&
    ctx.nowSec <= previousValidUntil
  )
    return undefined;
  return r("reject", "wrong-signer");
}

/** Steps 6–10 on an already-decoded envelope (also used for req-resp results and self-published blocks). */
export function validateDecoded(
  ctx: GossipValidationContext,
  version: PayloadVersion,
  env: DecodedEnvelope,
): ValidationResult {
  const p = env.executionPayload;
  if (p.timestamp < ctx.nowSec - ctx.maxAgeSec) return r("reject", "too-old", env);
  if (p.timestamp > ctx.nowSec + MAX_FUTURE_SEC) return r("reject", "too-new", env);
  if (!checkPayloadBlockHash(p, env.parentBeaconBlockRoot)) return r("reject", "bad-block-hash", env);
  const fieldErr = versionFieldError(ctx.rollup, version, env);
  if (fieldErr !== undefined) return r("reject", fieldErr, env);
  const seen = ctx.seen.note(p.blockNumber, p.blockHash);
  if (seen === "equivocation") return r("reject", "too-many-blocks-at-height", env);
  if (seen === "duplicate") return r("ignore", "duplicate", env);
  return r("accept", "ok", env);
}

/** op-node's per-version field rules; the reason, or undefined when they hold. */
export function versionFieldError(
  cfg: RollupConfig,
  version: PayloadVersion,
  env: DecodedEnvelope,
): string | undefined {
  const p = env.executionPayload;
  if (version === 0 && p.withdrawals !== undefined) return "v1-with-withdrawals";
  if (version >= 1 && (p.withdrawals === undefined || p.withdrawals.length > 0)) return "withdrawals-not-empty";
  if (version < 2 && (p.blobGasUsed !== undefined || p.excessBlobGas !== undefined)) return "pre-v3-blob-gas";
  if (version >= 2) {
    if (p.blobGasUsed === undefined) return "missing-blob-gas-used";
    if (p.blobGasUsed !== 0n && !isForkActive(cfg, "jovian", p.timestamp)) return "non-zero-blob-gas-used";
    if (p.excessBlobGas === undefined || p.excessBlobGas !== 0n) return "non-zero-excess-blob-gas";
    if (env.parentBeaconBlockRoot === undefined) return "missing-parent-beacon-root";
  }
  if (version === 3 && p.withdrawalsRoot === undefined) return "missing-withdrawals-root";
  return undefined;
}

/** The block hashes seen per height (LRU of 1000 heights), for op-node's equivocation and duplicate checks. */
export class SeenBlocks {
  private readonly byHeight = new Map<number, Hash[]>();
  constructor(private readonly capacity = 1000) {}

  /** Records the block; `equivocation` when the height already holds more than 5 blocks. */
  note(height: number, hash: Hash): "new" | "duplicate" | "equivocation" {
    const h = hash.toLowerCase() as Hash;
    const list = this.byHeight.get(height);
    if (list !== undefined) {
      this.byHeight.delete(height);
      this.byHeight.set(height, list); // LRU touch
      if (list.length > MAX_BLOCKS_PER_HEIGHT) return "equivocation";
      if (list.includes(h)) return "duplicate";
      list.push(h);
      return "new";
    }
    this.byHeight.set(height, [h]);
    if (this.byHeight.size > this.capacity) {
      const oldest = this.byHeight.keys().next().value;
      if (oldest !== undefined) this.byHeight.delete(oldest);
    }
    return "new";
  }
}
