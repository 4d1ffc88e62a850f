/**
 * The gossip part of a peer's scores as `stackp2p_peers` / `stackp2p_peerStats` report it (op-node's shape): shared
 * by the P2P layer that fills it from gossipsub and the RPC layer that serves it.
 */
export interface GossipScores {
  readonly total: number;
  readonly blocks: {
    readonly timeInMesh: number;
    readonly firstMessageDeliveries: number;
    readonly meshMessageDeliveries: number;
    readonly invalidMessageDeliveries: number;
  };
  readonly IPColocationFactor: number;
  readonly behavioralPenalty: number;
}
