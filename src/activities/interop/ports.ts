import type { BlockId } from "../../core/types/block-ref.js";
import type { ChainId, Hash } from "../../core/types/primitives.js";
import type { Log } from "../../protocol/block/receipt.js";
import type { StoredLog } from "../../protocol/interop/messages.js";
import type { InitiatingLog } from "../../protocol/interop/rules.js";
import type { ChainBlockAt } from "../ports.js";
import type { ExecutionPayloadEnvelope } from "../../protocol/engine-api-types.js";
import type {
  InteropState,
  InvalidationPayloads,
  InvalidHead,
  PendingTransition,
  SealedBlock,
  VerifiedResult,
} from "../../protocol/interop/types.js";

export type { PendingTransition, SealedBlock, VerifiedResult };

/**
 * One chain's logs (a sublevel of `<data-dir>/interop/`): consecutive sealed blocks with parent links, each with every log's hash
 * and executing message. Sealing is idempotent (the same block again is a no-op); a different block at a sealed
 * height, a gap or a parent mismatch is refused (`LogsConflictError`) until the store is rewound.
 */
export interface LogsStorePort {
  latest(): SealedBlock | undefined;
  first(): SealedBlock | undefined;
  blockAt(number: number): Promise<SealedBlock | undefined>;
  seal(block: SealedBlock, logs: readonly StoredLog[]): Promise<void>;
  /**
   * Checks and encodes a sealing (as `sealMany`) for the verified store's commit batch; undefined when the blocks
   * are sealed already. Nothing else may be sealed before that commit.
   */
  stage(
    items: ReadonlyArray<{ readonly block: SealedBlock; readonly logs: readonly StoredLog[] }>,
  ): Promise<StagedSeal | undefined>;
  /** Seals consecutive blocks in one write (the same rules as `seal`, applied in order; all or nothing). */
  sealMany(items: ReadonlyArray<{ readonly block: SealedBlock; readonly logs: readonly StoredLog[] }>): Promise<void>;
  /** The log at (block, index) with its block's timestamp; undefined when unknown. */
  findLog(blockNumber: number, logIndex: number): Promise<InitiatingLog | undefined>;
  /** Keeps blocks ≤ `number` (all when it is beyond the latest; none when it is before the first). */
  rewindTo(number: number): Promise<void>;
  clear(): Promise<void>;
}

/** A staged sealing (opaque to the activity): handed to `VerifiedStorePort.commit`. */
export interface StagedSeal {
  readonly root: unknown;
  write(): Promise<void>;
  done(): void;
}

/**
 * The verified results (contiguous timestamps) and the write-ahead transition, in one LevelDB so a commit and the
 * clearing of its transition are one atomic batch.
 */
export interface VerifiedStorePort {
  last(): VerifiedResult | undefined;
  firstTimestamp(): number | undefined;
  get(timestamp: number): Promise<VerifiedResult | undefined>;
  /** Commits `last + 1` (or any timestamp into an empty store) and clears the pending transition; idempotent. */
  commit(result: VerifiedResult, staged?: readonly StagedSeal[]): Promise<void>;
  /** Drops every result at or after `timestamp` and clears the pending transition. */
  rewind(timestamp: number): Promise<void>;
  pending(): Promise<PendingTransition | undefined>;
  setPending(t: PendingTransition): Promise<void>;
  clearPending(): Promise<void>;
  /** The newest result whose L1 inclusion is at or below `l1Number` (binary search; inclusions are monotone). */
  atL1(l1Number: number): Promise<VerifiedResult | undefined>;
  /** The failed write the store has not recovered from yet (a full disk); undefined when healthy. */
  fault?(): Error | undefined;
}

/** A block with its receipts' logs, from the chain's execution client. */
export interface BlockLogsSource {
  readonly block: SealedBlock;
  readonly receipts: ReadonlyArray<{ readonly logs: readonly Log[] }>;
}

/** What the interop activity needs from one hosted chain. */
export interface InteropChain {
  readonly chainId: ChainId;
  readonly blockTime: number;
  /** L2 genesis time: verification never starts before the latest genesis. */
  readonly genesisTime: number;
  /** The number of the chain's block at `ts` (≥ genesis time), from its rollup config. */
  numberAt(ts: number): number;
  /**
   * The timestamp of the safe head in the chain's oldest SafeDB entry (before it, L1 inclusions are unknown);
   * undefined while the SafeDB is empty or the chain is not running.
   */
  firstSafeTimestamp(): Promise<number | undefined>;
  /** The local-safe block at `ts` with its output and L1 inclusion; undefined while not available. */
  optimisticAt(ts: number): Promise<ChainBlockAt | undefined>;
  /** Block header fields and receipts by hash; undefined when the EL does not know the block. */
  blockLogs(hash: Hash): Promise<BlockLogsSource | undefined>;
  /** The same by block number (log backfill). */
  blockLogsAt(number: number): Promise<BlockLogsSource | undefined>;
  /** The full execution payload of a block, for the write-ahead record; undefined when the EL does not know it. */
  payloadByHash(hash: Hash): Promise<ExecutionPayloadEnvelope | undefined>;
  /**
   * Denies `head` (persisted) and replaces it: the chain rewinds to its parent and derives a deposits-only block
   * at that height. Idempotent (a block already replaced is only recorded): `denied` says whether a new deny-list
   * record was written, `rewound` whether the block was still canonical. `payloads` (from the write-ahead record)
   * are the block and its parent; absent (a record of an earlier version) they are read from the EL.
   */
  invalidate(
    head: InvalidHead,
    decisionTimestamp: number,
    payloads?: InvalidationPayloads,
  ): Promise<InvalidationOutcome>;
  /**
   * Rewinds the chain's engine to its block `target` (an L1 reorg undid verified results); `payload` (from the
   * write-ahead record) is that block's payload, absent in records of earlier versions.
   */
  rewindEngine(target: BlockId, payload?: ExecutionPayloadEnvelope): Promise<boolean>;
  /** Forgets denials decided at or after `timestamp` (a rewind of verified results un-denies them). */
  pruneDenied(timestamp: number): Promise<void>;
}

export interface InvalidationOutcome {
  readonly denied: boolean;
  readonly rewound: boolean;
}

/** Canonical L1 lookups (the shared L1 client). */
export interface L1Canonical {
  canonicalHash(number: number): Promise<Hash | undefined>;
}

/** Lifecycle of the activity, exported as `supernode_interop_activity_state` (listed in protocol/interop/types.ts). */
export { INTEROP_STATES, type InteropState } from "../../protocol/interop/types.js";

/** The activity's metrics (implemented over prom-client by the composition root). */
export interface InteropMetrics {
  verified(timestamp: number): void;
  decision(kind: string): void;
  invalidation(chainId: string): void;
  denied(chainId: string): void;
  rewind(): void;
  verificationSeconds(s: number): void;
  state(s: InteropState): void;
  backfillProgress(chainId: string, fraction: number): void;
}
