/**
 * Execution-layer sync mode (op-node §3.5–3.6): whether the first unsafe payload starts EL sync. The one
 * behaviour that differs by engine kind: `variant_a` (reth-like) may start EL sync even when the EL already has a
 * non-genesis finalized block; `variant_b` (geth-like, default) only when it has none or it is the genesis.
 */
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";

export type EngineKind = "variant_a" | "variant_b";

export function supportsPostFinalizationElSync(kind: EngineKind): boolean {
  return kind === "variant_a";
}

export function shouldStartElSync(kind: EngineKind, finalized: L2BlockRef, cfg: RollupConfig): boolean {
  const atGenesis = finalized.number <= cfg.genesis.l2.number || finalized.hash === cfg.genesis.l2.hash;
  return atGenesis || supportsPostFinalizationElSync(kind);
}
