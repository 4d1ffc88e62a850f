/**
 * Publishing a sequencing chain's blocks (op-node's `SignAndPublishL2Payload`): the SSZ payload is hashed, the
 * hash signed by the chain's `BlockSigner` (the local `p2p.sequencer.key`, or a remote signer, `signer.*`), and
 * snappy(signature ‖ payload) goes out on the topic of the block's fork. Blocks are published one after another in
 * the order they were built; publishing never throws and never holds up the sequencer.
 *
 * A remote signature is checked before use: it must recover to the configured signer address (a signer holding
 * another key would get every block rejected, and our host scored down, by every peer). A failure — signer down
 * (temporary), refusing, answering garbage, or signing with another key (critical: retrying does not help) — means
 * this block is not gossiped; the chain goes on sequencing (its blocks still reach peers through L1). Each failure
 * counts in `supernode_p2p_block_signing_failures_total{reason}`; the log has one line per change of state (the
 * first failure of a kind, and the recovery), not one per block. When the L1 SystemConfig names another
 * unsafe-block signer than the one we sign with, that is logged once per change too (peers will reject the
 * blocks); the block is still published, since the L1 value may be in the middle of a rotation.
 */
import type { Logger } from "../core/logger.js";
import { type Clock, nowSec } from "../core/time/clock.js";
import { severityOf } from "../core/errors/supernode-error.js";
import type { ExecutionPayloadEnvelope } from "../protocol/engine-api-types.js";
import { keccak } from "../protocol/block/keccak.js";
import { blocksTopic, encodeSignedBlockMessage, payloadVersionAt } from "../protocol/p2p/gossip.js";
import { addressOfSecretKey, recoverSigner, signHash, signingHashOfPayloadHash } from "../protocol/p2p/signing.js";
import { encodeEnvelopeSsz } from "../protocol/p2p/ssz-payload.js";
import type { SeenBlocks, SignerView } from "../protocol/p2p/validate.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import type { P2PMetrics } from "./metrics.js";

/** The signing port of the publisher: r ‖ s ‖ v over the block signing hash of (V1 domain, chainId, payloadHash). */
export interface BlockSigner {
  /** The address signatures must recover to (lowercase 0x hex). */
  readonly address: string;
  /** Signatures come from outside the process and are checked before use. */
  readonly remote: boolean;
  sign(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array> | Uint8Array;
  close?(): void;
}

/** `p2p.sequencer.key`: signs in the process. */
export class LocalBlockSigner implements BlockSigner {
  readonly address: string;
  readonly remote = false;
  constructor(private readonly secretKey: Uint8Array) {
    this.address = addressOfSecretKey(secretKey).toLowerCase();
  }
  sign(chainId: bigint, payloadHash: Uint8Array): Uint8Array {
    return signHash(signingHashOfPayloadHash(chainId, payloadHash), this.secretKey);
  }
}

/** Failure reasons (metric label). */
export type SigningFailure = "unavailable" | "rejected" | "bad_response" | "wrong_signer" | "backlog";

/** Blocks waiting for their signature at most; more means the signer is far slower than the block time. */
export const MAX_PENDING = 8;

export interface PublisherDeps {
  readonly chainId: bigint;
  readonly rollup: RollupConfig;
  readonly signer: BlockSigner;
  readonly pubsub: () => { publish(topic: string, data: Uint8Array): Promise<unknown> };
  readonly seen: SeenBlocks;
  /** The unsafe-block signer the chain's L1 SystemConfig names (only compared, for a log line). */
  readonly l1Signer: () => SignerView;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: P2PMetrics | undefined;
}

export class BlockPublisher {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;
  /** "ok" or the last failure reason: the log has one line per change. */
  private state = "ok";
  private l1Mismatch: string | undefined;

  constructor(private readonly d: PublisherDeps) {}

  get signerAddress(): string {
    return this.d.signer.address;
  }

