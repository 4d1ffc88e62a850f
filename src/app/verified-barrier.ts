import type { BlockId } from "../core/types/block-ref.js";
import type { ChainService } from "./chain-service.js";

/**
 * The warm-start barrier (upstream op-supernode PR #22281): a chain instance that has not yet brought its safe head
 * up to the block the interop activity had verified for the chain when the instance was first asked is held like
 * a restarting chain (the router's readiness gate: requests wait up to its bound, then HTTP 503), so neither a warm
 * restart of the process nor a restart by the supervisor serves a `safe_l2` older than what was already verified.
 * An instance that reached it once passes for good; a rewind of verified results lowers the mark.
 */
export class VerifiedBarrier {
  readonly #marks = new WeakMap<ChainService, number>();
  readonly #passed = new WeakSet<ChainService>();

  /** `verifiedHead(chainId)`: the activity's newest verified block of the chain (undefined: none). */
  constructor(private readonly verifiedHead: (chainId: string) => BlockId | undefined) {}

  /** Whether `svc` (chain `chainId`'s running instance) is still below the mark. */
  async holds(chainId: string, svc: ChainService): Promise<boolean> {
    if (this.#passed.has(svc)) return false;
    const now = this.verifiedHead(chainId)?.number ?? -1;
    const mark = Math.min(this.#marks.get(svc) ?? now, now);
    this.#marks.set(svc, mark);
    const safe = await svc.syncStatus().then(
      (s) => s.safe_l2.number,
      () => -1,
    );
    if (safe < mark) return true;
    this.#passed.add(svc);
    return false;
  }
}
