/**
 * Spreading many chains' periodic work over their slot (docs/performance.md). Chains hosted in one process that share a
 * block time would otherwise all seal their blocks at the same instant (`block timestamp − sealing duration`), and
 * then derive, write their SafeDB and answer their EL in the same burst. Each chain instead seals `offset` earlier,
 * chain `index` of `count` at `index × spread / count`, where the spread is `STAGGER_STEP_MS` per chain but at most
 * a quarter of the slot (100 chains with 2-s blocks: 5 ms apart over 0.5 s). One chain alone is not moved.
 */
export const STAGGER_STEP_MS = 5;

export function staggerOffsetMs(index: number, count: number, slotMs: number): number {
  if (count <= 1 || index <= 0) return 0;
  const spread = Math.min(count * STAGGER_STEP_MS, slotMs / 4);
  return Math.floor((Math.min(index, count - 1) * spread) / count);
}
