/**
 * `payload_by_number` req-resp (op-node `p2p/sync.go`): the server answers from the chain's execution client with
 * op-node's checks, result codes and rate limits (global 20/s burst 40, per peer 4/s burst 15, 20 s throttle
 * deadline); the client fetches a block from a peer, checks the number and the block hash, and scores the peer.
 * `fillGap` walks a gap down from a trusted block (each result must be the parent of the one above it), which is
 * op-node's quarantine-and-promote rule applied in order.
 */
import type { Connection, PeerId, Stream } from "@libp2p/interface";
import { concatBytes } from "../core/codec/hex.js";
import type { Logger } from "../core/logger.js";
import { type Clock, nowSec } from "../core/time/clock.js";
import type { Hash } from "../core/types/primitives.js";
import { checkPayloadBlockHash } from "../protocol/block/payload-hash.js";
import type { ExecutionPayloadEnvelope } from "../protocol/engine-api-types.js";
import {
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeSuccessResponse,
  payloadByNumberProtocol,
  ResultCode,
} from "../protocol/p2p/req-resp.js";
import { MAX_PAYLOAD_SIZE } from "../protocol/p2p/snappy.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import type { P2PMetrics } from "./metrics.js";
import type { PeerManager } from "./peer-manager.js";
import type { Host } from "./types.js";
import { TokenBucket } from "./token-bucket.js";

export { TokenBucket };

/** Where the server reads blocks (the chain's EL); undefined = not found. */
export type PayloadSource = (n: number) => Promise<ExecutionPayloadEnvelope | undefined>;

async function readAll(stream: Stream, max: number, signal: AbortSignal): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  const onAbort = (): void => stream.abort(new Error("read timeout"));
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const b = chunk instanceof Uint8Array ? chunk : chunk.subarray();
      total += b.length;
      if (total > max) throw new Error(`response larger than ${max} bytes`);
      parts.push(b);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  return concatBytes(...parts);
}

export interface ReqRespDeps {
  readonly host: Host;
  readonly chainId: bigint;
  readonly rollup: RollupConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly peers: PeerManager;
  readonly metrics?: P2PMetrics | undefined;
}

export class PayloadByNumber {
  private readonly global: TokenBucket;
  private readonly perPeer = new Map<string, TokenBucket>();
  readonly protocol: string;

  constructor(private readonly d: ReqRespDeps) {
    this.global = new TokenBucket(20, 40, d.clock);
    this.protocol = payloadByNumberProtocol(d.chainId);
  }

  /** Registers the server handler. */
  async serve(source: PayloadSource): Promise<void> {
    await this.d.host.handle(this.protocol, (stream: Stream, conn: Connection) => {
      this.handle(stream, conn.remotePeer, source).catch((err: unknown) =>
        this.d.logger.debug({ err: String(err) }, "payload_by_number handler failed"),
      );
    });
  }

  private async handle(stream: Stream, peer: PeerId, source: PayloadSource): Promise<void> {
    let code: number = ResultCode.OtherError;
    try {
      const id = peer.toString();
      let bucket = this.perPeer.get(id);
      const fresh = bucket === undefined;
      if (bucket === undefined) {
        bucket = new TokenBucket(4, 15, this.d.clock);
        this.perPeer.set(id, bucket);
        if (this.perPeer.size > 1000) this.perPeer.delete(this.perPeer.keys().next().value as string);
      }
      const wait = Math.max(this.global.reserve(), fresh ? 0 : bucket.reserve());
      if (wait > 20_000) throw new Error("throttled");
      if (wait > 0) await this.d.clock.sleep(wait);
      const req = await readAll(stream, 8, AbortSignal.timeout(10_000));
      const n = decodeRequest(req);
      const g = this.d.rollup.genesis;
      const target = g.l2.number + Math.floor((nowSec(this.d.clock) - g.l2_time) / this.d.rollup.block_time);
      if (n < g.l2.number || n > target) {
        code = ResultCode.InvalidRequest;
        stream.send(Uint8Array.of(code));
      } else {
        const env = await source(n);
        if (env === undefined) {
          code = ResultCode.NotFound;
          stream.send(Uint8Array.of(code));
        } else {
          code = ResultCode.Success;
          stream.send(encodeSuccessResponse(this.d.rollup, env));
        }
      }
    } catch (err) {
      this.d.logger.debug({ err: String(err) }, "payload_by_number request failed");
      // The peer may have closed or reset the stream meanwhile: nothing more to tell it then.
      if (code === ResultCode.OtherError && stream.writeStatus === "writable") {
        try {
          stream.send(Uint8Array.of(code));
        } catch {
          /* closed under us */
        }
      }
    } finally {
      this.d.metrics?.reqResp.inc({ role: "server", result: String(code) });
      await stream.close().catch(() => undefined);
    }
  }

  /** Requests block `n` from `peer`; the envelope, or an error (counted against the peer). */
  async request(peer: PeerId, n: number): Promise<ExecutionPayloadEnvelope> {
    const id = peer.toString();
    let result = "5";
    try {
      const stream = await this.d.host.dialProtocol(peer, this.protocol, { signal: AbortSignal.timeout(5_000) });
      stream.send(encodeRequest(n));
      await stream.close();
      const body = await readAll(stream, MAX_PAYLOAD_SIZE + 5 + 1024, AbortSignal.timeout(10_000));
      const res = decodeResponse(this.d.rollup, n, body);
      result = String(res.code);
      if (res.envelope === undefined) {
        if (res.code !== ResultCode.NotFound) this.d.peers.noteReqResp(id, "error");
        throw new Error(`peer answered result code ${res.code}`);
      }
      if (!checkPayloadBlockHash(res.envelope.executionPayload, res.envelope.parentBeaconBlockRoot)) {
        result = "5";
        this.d.peers.noteReqResp(id, "error");
        throw new Error("payload has a bad block hash");
      }
      this.d.peers.noteReqResp(id, "valid");
      return res.envelope;
    } catch (err) {
      if (result === "5") this.d.peers.noteReqResp(id, "error");
      throw err;
    } finally {
      this.d.metrics?.reqResp.inc({ role: "client", result });
    }
  }

  /**
   * Fills the blocks strictly between `start` and `end` (`end` is trusted: `endParent` is its parent hash), newest
   * first, asking the connected peers in turn; each result must hash to the parent hash expected from above. Every
   * verified block goes to `deliver`. Returns how many blocks were filled.
   */
  async fillGap(
    start: number,
    end: number,
    endParent: Hash,
    deliver: (env: ExecutionPayloadEnvelope) => void,
    onlyPeers?: (id: string) => boolean,
  ): Promise<number> {
    let expected = endParent.toLowerCase();
    let filled = 0;
    for (let n = end - 1; n > start; n--) {
      const peers = [
        ...new Map(this.d.host.getConnections().map((c) => [c.remotePeer.toString(), c.remotePeer])).values(),
      ].filter((p) => onlyPeers === undefined || onlyPeers(p.toString()));
      let got: ExecutionPayloadEnvelope | undefined;
      for (const p of peers) {
        try {
          const env = await this.request(p, n);
          if (env.executionPayload.blockHash.toLowerCase() !== expected) {
            this.d.peers.noteReqResp(p.toString(), "rejected");
            continue;
          }
          got = env;
          break;
        } catch (err) {
          this.d.logger.debug({ n, peer: p.toString(), err: String(err) }, "payload_by_number failed");
        }
      }
      if (got === undefined) break;
      deliver(got);
      filled++;
      expected = got.executionPayload.parentHash.toLowerCase();
    }
    return filled;
  }
}
