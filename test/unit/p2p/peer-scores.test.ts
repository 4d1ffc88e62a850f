import { describe, expect, it } from "vitest";
import { PeerLatency } from "../../../src/p2p/peer-latency.js";
import { GossipScoreSnapshot } from "../../../src/p2p/peer-scores.js";
import type { PubSub } from "../../../src/p2p/types.js";

const topic = (v: number) => `/optimism/901/${v}/blocks`;
const TOPICS = [0, 1, 2, 3].map(topic);

function topicStats(over: Partial<Record<string, number | boolean>> = {}) {
  return {
    inMesh: true,
    graftTime: 0,
    meshTime: 0,
    firstMessageDeliveries: 0,
    meshMessageDeliveries: 0,
    meshMessageDeliveriesActive: false,
    meshFailurePenalty: 0,
    invalidMessageDeliveries: 0,
    ...over,
  };
}

/** A router's score bookkeeping as gossipsub dumps it (`dumpPeerScoreStats`) and its `getScore`. */
function router(stats: Record<string, unknown>, scores: Record<string, number>): PubSub {
  return {
    dumpPeerScoreStats: () => stats,
    getScore: (id: string) => scores[id] ?? 0,
  } as unknown as PubSub;
}

describe("gossip score snapshot (peer information scores.gossip)", () => {
  it("sums the block topics, squares the IP colocation surplus, and keeps the behaviour penalty unweighted", () => {
    const stats: Record<string, unknown> = {};
    // 12 connected peers on 10.0.0.1 (threshold 10 → surplus 2), one of them also on 10.0.0.2 alone
    for (let i = 0; i < 12; i++) {
      stats[`p${i}`] = {
        connected: true,
        expire: 0,
        topics: {},
        knownIPs: new Set(i === 0 ? ["10.0.0.1", "10.0.0.2"] : ["10.0.0.1"]),
        behaviourPenalty: 0,
      };
    }
    // a disconnected peer on the same IP does not count
    stats.gone = { connected: false, expire: 1, topics: {}, knownIPs: new Set(["10.0.0.1"]), behaviourPenalty: 0 };
    stats.p0 = {
      ...(stats.p0 as object),
      behaviourPenalty: 2.5,
      topics: {
        [topic(2)]: topicStats({ meshTime: 4_000, firstMessageDeliveries: 3, meshMessageDeliveries: 5 }),
        [topic(3)]: topicStats({ meshTime: 1_500, firstMessageDeliveries: 1, invalidMessageDeliveries: 2 }),
        "/other/topic": topicStats({ meshTime: 99_000, firstMessageDeliveries: 99 }),
      },
    };
    const snap = GossipScoreSnapshot.take(router(stats, { p0: -42.5 }), TOPICS);
    expect(snap.of("p0")).toEqual({
      total: -42.5,
      blocks: { timeInMesh: 5.5, firstMessageDeliveries: 4, meshMessageDeliveries: 5, invalidMessageDeliveries: 2 },
      IPColocationFactor: 4,
      behavioralPenalty: 2.5,
    });
    expect(snap.of("p5").IPColocationFactor).toBe(4);
  });

  it("a peer the router does not track has only its total; whitelisted IPs do not count", () => {
    const stats = {
      a: { connected: true, expire: 0, topics: {}, knownIPs: new Set(["10.0.0.9"]), behaviourPenalty: 0 },
      b: { connected: true, expire: 0, topics: {}, knownIPs: new Set(["10.0.0.9"]), behaviourPenalty: 0 },
    };
    const snap = GossipScoreSnapshot.take(router(stats, { x: 3 }), TOPICS, 1, new Set(["10.0.0.9"]));
    expect(snap.of("a").IPColocationFactor).toBe(0);
    expect(GossipScoreSnapshot.take(router(stats, {}), TOPICS, 1).of("a").IPColocationFactor).toBe(1);
    expect(snap.of("x")).toEqual({
      total: 3,
      blocks: { timeInMesh: 0, firstMessageDeliveries: 0, meshMessageDeliveries: 0, invalidMessageDeliveries: 0 },
      IPColocationFactor: 0,
      behavioralPenalty: 0,
    });
  });
});

describe("peer latency (EWMA of pings)", () => {
  it("takes the first sample as is, then moves a tenth of the way to each new one; RPC value in nanoseconds", () => {
    const l = new PeerLatency();
    expect(l.ns("p")).toBe(0);
    expect(l.ms("p")).toBeUndefined();
    l.record("p", 10);
    expect(l.ns("p")).toBe(10_000_000);
    l.record("p", 20);
    expect(l.ms("p")).toBeCloseTo(11, 10);
    l.record("p", 0);
    expect(l.ms("p")).toBeCloseTo(9.9, 10);
    expect(l.ns("p")).toBe(9_900_000);
    l.forget("p");
    expect(l.ns("p")).toBe(0);
  });
});
