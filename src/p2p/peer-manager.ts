/**
 * Peer management of one host: the protect list, static peers (protected, redialled every minute and shortly after
 * they disconnect), low/high-water trimming that spares protected peers and peers inside the grace period, the score
 * monitor that bans one peer per second whose score is below `p2p.ban.threshold` (static peers exempt), and the
 * subscription watchdog (src/p2p/subscription-watchdog.ts) that resets peers not subscribed to the chain's topics.
 */
import type { Connection } from "@libp2p/interface";
import { multiaddr } from "@multiformats/multiaddr";
import type { P2pConfig } from "../config/types.js";
import type { Logger } from "../core/logger.js";
import type { Clock } from "../core/time/clock.js";
import type { GaterState } from "./gater.js";
import type { Host } from "./types.js";
import type { P2PMetrics } from "./metrics.js";
import { PeerLatency, PING_ROUND_MS, PingService } from "./peer-latency.js";
import { SubscriptionWatchdog, type SubscriptionWatchdogTiming } from "./subscription-watchdog.js";

/** op-node's intervals; tests shorten them. */
export interface PeerTiming extends SubscriptionWatchdogTiming {
  /** Redial static peers that are not connected (1 min). */
  readonly staticRedialMs: number;
  /** A static peer that disconnected is redialled after this delay (2 s; not op-node's: it waits for the minute). */
  readonly staticReconnectMs: number;
  /** Check the high water mark (1 min; also on every new connection). */
  readonly trimIntervalMs: number;
  /** Look at one peer's score for a ban (1 s). */
  readonly monitorIntervalMs: number;
  /** Ping every connected peer (3 min; new peers are pinged when they connect). */
  readonly pingRoundMs: number;
}

export const PEER_TIMING: PeerTiming = {
  staticRedialMs: 60_000,
  trimIntervalMs: 60_000,
  monitorIntervalMs: 1_000,
  pingRoundMs: PING_ROUND_MS,
  staticReconnectMs: 2_000,
  subscriptionCheckMs: 10_000,
  subscriptionGraceMs: 30_000,
  subscriptionBackoffMs: 5 * 60_000,
};

export class PeerManager {
  private readonly protectedPeers = new Set<string>();
  private readonly staticPeers = new Map<string, string[]>();
  private readonly timers: NodeJS.Timeout[] = [];
  /** Prompt redials of static peers that disconnected, by peer ID. */
  private readonly reconnects = new Map<string, NodeJS.Timeout>();
  private running = false;
  private monitorQueue: string[] = [];
  /** Req-resp application score counters per peer (valid, error, rejected). */
  private readonly app = new Map<string, { valid: number; error: number; rejected: number }>();
  readonly latency = new PeerLatency();
  private readonly pinger: PingService | undefined;
  private readonly timing: PeerTiming;

  constructor(
    private readonly host: Host,
    private readonly gater: GaterState,
    private readonly cfg: P2pConfig,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly metrics: P2PMetrics | undefined,
    timing: Partial<PeerTiming> = {},
    /** The chain's block topics; with them the subscription watchdog runs. */
    private readonly topics: readonly string[] = [],
  ) {
    this.timing = { ...PEER_TIMING, ...timing };
    this.pinger = cfg.ping ? new PingService(host, this.latency, clock, logger, this.timing.pingRoundMs) : undefined;
    for (const addr of cfg.static) {
      const m = /\/p2p\/([^/]+)$/.exec(addr.trim());
      if (m?.[1] === undefined) continue;
      const list = this.staticPeers.get(m[1]) ?? [];
      list.push(addr.trim());
      this.staticPeers.set(m[1], list);
    }
  }

  start(): void {
    this.running = true;
    const self = this.host.peerId.toString();
    this.staticPeers.delete(self);
    const count = (): void => this.metrics?.peers.set(this.host.getConnections().length);
    this.host.addEventListener("connection:open", () => {
      count();
      if (this.host.getConnections().length > this.cfg.peersHi) this.trim();
    });
    this.host.addEventListener("connection:close", (e) => {
      count();
      this.reconnectSoon(e.detail.remotePeer.toString());
    });
    this.dialStatics();
    this.every(this.timing.staticRedialMs, () => this.dialStatics());
    if (this.topics.length > 0) {
      const wd = new SubscriptionWatchdog(
        this.host,
        this.topics,
        this.timing,
        this.clock,
        this.logger,
        this.metrics,
        (id) => this.reconnectSoon(id),
      );
      this.every(this.timing.subscriptionCheckMs, () => wd.check());
    }
    this.every(this.timing.trimIntervalMs, () => this.trim());
    if (this.cfg.banPeers) this.every(this.timing.monitorIntervalMs, () => void this.monitorOne());
    this.pinger?.start();
  }

