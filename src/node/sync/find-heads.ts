/**
 * Finding a consistent start point after a reset or at startup (op-node §2.12.6, `sync.FindL2Heads`):
 * walk back from the EL's unsafe head one L2 block at a time, checking each block's L1 origin against the
 * canonical L1 chain and each parent/child pair for consistency, and pick
 * - unsafe: the highest block whose L1 origin is canonical or not yet visible on L1 ("ahead"), with every
 *   block below it consistent;
 * - safe: the parent of the first epoch-start block (sequence number 0) at or below the EL's safe label whose
 *   origin lies more than one sync lookback (the sequencing window) behind the highest canonical origin —
 *   or, earlier in the walk, a SafeDB entry whose L1 block is still canonical and whose L2 block is the block the
 *   walk reached at that height with a canonical origin (it was derived from canonical L1 data, so re-deriving
 *   from it reproduces the chain; this avoids re-deriving a whole window on every restart);
 * - finalized: the EL's finalized label; the walk never passes it (reaching it returns it as safe too).
 * Errors: a different L2/L1 genesis (`wrong chain`), a different block at the finalized height (`cannot reorg
 * finalized block`), a reorg deeper than five sync lookbacks (`reorg is too deep`), inconsistent parent/child
 * origins, and a walk longer than `maxWalk` blocks are critical; a missing parent block is temporary (retried).
 */
import { CriticalError, TemporaryError, severityOf } from "../../core/errors/supernode-error.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { ExecutionEngine, L1Source, SafeDbPort } from "../ports.js";
import { genesisL2Ref } from "../engine/heads.js";

/** How the safe head was found (logged with the reset). */
export type FoundHow = "walk" | "safedb" | "finalized" | "recover-no-finality" | "recover-el-rewound";

export interface FoundHeads {
  readonly unsafe: L2BlockRef;
  readonly safe: L2BlockRef;
  readonly finalized: L2BlockRef;
  readonly how: FoundHow;
  /** L1 block of the SafeDB entry the safe head was taken from (entries above it are stale). */
  readonly safeDbL1?: BlockId | undefined;
}

export interface FindHeadsOptions {
  /** Skip the up-front check of the EL's genesis block hash (EL-sync mode, as op-node). */
  readonly skipGenesisCheck?: boolean;
  /** Most L2 blocks walked before a critical error (default 1,000,000). */
  readonly maxWalk?: number;
  /** EL-sync recovery: safe/finalized this many blocks behind the tip (`syncmode.offset-el-safe`). */
  readonly elSafeOffsetBlocks?: number;
}

export const MAX_REORG_SEQ_WINDOWS = 5;
export const RECOVER_MIN_SEQ_WINDOWS = 14;
export const DEFAULT_MAX_WALK = 1_000_000;

/** op-node `DurationToBlocks`: ceil(whole seconds of `offsetMs` / block time); 0 for no offset. */
export function durationToBlocks(offsetMs: number, blockTime: number): number {
  const sec = Math.floor(offsetMs / 1000);
  if (sec <= 0 || blockTime <= 0) return 0;
  return Math.ceil(sec / blockTime);
}

/** The sync lookback: the sequencing window, or the alt-DA challenge + resolve windows when larger. */
export function syncLookback(cfg: RollupConfig): number {
  const alt = cfg.alt_da;
  const win = alt === undefined ? 0 : alt.da_challenge_window + alt.da_resolve_window;
  return Math.max(cfg.seq_window_size, win);
}

const eqHash = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
const refStr = (r: BlockId): string => `${r.hash}:${r.number}`;

/** op-node `L2HeadsForELSyncWithOffset`: unsafe at the tip, safe = finalized = tip − offset (not below genesis). */
export async function headsForElSyncTip(
  cfg: RollupConfig,
  engine: ExecutionEngine,
  tip: L2BlockRef,
  offsetBlocks: number,
  how: FoundHow,
): Promise<FoundHeads> {
  const target = Math.max(cfg.genesis.l2.number, tip.number - Math.max(0, offsetBlocks));
  let derived = tip;
  if (target < tip.number) {
    const ref = await engine.l2BlockRefByNumber(target);
    if (ref === undefined)
      throw new TemporaryError("EL_SYNC_OFFSET", `EL sync offset-derived head ${target} not found`);
    derived = ref;
  }
  return { unsafe: tip, safe: derived, finalized: derived, how };
}

/** The newest SafeDB entry whose L1 block is canonical (its L2 block is checked by the walk). */
async function safeDbCandidate(
  l1: L1Source,
  safeDb: SafeDbPort,
  finalized: L2BlockRef,
  unsafe: L2BlockRef,
): Promise<{ l1Block: BlockId; safeHead: BlockId } | undefined> {
  let n = Number.MAX_SAFE_INTEGER;
  for (let guard = 0; guard < 1_000; guard++) {
    const e = await safeDb.safeHeadAtL1Block(n);
    if (e === undefined || e.safeHead.number < finalized.number) return undefined;
    if (e.safeHead.number <= unsafe.number && (await isCanonicalL1(l1, e.l1Block))) return e;
    if (e.l1Block.number === 0) return undefined;
    n = e.l1Block.number - 1;
  }
  return undefined;
}

