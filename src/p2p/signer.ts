/**
 * The chain's unsafe-block signer, read from the L1 SystemConfig storage slot
 * `keccak256("systemconfig.unsafeblocksigner")` at the L1 head and refreshed on a timer. After a rotation the
 * previous signer stays valid for a grace period (the gossip age threshold by default), so blocks signed just before
 * the change still validate. op-node keeps only the latest value.
 */
import type { Logger } from "../core/logger.js";
import { type Clock, nowSec } from "../core/time/clock.js";
import type { Address, Hash } from "../core/types/primitives.js";
import type { SignerView } from "../protocol/p2p/validate.js";

export const UNSAFE_BLOCK_SIGNER_SLOT: Hash = "0x65a7ed542fb37fe237fdfbdd70b31598523fe5b32879e307bae27a0bd9581c08";

/** What the tracker needs from the shared L1 client. */
export interface SignerL1 {
  /** The current L1 head's hash, or undefined before the first poll. */
  headHash(): Promise<Hash | undefined>;
  getStorageAt(address: Address, slot: Hash, blockHash: Hash): Promise<Hash>;
}

export class SignerTracker {
  private view: SignerView = { current: undefined };
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly systemConfig: Address,
    private readonly l1: SignerL1,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly graceSec: number,
  ) {}

  get(): SignerView {
    return this.view;
  }

  /** Sets the signer directly (tests, or a chain whose signer is known up front). */
  set(addr: Address): void {
    const cur = this.view.current;
    const a = addr.toLowerCase() as Address;
    if (cur === a) return;
    if (cur !== undefined && !/^0x0{40}$/.test(cur)) {
      this.view = { current: a, previous: cur, previousValidUntil: nowSec(this.clock) + this.graceSec };
      this.logger.info({ previous: cur, current: a }, "unsafe block signer rotated");
    } else {
      this.view = { current: a };
    }
  }

  async refresh(): Promise<void> {
    const head = await this.l1.headHash();
    if (head === undefined) return;
    const word = await this.l1.getStorageAt(this.systemConfig, UNSAFE_BLOCK_SIGNER_SLOT, head);
    this.set(`0x${word.slice(-40)}` as Address);
  }

  start(intervalMs: number): void {
    const tick = async (): Promise<void> => {
      try {
        await this.refresh();
      } catch (err) {
        this.logger.warn({ err }, "reading the unsafe block signer failed");
      }
      if (!this.stopped) this.timer = setTimeout(() => void tick(), intervalMs);
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }
}
