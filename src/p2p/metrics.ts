/** Per-chain P2P metrics (`chain_id` label), registered once per registry and shared by restarted hosts. */
import type { Registry } from "prom-client";
import { registeredCounter, registeredGauge } from "../io/common/registered-metrics.js";

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

export function createP2PMetrics(register: Registry, chainId: bigint): P2PMetrics {
  const chain_id = chainId.toString(10);
  const peers = registeredGauge(register, "supernode_p2p_peers", "Connected P2P peers of each chain's host", [
    "chain_id",
  ]);
  const gossip = registeredCounter(
    register,
    "supernode_p2p_gossip_messages_total",
    "Gossiped block messages validated, by topic version (v1..v4) and result (accept, ignore, reject)",
    ["chain_id", "topic", "result"],
  );
  const published = registeredCounter(
    register,
    "supernode_p2p_published_blocks_total",
    "Blocks a sequencing chain published on its gossip topic, by result (ok, error)",
    ["chain_id", "result"],
  );
  const signingFailures = registeredCounter(
    register,
    "supernode_p2p_block_signing_failures_total",
    "Sequenced blocks not gossiped because signing failed, by reason (unavailable: the remote signer is down or timed out; rejected: it refused; bad_response: no 65-byte signature; wrong_signer: the signature does not recover to signer.address; backlog: too many blocks waiting)",
    ["chain_id", "reason"],
  );
  const reqResp = registeredCounter(
    register,
    "supernode_p2p_reqresp_requests_total",
    "payload_by_number requests by role (client, server) and result code",
    ["chain_id", "role", "result"],
  );
  const bans = registeredCounter(
    register,
    "supernode_p2p_peer_bans_total",
    "Peers banned for a score below p2p.ban.threshold",
    ["chain_id"],
  );
  const resets = registeredCounter(
    register,
    "supernode_p2p_subscription_resets_total",
    "Connected peers disconnected by the subscription watchdog because, past the grace period, they were not seen subscribed to any of the chain's block topics (static peers are then redialled)",
    ["chain_id"],
  );
  const table = registeredGauge(
    register,
    "supernode_p2p_discovery_table_size",
    "Records in each chain's discv5 routing table (0 without discovery)",
    ["chain_id"],
  );
  const dropped = registeredCounter(
    register,
    "supernode_p2p_discovery_dropped_packets_total",
    "Inbound discv5 packets dropped by the rate limit (per source IP and overall) before decoding",
    ["chain_id"],
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
