import type { BlockId, L1BlockRef, L2BlockRef, SyncStatus } from "../core/types/block-ref.js";
import { ZERO_HASH } from "../core/types/primitives.js";
import { l2BlockRef } from "../protocol/l2/block-ref.js";
import type { ActivityChainView } from "./ports.js";

/** `supernode_syncStatus` result (op-supernode §4.4), plus `chain_states` (our addition, for operators). */
export interface SupernodeSyncStatus {
  readonly chains: Readonly<Record<string, SyncStatus>>;
  readonly chain_ids: readonly string[];
  readonly current_l1: BlockId;
  readonly safe_timestamp: number;
  readonly local_safe_timestamp: number;
  readonly finalized_timestamp: number;
  readonly chain_states: Readonly<Record<string, ChainStateEntry>>;
}

/** One chain's health state in `chain_states`, with the reason when it is not healthy. */
export interface ChainStateEntry {
  readonly state: string;
  readonly reason?: string;
}

const ZERO_L1: L1BlockRef = { hash: ZERO_HASH, number: 0, parentHash: ZERO_HASH, timestamp: 0 };
const ZERO_L2: L2BlockRef = l2BlockRef(ZERO_HASH, 0, ZERO_HASH, 0, { hash: ZERO_HASH, number: 0 }, 0);

/** The all-zero status reported for a chain that never produced one. */
export const ZERO_SYNC_STATUS: SyncStatus = {
  current_l1: ZERO_L1,
  current_l1_finalized: ZERO_L1,
  head_l1: ZERO_L1,
  safe_l1: ZERO_L1,
  finalized_l1: ZERO_L1,
  unsafe_l2: ZERO_L2,
  safe_l2: ZERO_L2,
  finalized_l2: ZERO_L2,
  pending_safe_l2: ZERO_L2,
  queued_unsafe_l2: ZERO_L2,
  engine_sync_target: ZERO_L2,
  local_safe_l2: ZERO_L2,
  cross_unsafe_l2: ZERO_L2,
};

function sortChains(chains: readonly ActivityChainView[]): ActivityChainView[] {
  return [...chains].sort((a, b) => (a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : 0));
}

/**
 * Aggregates the chains' statuses (pure apart from reading them):
 * - `current_l1`: the minimum by number over every chain's `current_l1`. Unlike Go, a zero value is a legitimate
 *   minimum ("nothing processed yet"), which keeps the result deterministic;
 * - the three timestamps: minimum over chains (a chain at 0 makes the aggregate 0); no chains → all zero.
 * A chain between instances contributes its last good status; a chain that never reported, the all-zero status.
 */
export async function aggregateSyncStatus(chains: readonly ActivityChainView[]): Promise<SupernodeSyncStatus> {
  const sorted = sortChains(chains);
  const statuses = await Promise.all(sorted.map(async (c) => (await c.syncStatus()) ?? ZERO_SYNC_STATUS));
  const out: Record<string, SyncStatus> = {};
  const states: Record<string, ChainStateEntry> = {};
  let currentL1: BlockId | undefined;
  let safe = Number.POSITIVE_INFINITY;
  let localSafe = Number.POSITIVE_INFINITY;
  let finalized = Number.POSITIVE_INFINITY;
  sorted.forEach((c, i) => {
    const s = statuses[i] ?? ZERO_SYNC_STATUS;
    const id = c.chainId.toString(10);
    out[id] = s;
    const reason = c.reason?.();
    states[id] = reason === undefined ? { state: c.state() } : { state: c.state(), reason };
    if (currentL1 === undefined || s.current_l1.number < currentL1.number) {
      currentL1 = { hash: s.current_l1.hash, number: s.current_l1.number };
    }
    safe = Math.min(safe, s.safe_l2.timestamp);
    localSafe = Math.min(localSafe, s.local_safe_l2.timestamp);
    finalized = Math.min(finalized, s.finalized_l2.timestamp);
  });
  const none = sorted.length === 0;
  return {
    chains: out,
    chain_ids: sorted.map((c) => c.chainId.toString(10)),
    current_l1: currentL1 ?? { hash: ZERO_HASH, number: 0 },
    safe_timestamp: none ? 0 : safe,
    local_safe_timestamp: none ? 0 : localSafe,
    finalized_timestamp: none ? 0 : finalized,
    chain_states: states,
  };
}