  stop(): void {
    this.pinger?.stop();
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    for (const t of this.reconnects.values()) clearTimeout(t);
    this.reconnects.clear();
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }

  isStatic(id: string): boolean {
    return this.staticPeers.has(id);
  }

  isProtected(id: string): boolean {
    return this.protectedPeers.has(id) || this.staticPeers.has(id);
  }

  protect(id: string): void {
    this.protectedPeers.add(id);
  }

  unprotect(id: string): void {
    this.protectedPeers.delete(id);
  }

  /** A static peer with no connection left is redialled after `staticReconnectMs` (one pending redial per peer). */
  private reconnectSoon(id: string): void {
    if (!this.staticPeers.has(id) || this.reconnects.has(id) || !this.running) return;
    const t = setTimeout(() => {
      this.reconnects.delete(id);
      this.dialStatic(id);
    }, this.timing.staticReconnectMs);
    t.unref();
    this.reconnects.set(id, t);
  }

  private dialStatics(): void {
    for (const id of this.staticPeers.keys()) this.dialStatic(id);
  }

  private dialStatic(id: string): void {
    if (this.host.getConnections().some((c) => c.remotePeer.toString() === id)) return;
    const addr = this.staticPeers.get(id)?.[0];
    if (addr === undefined) return;
    this.host.dial(multiaddr(addr), { signal: AbortSignal.timeout(30_000) }).catch((err: unknown) => {
      this.logger.debug({ err, peer: id }, "static peer dial failed");
    });
  }

  /** Above high water: close the lowest-scored unprotected peers past their grace period, down to low water. */
  trim(): void {
    const conns = this.host.getConnections();
    const byPeer = new Map<string, Connection[]>();
    for (const c of conns) {
      const id = c.remotePeer.toString();
      byPeer.set(id, [...(byPeer.get(id) ?? []), c]);
    }
    if (byPeer.size <= this.cfg.peersHi) return;
    const now = this.clock.nowMs();
    const candidates = [...byPeer.entries()]
      .filter(([id, cs]) => !this.isProtected(id) && cs.every((c) => now - c.timeline.open > this.cfg.peersGraceMs))
      .map(([id]) => ({ id, score: this.score(id) }))
      .sort((a, b) => a.score - b.score);
    let excess = byPeer.size - this.cfg.peersLo;
    for (const { id } of candidates) {
      if (excess <= 0) break;
      excess--;
      for (const c of byPeer.get(id) ?? []) void c.close().catch(() => undefined);
    }
  }

  /** The peer's gossipsub score (0 when unknown or scoring is off). */
  score(id: string): number {
    try {
      return this.host.services.pubsub.getScore(id);
    } catch {
      return 0;
    }
  }

  private async monitorOne(): Promise<void> {
    if (this.monitorQueue.length === 0)
      this.monitorQueue = [...new Set(this.host.getConnections().map((c) => c.remotePeer.toString()))];
    const id = this.monitorQueue.shift();
    if (id === undefined || this.isStatic(id)) return;
    if (this.score(id) >= this.cfg.banThreshold) return;
    await this.ban(id, this.clock.nowMs() + this.cfg.banDurationMs);
  }

  /** Bans a peer (score monitor) and closes its connections. */
  async ban(id: string, untilMs: number): Promise<void> {
    this.logger.info({ peer: id, score: this.score(id) }, "banning peer for a low score");
    this.metrics?.bans.inc();
    await this.gater.banPeer(id, untilMs);
    await Promise.all(
      this.host
        .getConnections()
        .filter((c) => c.remotePeer.toString() === id)
        .map((c) => c.close().catch(() => undefined)),
    );
  }

  /** op-node's application (req-resp) score: 0.5·valid − 1·error − 20·rejected. */
  appScore(id: string): number {
    const a = this.app.get(id);
    return a === undefined ? 0 : 0.5 * a.valid - a.error - 20 * a.rejected;
  }

  appCounters(id: string): { validResponses: number; errorResponses: number; rejectedPayloads: number } {
    const a = this.app.get(id);
    return { validResponses: a?.valid ?? 0, errorResponses: a?.error ?? 0, rejectedPayloads: a?.rejected ?? 0 };
  }

  /** Counts a req-resp outcome (caps 10 / 9 / 20 as op-node). */
  noteReqResp(id: string, kind: "valid" | "error" | "rejected"): void {
    const a = this.app.get(id) ?? { valid: 0, error: 0, rejected: 0 };
    if (kind === "valid") a.valid = Math.min(10, a.valid + 1);
    if (kind === "error") a.error = Math.min(9, a.error + 1);
    if (kind === "rejected") a.rejected = Math.min(20, a.rejected + 1);
    this.app.set(id, a);
  }
}
