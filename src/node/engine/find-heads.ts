/**
 * Finding a consistent start point after a reset or at startup (op-node §2.12.6, simplified and SafeDB-assisted):
 * - unsafe: walking back from the EL's head, the highest block whose L1 origin is canonical (or not yet on L1);
 * - safe: the newest SafeDB entry whose L1 block is still canonical and whose L2 block is still the EL's canonical
 *   block (capped at the EL's safe label and at unsafe); without a usable SafeDB entry, op-node's rule: the
 *   parent of the first epoch-start block whose origin lies one sequencing window behind the highest canonical
 *   origin (or finalized);
 * - finalized: the EL's finalized label, capped at safe.
 */
import { CriticalError, severityOf } from "../../core/errors/supernode-error.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { EngineApi, L1Source, SafeDbPort } from "../ports.js";
import { genesisL2Ref } from "./heads.js";

export interface FoundHeads {
  readonly unsafe: L2BlockRef;
  readonly safe: L2BlockRef;
  readonly finalized: L2BlockRef;
  /** L1 block of the SafeDB entry the safe head was taken from (entries above it are stale). */
  readonly safeDbL1?: BlockId | undefined;
}

type OriginState = "canonical" | "ahead" | "reorged";

async function originState(l1: L1Source, origin: BlockId, l1Head: L1BlockRef): Promise<OriginState> {
  if (origin.number > l1Head.number) return "ahead";
  try {
    const canon = await l1.l1BlockRefByNumber(origin.number);
    return canon.hash === origin.hash ? "canonical" : "reorged";
  } catch (err) {
    if (severityOf(err) === "temporary") return "ahead";
    throw err;
  }
}

async function isCanonicalL1(l1: L1Source, id: BlockId): Promise<boolean> {
  try {
    return (await l1.l1BlockRefByNumber(id.number)).hash === id.hash;
  } catch {
    return false;
  }
}

export async function findL2Heads(
  cfg: RollupConfig,
  engine: EngineApi,
  l1: L1Source,
  safeDb: SafeDbPort | undefined,
): Promise<FoundHeads> {
  const genesis = (await engine.l2BlockRefByNumber(cfg.genesis.l2.number)) ?? genesisL2Ref(cfg);
  if (genesis.hash !== cfg.genesis.l2.hash) {
    throw new CriticalError("WRONG_CHAIN", "the execution client's genesis block does not match the rollup config", {
      expected: cfg.genesis.l2.hash,
      got: genesis.hash,
    });
  }
  const elFinalized = (await engine.l2BlockRefByLabel("finalized")) ?? genesis;
  const elSafe = (await engine.l2BlockRefByLabel("safe")) ?? elFinalized;
  const elUnsafe = (await engine.l2BlockRefByLabel("latest")) ?? elSafe;
  const l1Head = await l1.l1BlockRefByLabel("latest");

  // 1. unsafe: walk back until the origin is canonical or ahead.
  let unsafe = elUnsafe;
  let highestCanonicalOrigin: BlockId | undefined;
  while (unsafe.number > genesis.number) {
    const st = await originState(l1, unsafe.l1origin, l1Head);
    if (st !== "reorged") {
      if (st === "canonical") highestCanonicalOrigin = unsafe.l1origin;
      break;
    }
    const parent = await engine.l2BlockRefByHash(unsafe.parentHash);
    if (parent === undefined) break;
    unsafe = parent;
  }
  if (unsafe.number <= genesis.number) unsafe = genesis;
  if (unsafe.number < elFinalized.number) {
    throw new CriticalError("REORG_FINALIZED", "cannot reorg finalized block");
  }

  // 2. safe: the newest SafeDB entry still canonical on both L1 and L2.
  let safe: L2BlockRef | undefined;
  let safeDbL1: BlockId | undefined;
  if (safeDb !== undefined) {
    let n = l1Head.number;
    for (let guard = 0; guard < 10_000 && n >= 0; guard++) {
      const e = await safeDb.safeHeadAtL1Block(n);
      if (e === undefined) break;
      if (await isCanonicalL1(l1, e.l1Block)) {
        const l2 = await engine.l2BlockRefByNumber(e.safeHead.number);
        if (l2 !== undefined && l2.hash === e.safeHead.hash) {
          safe = l2;
          safeDbL1 = e.l1Block;
          break;
        }
      }
      n = e.l1Block.number - 1;
    }
  }
  if (safe === undefined) {
    // op-node's conservative rule.
    let cand = elSafe.number < unsafe.number ? elSafe : unsafe;
    const highest = highestCanonicalOrigin?.number ?? cand.l1origin.number;
    while (cand.number > elFinalized.number) {
      if (cand.sequenceNumber === 0 && cand.l1origin.number + cfg.seq_window_size < highest) {
        if (await isCanonicalL1(l1, cand.l1origin)) break;
      }
      const parent = await engine.l2BlockRefByHash(cand.parentHash);
      if (parent === undefined) break;
      cand = parent;
    }
    safe = cand.number < elFinalized.number ? elFinalized : cand;
  }
  if (safe.number > unsafe.number) safe = unsafe;
  const finalized = elFinalized.number <= safe.number ? elFinalized : safe;
  return { unsafe, safe, finalized, safeDbL1 };
}
