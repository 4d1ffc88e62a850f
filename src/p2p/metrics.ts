/** Per-chain P2P metrics (`chain_id` label), registered once per registry and shared by restarted hosts. */
import { Counter, Gauge, type Registry } from "prom-client";

export interface P2PMetrics {
  readonly peers: { set(value: number): void };
  readonly gossip: { inc(labels: { topic: string; result: string }): void };
  readonly published: { inc(labels: { result: string }): void };
  readonly signingFailures: { inc(labels: { reason: string }): void };
  readonly reqResp: { inc(labels: { role: string; result: string }): void };
  readonly bans: { inc(): void };
  readonly subscriptionResets: { inc(): void };
  readonly discoveryTable: { set(value: number): void };
  readonly discoveryDropped: { inc(): void };
}

function reuseOr<T>(register: Registry, name: string, make: () => T): T {
  return (register.getSingleMetric(name) as T | undefined) ?? make();
}

export function createP2PMetrics(register: Registry, chainId: bigint): P2PMetrics {
  const chain_id = chainId.toString(10);
  const peers = reuseOr(
    register,
    "supernode_p2p_peers",
    () =>
      new Gauge({
        name: "supernode_p2p_peers",
        help: "Connected P2P peers of each chain's host",
        labelNames: ["chain_id"],
        registers: [register],
      }),
  );
  const gossip = reuseOr(
    register,
    "supernode_p2p_gossip_messages_total",
    () =>
      new Counter({
        name: "supernode_p2p_gossip_messages_total",
        help: "Gossiped block messages validated, by topic version (v1..v4) and result (accept, ignore, reject)",
        labelNames: ["chain_id", "topic", "result"],
        registers: [register],
      }),
  );
  const published = reuseOr(
    register,
    "supernode_p2p_published_blocks_total",
    () =>
      new Counter({
        name: "supernode_p2p_published_blocks_total",
        help: "Blocks a sequencing chain published on its gossip topic, by result (ok, error)",
        labelNames: ["chain_id", "result"],
        registers: [register],
      }),
  );
  const signingFailures = reuseOr(
    register,
    "supernode_p2p_block_signing_failures_total",
    () =>
      new Counter({
        name: "supernode_p2p_block_signing_failures_total",
        help: "Sequenced blocks not gossiped because signing failed, by reason (unavailable: the remote signer is down or timed out; rejected: it refused; bad_response: no 65-byte signature; wrong_signer: the signature does not recover to signer.address; backlog: too many blocks waiting)",
        labelNames: ["chain_id", "reason"],
        registers: [register],
      }),
  );
  const reqResp = reuseOr(
    register,
    "supernode_p2p_reqresp_requests_total",
    () =>
      new Counter({
        name: "supernode_p2p_reqresp_requests_total",
        help: "payload_by_number requests by role (client, server) and result code",
        labelNames: ["chain_id", "role", "result"],
        registers: [register],
      }),
  );
  const bans = reuseOr(
    register,
    "supernode_p2p_peer_bans_total",
    () =>
      new Counter({
        name: "supernode_p2p_peer_bans_total",
        help: "Peers banned for a score below p2p.ban.threshold",
        labelNames: ["chain_id"],
        registers: [register],
      }),
  );
  const resets = reuseOr(
    register,
    "supernode_p2p_subscription_resets_total",
    () =>
      new Counter({
        name: "supernode_p2p_subscription_resets_total",
        help: "Connected peers disconnected by the subscription watchdog because, past the grace period, they were not seen subscribed to any of the chain's block topics (static peers are then redialled)",
        labelNames: ["chain_id"],
        registers: [register],
      }),
  );
  const table = reuseOr(
    register,
    "supernode_p2p_discovery_table_size",
    () =>
      new Gauge({
        name: "supernode_p2p_discovery_table_size",
        help: "Records in each chain's discv5 routing table (0 without discovery)",
        labelNames: ["chain_id"],
        registers: [register],
      }),
  );
  const dropped = reuseOr(
    register,
    "supernode_p2p_discovery_dropped_packets_total",
    () =>
      new Counter({
        name: "supernode_p2p_discovery_dropped_packets_total",
        help: "Inbound discv5 packets dropped by the rate limit (per source IP and overall) before decoding",
        labelNames: ["chain_id"],
        registers: [register],
      }),
  );
  bans.inc({ chain_id }, 0);
  resets.inc({ chain_id }, 0);
  return {
    peers: { set: (v) => peers.set({ chain_id }, v) },
    gossip: { inc: (l) => gossip.inc({ chain_id, ...l }) },
    published: { inc: (l) => published.inc({ chain_id, ...l }) },
    signingFailures: { inc: (l) => signingFailures.inc({ chain_id, ...l }) },
    reqResp: { inc: (l) => reqResp.inc({ chain_id, ...l }) },
    bans: { inc: () => bans.inc({ chain_id }) },
    subscriptionResets: { inc: () => resets.inc({ chain_id }) },
    discoveryTable: { set: (v) => table.set({ chain_id }, v) },
    discoveryDropped: { inc: () => dropped.inc({ chain_id }) },
  };
}
