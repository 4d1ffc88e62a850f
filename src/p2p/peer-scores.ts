/**
 * The `scores.gossip` part of a peer's information, from gossipsub's own score bookkeeping (one dump of every peer's
 * stats per RPC call): `total` is the router's score; `blocks` sums the peer's stats over the chain's block topics
 * (time in mesh in seconds) — all 0 while per-topic scoring is off, as in op-node; `IPColocationFactor` is the
 * unweighted P6 term Σ (peers on the IP − threshold)² over the peer's IPs; `behavioralPenalty` is the unweighted
 * P7 counter.
 */
import type { GossipScores } from "../protocol/p2p/peer-scores.js";
import type { PubSub } from "./types.js";

interface TopicStats {
  inMesh: boolean;
  meshTime: number;
  firstMessageDeliveries: number;
  meshMessageDeliveries: number;
  invalidMessageDeliveries: number;
}
interface PeerStats {
  connected: boolean;
  topics: Record<string, TopicStats>;
  knownIPs: Set<string>;
  behaviourPenalty: number;
}
type Dumpable = { dumpPeerScoreStats?: () => Record<string, PeerStats> };

export const ZERO_GOSSIP_SCORES: GossipScores = {
  total: 0,
  blocks: { timeInMesh: 0, firstMessageDeliveries: 0, meshMessageDeliveries: 0, invalidMessageDeliveries: 0 },
  IPColocationFactor: 0,
  behavioralPenalty: 0,
};

export class GossipScoreSnapshot {
  private readonly peersOnIp = new Map<string, number>();

  private constructor(
    private readonly pubsub: PubSub,
    private readonly stats: Record<string, PeerStats>,
    private readonly topics: readonly string[],
    private readonly ipThreshold: number,
    private readonly ipWhitelist: ReadonlySet<string>,
  ) {
    for (const s of Object.values(stats)) {
      if (!s.connected) continue;
      for (const ip of s.knownIPs) this.peersOnIp.set(ip, (this.peersOnIp.get(ip) ?? 0) + 1);
    }
  }

  static take(
    pubsub: PubSub,
    topics: readonly string[],
    ipThreshold = 10,
    ipWhitelist: ReadonlySet<string> = new Set(),
  ): GossipScoreSnapshot {
    let stats: Record<string, PeerStats> = {};
    try {
      stats = (pubsub as unknown as Dumpable).dumpPeerScoreStats?.() ?? {};
    } catch {
      // scoring off or the router stopped: totals only
    }
    return new GossipScoreSnapshot(pubsub, stats, topics, ipThreshold, ipWhitelist);
  }

  of(id: string): GossipScores {
    let total = 0;
    try {
      total = this.pubsub.getScore(id);
    } catch {
      // unknown peer
    }
    const s = this.stats[id];
    if (s === undefined) return { ...ZERO_GOSSIP_SCORES, total };
    const blocks = { timeInMesh: 0, firstMessageDeliveries: 0, meshMessageDeliveries: 0, invalidMessageDeliveries: 0 };
    for (const t of this.topics) {
      const ts = s.topics[t];
      if (ts === undefined) continue;
      if (ts.inMesh) blocks.timeInMesh += ts.meshTime / 1000;
      blocks.firstMessageDeliveries += ts.firstMessageDeliveries;
      blocks.meshMessageDeliveries += ts.meshMessageDeliveries;
      blocks.invalidMessageDeliveries += ts.invalidMessageDeliveries;
    }
    let colocation = 0;
    for (const ip of s.knownIPs) {
      if (this.ipWhitelist.has(ip)) continue;
      const surplus = (this.peersOnIp.get(ip) ?? 0) - this.ipThreshold;
      if (surplus > 0) colocation += surplus * surplus;
    }
    return { total, blocks, IPColocationFactor: colocation, behavioralPenalty: s.behaviourPenalty };
  }
}