  /** Queues the block; resolves when it was published or given up (never rejects). */
  publish(env: ExecutionPayloadEnvelope): Promise<void> {
    if (this.pending >= MAX_PENDING) {
      this.failed("backlog", new Error(`${MAX_PENDING} blocks already wait for their signature`), env);
      return Promise.resolve();
    }
    this.pending++;
    const done = this.tail.then(() => this.publishOne(env)).finally(() => this.pending--);
    this.tail = done.catch(() => undefined);
    return this.tail;
  }

  private async publishOne(env: ExecutionPayloadEnvelope): Promise<void> {
    const { chainId, rollup, signer } = this.d;
    const p = env.executionPayload;
    const v = payloadVersionAt(rollup, p.timestamp);
    const payload = encodeEnvelopeSsz(env, v);
    const payloadHash = keccak(payload);
    let sig: Uint8Array;
    try {
      sig = await signer.sign(chainId, payloadHash);
    } catch (err) {
      this.failed(reasonOf(err), err, env);
      return;
    }
    if (signer.remote) {
      const who = recoverSigner(signingHashOfPayloadHash(chainId, payloadHash), sig);
      if (who === null || who.toLowerCase() !== signer.address) {
        const got = who === null ? "no address (the signature does not recover)" : who;
        this.failed("wrong_signer", new Error(`the signature recovers to ${got}, not to ${signer.address}`), env);
        return;
      }
    }
    this.signed();
    this.checkL1Signer();
    // go-libp2p-pubsub validates self-published messages; js does not, so note the block as seen ourselves.
    this.d.seen.note(p.blockNumber, p.blockHash);
    try {
      await this.d.pubsub().publish(blocksTopic(chainId, v), encodeSignedBlockMessage(sig, payload));
      this.d.metrics?.published.inc({ result: "ok" });
    } catch (err) {
      this.d.metrics?.published.inc({ result: "error" });
      this.d.logger.warn({ err, number: p.blockNumber }, "publishing a block failed");
    }
  }

  private failed(reason: SigningFailure, err: unknown, env: ExecutionPayloadEnvelope): void {
    this.d.metrics?.signingFailures.inc({ reason });
    if (this.state === reason) return;
    this.state = reason;
    const fields = {
      reason,
      signer: this.d.signer.address,
      number: env.executionPayload.blockNumber,
      err: err instanceof Error ? err.message : String(err),
    };
    const msg = "block signing failed: blocks are not gossiped until it works again (the chain keeps sequencing)";
    // A signer that is down or slow may recover by itself (temporary); a refusal, garbage or another key will not.
    if (reason === "unavailable" || reason === "backlog") this.d.logger.warn(fields, msg);
    else this.d.logger.error(fields, msg);
  }

  private signed(): void {
    if (this.state === "ok") return;
    this.d.logger.info({ after: this.state, signer: this.d.signer.address }, "block signing works again");
    this.state = "ok";
  }

  private checkL1Signer(): void {
    const view = this.d.l1Signer();
    const ours = this.d.signer.address;
    const current = view.current?.toLowerCase();
    const inGrace = view.previous?.toLowerCase() === ours && (view.previousValidUntil ?? 0) >= nowSec(this.d.clock);
    const mismatch = current !== undefined && current !== ours && !inGrace ? current : undefined;
    if (mismatch === this.l1Mismatch) return;
    this.l1Mismatch = mismatch;
    if (mismatch !== undefined)
      this.d.logger.warn(
        { signer: ours, l1UnsafeBlockSigner: mismatch },
        "the chain's L1 SystemConfig names another unsafe-block signer: peers will reject the blocks we publish",
      );
    else this.d.logger.info({ signer: ours }, "our block signer is the chain's unsafe-block signer on L1");
  }
}

function reasonOf(err: unknown): SigningFailure {
  const f = (err as { failure?: unknown })?.failure;
  if (f === "unavailable" || f === "rejected" || f === "bad_response") return f;
  return severityOf(err) === "temporary" ? "unavailable" : "rejected";
}
