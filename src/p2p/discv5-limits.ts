/**
 * Inbound packet limits of a chain's discv5 socket (ADR 0076). `@chainsafe/discv5` 11 has a limiter (GCRA token
 * buckets, one per source IP and one overall, checked before a packet is decoded; answers to our own requests pass)
 * that is off unless `rateLimiterOpts` is given. Two gaps are closed here, on the limiter instance the transport
 * holds: an IP that once exceeded its quota is banned for the life of the process (the ban map is never cleared), and
 * the per-IP buckets are never pruned (spoofed sources would grow them without bound). `sweep` lifts bans older than
 * `banMs` and drops buckets that are full again; the limiter's verdicts are counted for the drop metric.
 */
import type { UDPTransportService } from "@chainsafe/discv5";

export interface InboundLimits {
  /** Packets one source IP may send per `windowMs` (also its burst). */
  readonly perIp: number;
  /** Packets all sources together may send per `windowMs`. */
  readonly total: number;
  readonly windowMs: number;
  /** How long a source that exceeded its quota stays dropped. */
  readonly banMs: number;
  /** How often bans are lifted and idle buckets pruned. */
  readonly sweepMs: number;
}

/**
 * 20 packets/s per IP with bursts of 200, 200/s overall with bursts of 2,000, a 5-minute ban. A peer's lookups cost
 * it a few packets per second at most; 15 peers behind one address (a loopback devnet) stay well below.
 */
export const INBOUND_LIMITS: InboundLimits = {
  perIp: 200,
  total: 2_000,
  windowMs: 10_000,
  banMs: 5 * 60_000,
  sweepMs: 30_000,
};

/** The shape of the library's limiter (not exported by the package). */
interface LibraryLimiter {
  allowEncodedPacket(ip: string): boolean;
  bannedIPs: Map<string, number>;
  rateLimiterIP: { startTimeMs: number; prune(msSinceStart: number): void };
  rateLimiterGlobal: { startTimeMs: number; prune(msSinceStart: number): void };
}

export class InboundLimiter {
  private readonly lib: LibraryLimiter;
  private droppedCount = 0;

  constructor(
    transport: UDPTransportService,
    private readonly banMs: number,
    events: { dropped(): void; banned(ip: string): void },
  ) {
    const lib = (transport as unknown as { rateLimiter?: LibraryLimiter }).rateLimiter;
    if (lib === undefined) throw new Error("discv5 transport has no rate limiter");
    this.lib = lib;
    const allow = lib.allowEncodedPacket.bind(lib);
    lib.allowEncodedPacket = (ip: string): boolean => {
      const wasBanned = lib.bannedIPs.has(ip);
      if (allow(ip)) return true;
      this.droppedCount++;
      events.dropped();
      if (!wasBanned && lib.bannedIPs.has(ip)) events.banned(ip);
      return false;
    };
  }

  /** Packets dropped so far. */
  get dropped(): number {
    return this.droppedCount;
  }

  banned(ip: string): boolean {
    return this.lib.bannedIPs.has(ip);
  }

  /** Lifts bans older than `banMs` and forgets buckets that are full again. */
  sweep(now = Date.now()): void {
    for (const [ip, since] of this.lib.bannedIPs) if (now - since >= this.banMs) this.lib.bannedIPs.delete(ip);
    for (const r of [this.lib.rateLimiterIP, this.lib.rateLimiterGlobal]) r.prune(now - r.startTimeMs);
  }
}
