import type { GossipSub } from "@libp2p/gossipsub";
import type { Ping } from "@libp2p/ping";
import type { Libp2p } from "libp2p";

/** The gossipsub service with the score and mesh accessors the concrete router has. */
export type PubSub = GossipSub & {
  getScore(peerId: string): number;
  getMeshPeers(topic: string): string[];
};

/** A chain's libp2p node with its services. */
export type Host = Libp2p<{ pubsub: PubSub; identify: unknown; ping: Ping }>;
