/**
 * gossipsub options for OP block gossip, set explicitly to go-libp2p-pubsub's values as op-node configures them
 * (the JS defaults differ: StrictSign, floodPublish, a 4 MiB frame limit, shorter caches).
 */
import type { GossipsubOpts, Message } from "@libp2p/gossipsub";
import { StrictNoSign } from "@libp2p/gossipsub";
import type { P2pConfig } from "../config/types.js";
import { gossipMessageId } from "../protocol/p2p/gossip.js";
import { MAX_PAYLOAD_SIZE } from "../protocol/p2p/snappy.js";

/** decay(x) = 0.01^(1 / (x / slot)) with x = 10 epochs of 6 slots: the same for every block time. */
export const SCORE_DECAY = 0.01 ** (1 / 60);

export function gossipOptions(
  p2p: P2pConfig,
  topics: readonly string[],
  blockTimeSec: number,
  appScore: (peerId: string) => number,
): Partial<GossipsubOpts> {
  const slotMs = (blockTimeSec || 2) * 1000;
  const light = p2p.scoring === "light";
  return {
    globalSignaturePolicy: StrictNoSign,
    msgIdFn: (msg: Message) => gossipMessageId(msg.topic, msg.data),
    D: p2p.gossip.meshD,
    Dlo: p2p.gossip.meshDlo,
    Dhi: p2p.gossip.meshDhi,
    Dlazy: p2p.gossip.meshDlazy,
    Dscore: 4,
    Dout: 2,
    heartbeatInterval: 500,
    fanoutTTL: 24_000,
    mcacheLength: 12,
    mcacheGossip: 3,
    seenTTL: 130 * 500,
    gossipFactor: 0.25,
    floodPublish: p2p.gossip.floodPublish,
    doPX: false,
    allowPublishToZeroTopicPeers: true,
    emitSelf: false,
    fallbackToFloodsub: true,
    maxInboundDataLength: MAX_PAYLOAD_SIZE,
    allowedTopics: [...topics],
    scoreParams: {
      topics: {},
      topicScoreCap: 0,
      appSpecificScore: light ? appScore : () => 0,
      appSpecificWeight: light ? 1 : 0,
      IPColocationFactorWeight: light ? -35 : 0,
      IPColocationFactorThreshold: 10,
      IPColocationFactorWhitelist: new Set(),
      behaviourPenaltyWeight: light ? -16 : 0,
      behaviourPenaltyThreshold: 6,
      behaviourPenaltyDecay: SCORE_DECAY,
      decayInterval: slotMs,
      decayToZero: 0.01,
      retainScore: 600 * slotMs,
    },
    scoreThresholds: {
      gossipThreshold: -10,
      publishThreshold: -40,
      graylistThreshold: -40,
      acceptPXThreshold: 20,
      opportunisticGraftThreshold: 0.05,
    },
  };
}
