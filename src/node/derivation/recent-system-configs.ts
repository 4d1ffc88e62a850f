/**
 * The SystemConfigs of the last blocks built from our attributes, in a fixed ring: what reading each block back
 * gives (op-node `PayloadToSystemConfig`), found by the block's parent hash, L1 origin hash and number (its own
 * hash is not known when its attributes are made).
 *
 * Only the newest entry is read on the steady path (the next block's parent is the block just derived); older
 * entries serve the sequencer and a reset close to the head. A miss costs the caller one read of the block from
 * the execution client, with the same result. The ring is a few fixed arrays written in place: no key string and
 * no Map entry per block, and nothing kept longer than `capacity` blocks (docs/performance.md).
 */
import type { Hash } from "../../core/types/primitives.js";
import type { SystemConfig } from "../../protocol/rollup-config.js";

/** Blocks remembered by default: far more than the look-back of the steady path (one) and of the sequencer (one). */
export const RECENT_SYSTEM_CONFIGS = 64;

export class RecentSystemConfigs {
  private readonly parentHashes: (string | undefined)[];
  private readonly originHashes: (string | undefined)[];
  private readonly numbers: number[];
  private readonly configs: (SystemConfig | undefined)[];
  /** Slot of the next write. */
  private next = 0;
  private used = 0;

  constructor(readonly capacity = RECENT_SYSTEM_CONFIGS) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity ${capacity} is not a count`);
    this.parentHashes = new Array<string | undefined>(capacity).fill(undefined);
    this.originHashes = new Array<string | undefined>(capacity).fill(undefined);
    this.numbers = new Array<number>(capacity).fill(-1);
    this.configs = new Array<SystemConfig | undefined>(capacity).fill(undefined);
  }

  /** Entries held (at most `capacity`). */
  get size(): number {
    return this.used;
  }

  /** Remembers the config of block `number` on `parentHash` with L1 origin `originHash`; the oldest entry goes. */
  set(parentHash: Hash, originHash: Hash, number: number, config: SystemConfig): void {
    const at = this.find(parentHash, originHash, number);
    const slot = at >= 0 ? at : this.next;
    this.parentHashes[slot] = parentHash;
    this.originHashes[slot] = originHash;
    this.numbers[slot] = number;
    this.configs[slot] = config;
    if (at >= 0) return;
    this.next = slot + 1 === this.capacity ? 0 : slot + 1;
    if (this.used < this.capacity) this.used++;
  }

  get(parentHash: Hash, originHash: Hash, number: number): SystemConfig | undefined {
    const at = this.find(parentHash, originHash, number);
    return at >= 0 ? this.configs[at] : undefined;
  }

  /** Slot of the entry, newest first (the steady path's lookup is the last write); −1 when absent. */
  private find(parentHash: string, originHash: string, number: number): number {
    let slot = this.next;
    for (let k = 0; k < this.used; k++) {
      slot = slot === 0 ? this.capacity - 1 : slot - 1;
      if (
        this.numbers[slot] === number &&
        this.parentHashes[slot] === parentHash &&
        this.originHashes[slot] === originHash
      )
        return slot;
    }
    return -1;
  }
}
