/**
 * Peer latency from pings: an exponentially weighted moving average per peer (α = 0.1; the first sample sets it),
 * as go-libp2p's peerstore keeps it and op-node shows it in `latency` (nanoseconds). The ping service pings a peer
 * soon after it connects and every peer once per round (op-node: 3 min), at most 1 ping per second with a burst of
 * 10; a failed ping only logs.
 */
import type { PeerId } from "@libp2p/interface";
import type { Logger } from "../core/logger.js";
import type { Clock } from "../core/time/clock.js";
import { TokenBucket } from "./token-bucket.js";

const ALPHA = 0.1;
export const PING_ROUND_MS = 3 * 60_000;
const PING_TIMEOUT_MS = 10_000;

export class PeerLatency {
  private readonly ewma = new Map<string, number>();

  record(id: string, ms: number): void {
    const prev = this.ewma.get(id);
    this.ewma.set(id, prev === undefined ? ms : (1 - ALPHA) * prev + ALPHA * ms);
  }

  /** The average in milliseconds, undefined before the first sample. */
  ms(id: string): number | undefined {
    return this.ewma.get(id);
  }

  /** The average as whole nanoseconds (the RPC's `latency`), 0 before the first sample. */
  ns(id: string): number {
    return Math.round((this.ewma.get(id) ?? 0) * 1e6);
  }

  forget(id: string): void {
    this.ewma.delete(id);
  }
}

/** What the ping service needs from the host. */
export interface PingHost {
  readonly peerId: PeerId;
  getConnections(): ReadonlyArray<{ readonly remotePeer: PeerId }>;
  addEventListener(type: "peer:connect", fn: (e: CustomEvent<PeerId>) => void): void;
  removeEventListener(type: "peer:connect", fn: (e: CustomEvent<PeerId>) => void): void;
  readonly services: { readonly ping: { ping(peer: PeerId, opts: { signal: AbortSignal }): Promise<number> } };
}

export class PingService {
  private readonly queue = new Map<string, PeerId>();
  private readonly bucket: TokenBucket;
  private timer: NodeJS.Timeout | undefined;
  private draining = false;
  private stopped = true;
  private readonly onConnect = (e: CustomEvent<PeerId>): void => this.enqueue(e.detail);

  constructor(
    private readonly host: PingHost,
    readonly latency: PeerLatency,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly roundMs = PING_ROUND_MS,
  ) {
    this.bucket = new TokenBucket(1, 10, clock);
  }

  start(): void {
    this.stopped = false;
    this.host.addEventListener("peer:connect", this.onConnect);
    this.timer = setInterval(() => {
      for (const c of this.host.getConnections()) this.enqueue(c.remotePeer);
    }, this.roundMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.host.removeEventListener("peer:connect", this.onConnect);
    if (this.timer !== undefined) clearInterval(this.timer);
    this.queue.clear();
  }

  private enqueue(id: PeerId): void {
    if (this.stopped) return;
    this.queue.set(id.toString(), id);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (!this.stopped) {
        const next = this.queue.entries().next();
        if (next.done === true) return;
        const [key, id] = next.value;
        this.queue.delete(key);
        const wait = this.bucket.reserve();
        if (wait > 0) await this.clock.sleep(wait);
        if (this.stopped) return;
        try {
          const ms = await this.host.services.ping.ping(id, { signal: AbortSignal.timeout(PING_TIMEOUT_MS) });
          this.latency.record(key, ms);
        } catch (err) {
          this.logger.debug({ peer: key, err: String(err) }, "ping failed");
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