async function isCanonicalL1(l1: L1Source, id: BlockId): Promise<boolean> {
  try {
    return eqHash((await l1.l1BlockRefByNumber(id.number)).hash, id.hash);
  } catch (err) {
    if (severityOf(err) === "temporary") return false;
    throw err;
  }
}

/** The L1 block at `n.l1origin` (by hash when it is the parent of the previous one), or "ahead" if unknown. */
async function originBlock(l1: L1Source, n: L2BlockRef, prev: L1BlockRef | undefined): Promise<L1BlockRef | "ahead"> {
  if (prev !== undefined && eqHash(n.l1origin.hash, prev.parentHash)) return l1.l1BlockRefByHash(n.l1origin.hash);
  if (prev !== undefined && eqHash(n.l1origin.hash, prev.hash)) return prev;
  try {
    return await l1.l1BlockRefByNumber(n.l1origin.number);
  } catch (err) {
    if (severityOf(err) === "temporary" && (err as { code?: string }).code === "NOT_FOUND") return "ahead";
    throw err;
  }
}

export async function findL2Heads(
  cfg: RollupConfig,
  engine: ExecutionEngine,
  l1: L1Source,
  safeDb: SafeDbPort | undefined,
  opts: FindHeadsOptions = {},
): Promise<FoundHeads> {
  const g = cfg.genesis;
  if (opts.skipGenesisCheck !== true) {
    const genesis = await engine.l2BlockRefByNumber(g.l2.number);
    if (genesis !== undefined && !eqHash(genesis.hash, g.l2.hash)) {
      throw new CriticalError("WRONG_CHAIN", `wrong chain L2: genesis: ${refStr(g.l2)}, got ${refStr(genesis)}`);
    }
  }
  const finalized =
    (await engine.l2BlockRefByLabel("finalized")) ?? (await engine.l2BlockRefByHash(g.l2.hash)) ?? genesisL2Ref(cfg);
  const safe = (await engine.l2BlockRefByLabel("safe")) ?? finalized;
  const unsafe = (await engine.l2BlockRefByLabel("latest")) ?? safe;
  const offset = opts.elSafeOffsetBlocks ?? 0;

  // EL sync finished but the forkchoice never recorded safe/finalized: adopt the tip (op-node's recovery).
  const lookback = syncLookback(cfg);
  if (
    eqHash(finalized.hash, g.l2.hash) &&
    eqHash(safe.hash, g.l2.hash) &&
    unsafe.number > g.l2.number &&
    unsafe.l1origin.number > g.l1.number + RECOVER_MIN_SEQ_WINDOWS * cfg.seq_window_size
  ) {
    return headsForElSyncTip(cfg, engine, unsafe, offset, "recover-no-finality");
  }
  // The EL's chain was rewound below its own forkchoice labels.
  if (unsafe.number < finalized.number || unsafe.number < safe.number) {
    return headsForElSyncTip(cfg, engine, unsafe, offset, "recover-el-rewound");
  }

  const dbCand = safeDb === undefined ? undefined : await safeDbCandidate(l1, safeDb, finalized, unsafe);
  const maxWalk = opts.maxWalk ?? DEFAULT_MAX_WALK;
  let resultUnsafe: L2BlockRef | undefined = unsafe;
  let highest: L2BlockRef | undefined; // highest L2 block whose L1 origin is canonical
  let l1Block: L1BlockRef | undefined;
  let ahead = false;
  let ready = false;
  let n = unsafe;
  for (let steps = 0; ; steps++) {
    if (steps > maxWalk) {
      throw new CriticalError(
        "FIND_HEADS_WALK_LIMIT",
        `finding the L2 heads walked back ${maxWalk} blocks from unsafe ${refStr(unsafe)} to ${refStr(n)} without a safe start point`,
      );
    }
    const ob = await originBlock(l1, n, l1Block);
    ahead = ob === "ahead";
    l1Block = ob === "ahead" ? undefined : ob;

    if (n.number === g.l2.number) {
      if (!eqHash(n.hash, g.l2.hash)) {
        throw new CriticalError("WRONG_CHAIN", `wrong chain L2: genesis: ${refStr(g.l2)}, got ${refStr(n)}`);
      }
      if (l1Block !== undefined && !eqHash(l1Block.hash, g.l1.hash)) {
        throw new CriticalError("WRONG_CHAIN", `wrong chain L1: genesis: ${refStr(g.l1)}, got ${refStr(l1Block)}`);
      }
    }
    if (n.number === finalized.number && !eqHash(n.hash, finalized.hash)) {
      throw new CriticalError(
        "REORG_FINALIZED",
        `cannot reorg finalized block: finalized ${refStr(finalized)}, got: ${refStr(n)}`,
      );
    }
    if (resultUnsafe === undefined) {
      resultUnsafe = n;
      if (n.l1origin.number + MAX_REORG_SEQ_WINDOWS * lookback < unsafe.l1origin.number) {
        throw new CriticalError(
          "REORG_TOO_DEEP",
          `reorg is too deep: traversed back to L2 block ${refStr(n)}, but too deep compared to previous unsafe block ${refStr(unsafe)}`,
        );
      }
    }
    if (ahead) {
      highest = undefined; // keep the unsafe candidate: its origin may still appear on L1
    } else if (l1Block !== undefined && eqHash(l1Block.hash, n.l1origin.hash)) {
      highest ??= n;
    } else {
      resultUnsafe = undefined; // non-canonical origin: the unsafe head is lower
      highest = undefined;
    }

    // SafeDB shortcut: the recorded safe head, reached on the EL's chain with a canonical origin.
    if (dbCand !== undefined && n.number === dbCand.safeHead.number) {
      if (eqHash(n.hash, dbCand.safeHead.hash) && highest !== undefined && resultUnsafe !== undefined) {
        return { unsafe: resultUnsafe, safe: n, finalized, how: "safedb", safeDbL1: dbCand.l1Block };
      }
    }
    if (
      highest !== undefined &&
      n.number <= safe.number &&
      n.sequenceNumber === 0 &&
      n.l1origin.number + lookback < highest.l1origin.number
    ) {
      ready = true;
    }
    if (n.number === finalized.number) {
      return { unsafe: resultUnsafe ?? n, safe: n, finalized, how: "finalized" };
    }

    const parent = await engine.l2BlockRefByHash(n.parentHash);
    if (parent === undefined) {
      throw new TemporaryError("FIND_HEADS_NO_PARENT", `L2 block ${n.parentHash} (parent of ${refStr(n)}) not found`);
    }
    checkParent(parent, n, l1Block);
    n = parent;
    if (ready) return { unsafe: resultUnsafe ?? n, safe: n, finalized, how: "walk" };
  }
}

