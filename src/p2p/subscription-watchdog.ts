/**
 * Subscription watchdog of one chain's host. Every peer of a chain's host (supernode or op-node) subscribes to the
 * chain's block topics, and gossipsub only sends a topic's messages to peers it has seen subscribe. When the
 * subscription exchange is lost (seen under load with js-libp2p gossipsub: the outbound stream that carries it fails
 * or races while opening) the peer stays connected but never gets our blocks, and nothing repairs it: a connected
 * static peer is never redialled. So, every `checkMs`, a peer connected for longer than `graceMs` that we do not see
 * subscribed to any of the chain's block topics has its connections closed (static peers included — they are exactly
 * the case — and stay static, so the peer manager redials them: fresh streams, fresh subscription exchange). At most
 * one reset per peer every `backoffMs`, so a peer that really subscribes to nothing is not redialled in a tight loop.
 * op-node has no such check.
 */
import type { Connection } from "@libp2p/interface";
import type { Logger } from "../core/logger.js";
import type { Clock } from "../core/time/clock.js";
import type { P2PMetrics } from "./metrics.js";
import type { Host } from "./types.js";

export interface SubscriptionWatchdogTiming {
  /** How often connected peers are checked (10 s). */
  readonly subscriptionCheckMs: number;
  /** A connection younger than this is not judged (30 s). */
  readonly subscriptionGraceMs: number;
  /** At most one reset per peer within this time (5 min). */
  readonly subscriptionBackoffMs: number;
}

export class SubscriptionWatchdog {
  /** Peer ID → time of its last reset (entries older than the back-off are dropped). */
  private readonly lastReset = new Map<string, number>();

  constructor(
    private readonly host: Host,
    private readonly topics: readonly string[],
    private readonly timing: SubscriptionWatchdogTiming,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly metrics: P2PMetrics | undefined,
    /** Called after a peer's connections were closed (the peer manager redials a static peer). */
    private readonly onReset: (peer: string) => void,
  ) {}

  /** Peers seen subscribed to at least one of the topics. */
  private subscribed(): Set<string> {
    const ps = this.host.services.pubsub;
    const out = new Set<string>();
    for (const t of this.topics) for (const p of ps.getSubscribers(t)) out.add(p.toString());
    return out;
  }

  /** One check; returns the peers reset. */
  check(): string[] {
    const now = this.clock.nowMs();
    for (const [id, at] of this.lastReset) if (now - at >= this.timing.subscriptionBackoffMs) this.lastReset.delete(id);
    const byPeer = new Map<string, Connection[]>();
    for (const c of this.host.getConnections()) {
      const id = c.remotePeer.toString();
      byPeer.set(id, [...(byPeer.get(id) ?? []), c]);
    }
    if (byPeer.size === 0) return [];
    const subscribed = this.subscribed();
    const reset: string[] = [];
    for (const [id, conns] of byPeer) {
      if (subscribed.has(id) || this.lastReset.has(id)) continue;
      const oldest = Math.min(...conns.map((c) => c.timeline.open));
      if (now - oldest < this.timing.subscriptionGraceMs) continue;
      this.lastReset.set(id, now);
      reset.push(id);
      this.logger.info(
        { peer: id, connectedMs: now - oldest },
        "peer not subscribed to any of the chain's block topics: closing its connections",
      );
      this.metrics?.subscriptionResets.inc();
      void Promise.all(conns.map((c) => c.close().catch(() => undefined))).then(() => this.onReset(id));
    }
    return reset;
  }
}
