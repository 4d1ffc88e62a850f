/**
 * A chain's inbox of unsafe payloads from P2P: built before the chain's P2P host and its node, it takes what the
 * host accepted and hands it to the node instance that runs (the node's `UnsafePayloadFeed` port; a restarted node
 * subscribes again). A payload that arrives while no node runs is dropped, as gossip may be.
 */
import type { ExecutionPayloadEnvelope, UnsafePayloadFeed } from "../node/ports.js";

export class UnsafePayloadInbox implements UnsafePayloadFeed {
  private take: ((envelope: ExecutionPayloadEnvelope) => void) | undefined;

  deliver(envelope: ExecutionPayloadEnvelope): void {
    this.take?.(envelope);
  }

  subscribe(take: (envelope: ExecutionPayloadEnvelope) => void): () => void {
    this.take = take;
    return () => {
      if (this.take === take) this.take = undefined;
    };
  }
}
