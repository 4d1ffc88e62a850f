/** L1 origin selection for the next sequenced block (op-node §5.4). */
import { ResetError, TemporaryError, severityOf } from "../../core/errors/supernode-error.js";
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import { maxSequencerDrift } from "../../protocol/derive/chain-spec.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { L1Source } from "../ports.js";

/**
 * Picks the origin of the block after `parent` (op-node `FindL1Origin`): the next L1 block (confirmed `l1Confs`
 * deep) when it is known and the new block's timestamp has reached it (never a future origin), else the current
 * one; past the sequencer drift the next one is required. Recover mode (`recover`) asks for the next origin
 * eagerly in op-node; this selector always tries to fetch it, so the choice is the same — and at the L1 tip
 * recover mode falls back to these rules too (empty blocks come from `sequencerNoTxPool`).
 */
export async function selectNextOrigin(
  cfg: RollupConfig,
  l1: L1Source,
  parent: L2BlockRef,
  opts: { l1Confs: number; recover: boolean },
): Promise<L1BlockRef> {
  const current = await l1.l1BlockRefByHash(parent.l1origin.hash);
  if (current.number !== parent.l1origin.number) {
    throw new ResetError("INVALID_L1_ORIGIN", "head's L1 origin is inconsistent with L1");
  }
  const ts = parent.timestamp + cfg.block_time;
  const drift = maxSequencerDrift(cfg, current.timestamp);
  let next: L1BlockRef | undefined;
  try {
    const head = l1.getLabel?.("latest") ?? (await l1.l1BlockRefByLabel("latest"));
    if (current.number + 1 + opts.l1Confs <= head.number) next = await l1.l1BlockRefByNumber(current.number + 1);
  } catch (err) {
    if (severityOf(err) !== "temporary") throw err;
  }
  if (next === undefined) {
    if (ts - current.timestamp > drift) {
      throw new TemporaryError("NEXT_ORIGIN_REQUIRED", "past the sequencer drift and the next L1 origin is unknown");
    }
    return current;
  }
  if (next.parentHash !== current.hash) throw new ResetError("L1_ORIGIN_ORPHANED", "next L1 origin is orphaned");
  return ts >= next.timestamp ? next : current;
}

const NO_TX_FORKS = ["ecotone", "fjord", "isthmus", "jovian", "karst", "lagoon"] as const;

/** Whether a sequenced block at `ts` must not include pool transactions. */
export function sequencerNoTxPool(cfg: RollupConfig, ts: number, origin: L1BlockRef, recover: boolean): boolean {
  if (recover) return true;
  if (ts > origin.timestamp + maxSequencerDrift(cfg, origin.timestamp)) return true;
  for (const f of NO_TX_FORKS) {
    const t = cfg[`${f}_time`];
    if (t !== undefined && ts >= t && ts >= cfg.block_time && ts - cfg.block_time < t) return true;
  }
  return false;
}