/** Consistency of an L2 parent/child pair (critical: the EL's chain is not a valid L2 chain). */
function checkParent(parent: L2BlockRef, n: L2BlockRef, l1Block: L1BlockRef | undefined): void {
  const bad = (msg: string) => new CriticalError("L2_CHAIN_INCONSISTENT", msg);
  if (parent.number + 1 !== n.number || !eqHash(parent.hash, n.parentHash)) {
    throw bad(`L2 block ${refStr(n)} has parent ${refStr(parent)} that does not precede it`);
  }
  const sameOrigin = parent.l1origin.number === n.l1origin.number && eqHash(parent.l1origin.hash, n.l1origin.hash);
  if (!sameOrigin) {
    if (parent.l1origin.number + 1 !== n.l1origin.number) {
      throw bad(
        `l2 parent ${refStr(parent)} of ${refStr(n)} has L1 origin ${refStr(parent.l1origin)} that is not before ${refStr(n.l1origin)}`,
      );
    }
    if (n.sequenceNumber !== 0) {
      throw bad(
        `l2 block ${refStr(n)} has parent ${refStr(parent)} with different L1 origin, but non-zero sequence number ${n.sequenceNumber}`,
      );
    }
    if (
      l1Block !== undefined &&
      eqHash(l1Block.hash, n.l1origin.hash) &&
      !eqHash(l1Block.parentHash, parent.l1origin.hash)
    ) {
      throw bad(
        `parent L2 block ${refStr(parent)} has origin ${refStr(parent.l1origin)} but expected ${l1Block.parentHash}`,
      );
    }
  } else if (parent.sequenceNumber + 1 !== n.sequenceNumber) {
    throw bad(
      `sequence number inconsistency ${parent.sequenceNumber} <> ${n.sequenceNumber} between ${refStr(parent)} and ${refStr(n)}`,
    );
  }
}

/**
 * The SafeDB after a reset to `found` (op-node `SafeHeadReset`; a plain truncation above the safe head's L1 block when
 * the port lacks it). A reset to the L2 genesis records it as safe as of L1 block 0 (dispute games may reference L1
 * heads before `genesis.l1`).
 */
export async function resetSafeDb(
  cfg: RollupConfig,
  l1: L1Source,
  db: SafeDbPort | undefined,
  found: FoundHeads,
): Promise<void> {
  if (db === undefined) return;
  if (db.safeHeadReset === undefined) {
    await db.truncate(found.safeDbL1?.number ?? found.safe.l1origin.number);
    return;
  }
  const g = cfg.genesis.l2;
  if (found.safe.number === g.number && eqHash(found.safe.hash, g.hash)) {
    let l1Block0: L1BlockRef | undefined;
    try {
      l1Block0 = await l1.l1BlockRefByNumber(0);
    } catch (err) {
      if (severityOf(err) !== "temporary") throw err;
    }
    if (l1Block0 !== undefined) {
      await db.safeHeadReset(found.safe, { isL2Genesis: true, l1Block0: { hash: l1Block0.hash, number: 0 } });
      return;
    }
  }
  await db.safeHeadReset(found.safe);
}
