/**
 * The `stackp2p_*` view of one chain's host (the RPC layer's `P2PControl`): peer information with scores, the
 * peer dump with the gater's block lists, peer stats, and the block / protect / connect operations with op-node's
 * state transitions (blocking never closes connections; disconnect also unblocks and forgets the peer).
 */
import type { PeerId } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "../core/codec/hex.js";
import { keccak } from "../protocol/block/keccak.js";
import { blocksTopics } from "../protocol/p2p/gossip.js";
import type { ChainP2P } from "./host.js";
import { GossipScoreSnapshot, ZERO_GOSSIP_SCORES } from "./peer-scores.js";

const dec = new TextDecoder();
const ZERO_NODE_ID = "00".repeat(32);

function nodeIdOf(id: PeerId): string {
  const raw = id.publicKey?.raw;
  if (raw === undefined) return ZERO_NODE_ID;
  try {
    const pub = secp256k1.Point.fromBytes(raw).toBytes(false);
    return bytesToHex(keccak(pub.subarray(1))).slice(2);
  } catch {
    return ZERO_NODE_ID;
  }
}

const zeroScores = () => ({
  gossip: ZERO_GOSSIP_SCORES,
  reqResp: { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 },
});

export class ChainP2PControl {
  constructor(private readonly p: ChainP2P) {}

  private get host() {
    return this.p.host;
  }

  isPeerId(s: string): boolean {
    try {
      peerIdFromString(s);
      return true;
    } catch {
      return false;
    }
  }

  async self() {
    const id = this.host.peerId;
    return {
      peerID: id.toString(),
      nodeID: nodeIdOf(id),
      userAgent: "",
      protocolVersion: "",
      ENR: this.p.discovery?.enrText() ?? "",
      addresses: this.host.getMultiaddrs().map((a) => a.toString()),
      protocols: null,
      connectedness: 0,
      direction: 0,
      protected: false,
      chainID: Number(this.p.opts.chainId),
      latency: 0,
      gossipBlocks: true,
      scores: zeroScores(),
    };
  }

  private subscribedToBlocks(id: string): boolean {
    return blocksTopics(this.p.opts.chainId).some((t) =>
      this.p.pubsub.getSubscribers(t).some((s) => s.toString() === id),
    );
  }

  private scoreSnapshot(): GossipScoreSnapshot {
    return GossipScoreSnapshot.take(this.p.pubsub, blocksTopics(this.p.opts.chainId));
  }

  private async info(id: PeerId, snap = this.scoreSnapshot()) {
    const s = id.toString();
    let addrs: string[] | null = null;
    let protocols: string[] | null = null;
    let agent = "";
    let proto = "";
    try {
      const peer = await this.host.peerStore.get(id);
      addrs = peer.addresses.map((a) => `${a.multiaddr.toString()}/p2p/${s}`);
      protocols = [...peer.protocols];
      const av = peer.metadata.get("AgentVersion");
      const pv = peer.metadata.get("ProtocolVersion");
      if (av !== undefined) agent = dec.decode(av);
      if (pv !== undefined) proto = dec.decode(pv);
    } catch {
      // not in the peer store
    }
    const conns = this.host.getConnections(id);
    const first = conns[0];
    const found = this.p.discovery?.peer(s);
    return {
      peerID: s,
      nodeID: nodeIdOf(id),
      userAgent: agent,
      protocolVersion: proto,
      ENR: found?.enr ?? "",
      addresses: addrs,
      protocols,
      connectedness: conns.length > 0 ? 1 : 0,
      direction: first === undefined ? 0 : first.direction === "inbound" ? 1 : 2,
      protected: this.p.peers.isProtected(s),
      chainID: found === undefined ? 0 : Number(found.chainId),
      latency: this.p.peers.latency.ns(s),
      gossipBlocks: this.subscribedToBlocks(s),
      scores: { gossip: snap.of(s), reqResp: this.p.peers.appCounters(s) },
    };
  }

  async peers(connected: boolean) {
    const ids = new Map<string, PeerId>();
    for (const c of this.host.getConnections()) ids.set(c.remotePeer.toString(), c.remotePeer);
    if (!connected) for (const peer of await this.host.peerStore.all()) ids.set(peer.id.toString(), peer.id);
    const peers: Record<string, Awaited<ReturnType<ChainP2PControl["info"]>>> = {};
    const snap = this.scoreSnapshot();
    for (const [s, id] of ids) peers[s] = await this.info(id, snap);
    if (!connected) peers[this.host.peerId.toString()] = await this.self();
    return {
      totalConnected: Object.values(peers).filter((p) => p.connectedness === 1).length,
      peers,
      bannedPeers: this.p.gater.blockedPeers(),
      bannedIPS: this.p.gater.blockedAddrs(),
      bannedSubnets: this.p.gater.blockedSubnets().map((s) => ({
        IP: s.ip,
        Mask: maskText(s.prefix, s.ip.includes(":")),
      })),
    };
  }

  async peerStats() {
    const topics = blocksTopics(this.p.opts.chainId);
    const subs = (i: number): number => this.p.pubsub.getSubscribers(topics[i] as string).length;
    return {
      connected: new Set(this.host.getConnections().map((c) => c.remotePeer.toString())).size,
      table: this.p.discovery?.table().length ?? 0,
      blocksTopic: subs(0),
      blocksTopicV2: subs(1),
      blocksTopicV3: subs(2),
      blocksTopicV4: subs(3),
      banned: this.p.gater.blockedPeers().length,
      known: (await this.host.peerStore.all()).length + 1,
    };
  }

  async discoveryTable(): Promise<string[]> {
    const d = this.p.discovery;
    if (d === undefined) throw new Error("discovery disabled");
    return d.table();
  }

  blockPeer(id: string): Promise<void> {
    return this.p.gater.blockPeer(id);
  }
  unblockPeer(id: string): Promise<void> {
    return this.p.gater.unblockPeer(id);
  }
  listBlockedPeers(): string[] {
    return this.p.gater.blockedPeers();
  }
  blockAddr(ip: string): Promise<void> {
    return this.p.gater.blockAddr(ip);
  }
  unblockAddr(ip: string): Promise<void> {
    return this.p.gater.unblockAddr(ip);
  }
  listBlockedAddrs(): string[] {
    return this.p.gater.blockedAddrs();
  }
  blockSubnet(ip: string, prefix: number): Promise<void> {
    return this.p.gater.blockSubnet({ ip, prefix });
  }
  unblockSubnet(ip: string, prefix: number): Promise<void> {
    return this.p.gater.unblockSubnet({ ip, prefix });
  }
  listBlockedSubnets(): { ip: string; prefix: number }[] {
    return this.p.gater.blockedSubnets();
  }
  protectPeer(id: string): void {
    this.p.peers.protect(id);
  }
  unprotectPeer(id: string): void {
    this.p.peers.unprotect(id);
  }

  async connectPeer(addr: string): Promise<void> {
    await this.p.connect(addr);
  }

  async disconnectPeer(id: string): Promise<void> {
    const pid = peerIdFromString(id);
    await this.host.hangUp(pid);
    try {
      await this.host.peerStore.delete(pid);
    } catch {
      // already gone
    }
    try {
      await this.p.gater.unblockPeer(id);
    } catch (err) {
      throw new Error(`closed peer but failed to unblock: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function maskText(prefix: number, v6: boolean): string {
  const b = Buffer.alloc(v6 ? 16 : 4);
  for (let i = 0; i < prefix; i++) b[i >> 3] = (b[i >> 3] as number) | (0x80 >> (i & 7));
  return b.toString("base64");
}
