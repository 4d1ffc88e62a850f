/** The L2 heads one virtual node keeps (op-node §2.12.1) and small helpers on block refs. */
import { ZERO_HASH } from "../../core/types/primitives.js";
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import { l2BlockRef } from "../../protocol/l2/block-ref.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { ExecutionEngine } from "../ports.js";

export interface L2Heads {
  unsafe: L2BlockRef;
  crossUnsafe: L2BlockRef;
  pendingSafe: L2BlockRef;
  localSafe: L2BlockRef;
  safe: L2BlockRef;
  finalized: L2BlockRef;
}

export const ZERO_L1_REF: L1BlockRef = { hash: ZERO_HASH, number: 0, parentHash: ZERO_HASH, timestamp: 0 };
export const ZERO_L2_REF: L2BlockRef = l2BlockRef(ZERO_HASH, 0, ZERO_HASH, 0, { hash: ZERO_HASH, number: 0 }, 0);

/** The L2 genesis block's ref as the rollup config describes it (parent hash unknown → zero). */
export function genesisL2Ref(cfg: RollupConfig): L2BlockRef {
  return l2BlockRef(cfg.genesis.l2.hash, cfg.genesis.l2.number, ZERO_HASH, cfg.genesis.l2_time, cfg.genesis.l1, 0);
}

/** The heads under the EL's labels (`latest`, `safe`, `finalized`); missing ones default to genesis. */
export async function headsFromEngine(e: ExecutionEngine, cfg: RollupConfig): Promise<L2Heads> {
  const genesis = (await e.l2BlockRefByNumber(cfg.genesis.l2.number)) ?? genesisL2Ref(cfg);
  const finalized = (await e.l2BlockRefByLabel("finalized")) ?? genesis;
  const safe = (await e.l2BlockRefByLabel("safe")) ?? finalized;
  const unsafe = (await e.l2BlockRefByLabel("latest")) ?? safe;
  return { unsafe, crossUnsafe: unsafe, pendingSafe: safe, localSafe: safe, safe, finalized };
}

/**
 * The heads the EL holds once a build starts on `parent`: `parent` as unsafe head, safe and finalized as they are
 * unless above it (then `parent`), pending-safe likewise (else safe); local-safe is safe.
 */
export function headsOnParent(h: L2Heads, parent: L2BlockRef): L2Heads {
  const safe = h.safe.number <= parent.number ? h.safe : parent;
  const finalized = h.finalized.number <= parent.number ? h.finalized : parent;
  const pendingSafe = h.pendingSafe.number <= parent.number ? h.pendingSafe : safe;
  return { unsafe: parent, crossUnsafe: parent, pendingSafe, localSafe: safe, safe, finalized };
}

export function sameBlock(a: { hash: string; number: number }, b: { hash: string; number: number }): boolean {
  return a.number === b.number && a.hash.toLowerCase() === b.hash.toLowerCase();
}

export function allHeads(ref: L2BlockRef): L2Heads {
  return { unsafe: ref, crossUnsafe: ref, pendingSafe: ref, localSafe: ref, safe: ref, finalized: ref };
}

/** Timestamp of L2 block number `n` by the config's fixed block time. */
export function timestampOfBlock(cfg: RollupConfig, n: number): number {
  return cfg.genesis.l2_time + (n - cfg.genesis.l2.number) * cfg.block_time;
}

/** L2 block number at timestamp `ts` (floored), or undefined before genesis. */
export function blockNumberAtTimestamp(cfg: RollupConfig, ts: number): number | undefined {
  if (ts < cfg.genesis.l2_time) return undefined;
  return cfg.genesis.l2.number + Math.floor((ts - cfg.genesis.l2_time) / cfg.block_time);
}
