/**
 * What one virtual rollup node needs from the world. Everything the node does with I/O goes through these narrow
 * interfaces, so tests can wire real clients (src/io) or small fakes, and the composition root (src/app) adapts
 * the concrete clients to them.
 *
 * Wire conventions: hashes, addresses and byte strings are lowercase `0x` hex (`Hex`); block numbers and timestamps
 * are `number`; wei / gas / uint256 are `bigint`.
 */
import type { Clock } from "../core/time/clock.js";
import type { Logger } from "../core/logger.js";
import type { Address, Hash, Hex } from "../core/types/primitives.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../core/types/block-ref.js";
import type { Receipt } from "../protocol/block/receipt.js";
import type { L1TxEntry } from "../protocol/l1/l1-block-index.js";

export type { Clock, Logger };

export type BlockLabel = "latest" | "safe" | "finalized";

/** Header fields of an L1 block the derivation needs (L1-info deposit, blob base fee, beacon root). */
export interface L1BlockInfo extends L1BlockRef {
  readonly baseFeePerGas?: bigint | undefined;
  readonly mixHash: Hash;
  readonly excessBlobGas?: bigint | undefined;
  readonly blobGasUsed?: bigint | undefined;
  readonly parentBeaconBlockRoot?: Hash | undefined;
  readonly receiptsRoot?: Hash | undefined;
}

/** An L1 transaction as far as batcher-transaction selection needs it. */
export interface L1Transaction {
  readonly hash: Hash;
  readonly type: number;
  readonly from: Address;
  readonly to: Address | null;
  readonly input: Hex;
  readonly blobVersionedHashes?: readonly Hash[] | undefined;
  /** The EIP-2718 encoding (batcher authentication recovers the sender from it). */
  readonly raw: Hex;
}

export interface L1Log {
  readonly address: Address;
  readonly topics: readonly Hash[];
  readonly data: Hex;
  /** Index of the log within the whole L1 block (deposit source hashes use it). */
  readonly logIndex: number;
}

export interface L1Receipt {
  readonly status: number;
  readonly logs: readonly L1Log[];
}

/** The shared L1 client, seen from one chain (names as `src/io/l1/l1-client.ts` uses them). */
export interface L1Source {
  l1BlockRefByLabel(label: BlockLabel): Promise<L1BlockRef>;
  /** Not found (beyond the head) → a TemporaryError with code NOT_FOUND. */
  l1BlockRefByNumber(n: number): Promise<L1BlockRef>;
  l1BlockRefByHash(hash: Hash): Promise<L1BlockRef>;
  infoByHash(hash: Hash): Promise<L1BlockInfo>;
  infoAndTxsByHash(hash: Hash): Promise<{ info: L1BlockInfo; txs: readonly L1Transaction[] }>;
  fetchReceipts(hash: Hash): Promise<{ info: L1BlockInfo; receipts: readonly L1Receipt[] }>;
  /**
   * The block's transactions sent to `to`, from an index shared by every chain: each is decoded, and its sender
   * recovered, at most once per process. Optional: without it a chain decodes `infoAndTxsByHash` itself.
   */
  txsTo?(hash: Hash, to: Address): Promise<readonly L1TxEntry[]>;
  /**
   * The block's successful receipts reduced to the logs `address` emitted (block-wide `logIndex` kept), from an
   * index shared by every chain. Optional: without it a chain filters `fetchReceipts` itself.
   */
  receiptsOf?(hash: Hash, address: Address): Promise<{ info: L1BlockInfo; receipts: readonly Receipt[] }>;
  /** Last polled head / safe / finalized (no request), when the client tracks them. */
  getLabel?(label: BlockLabel): L1BlockRef | undefined;
}

/** Blob retrieval (KZG-verified by the implementation), in the order of `hashes`. */
export interface BlobSource {
  getBlobs(ref: L1BlockRef, hashes: readonly { index: number; hash: Hash }[]): Promise<Uint8Array[]>;
}

// ----------------------------------------------------------------------------------------------------------------
// Engine API

export type * from "../protocol/engine-api-types.js";
import type {
  PayloadStatus,
  ForkchoiceState,
  ForkchoiceResult,
  ExecutionPayloadEnvelope,
  L2BlockHeader,
  SealedPayload,
  PayloadToInsert,
  HeadInsertion,
  BuildStart,
  BuildStarted,
} from "../protocol/engine-api-types.js";

/**
 * The chain's execution client as the node uses it: build a block, insert a payload, move the forkchoice, read
 * headers and payloads. Calls reach the EL in the order they are made (one serial queue per chain in the
 * implementation, src/io/engine/). How an operation travels (one request or several, the EL's own payload text sent
 * back, a predicted payload id) is the implementation's business. JSON-RPC error -38002 (invalid forkchoice state)
 * and -38003 (invalid payload attributes) are reported as errors carrying `rpcCode`.
 */
export interface ExecutionEngine {
  /** `engine_newPayload`: the EL's verdict on `payload`. */
  newPayload(payload: PayloadToInsert): Promise<PayloadStatus>;
  /** `engine_forkchoiceUpdated(state)` without attributes. */
  forkchoiceUpdated(state: ForkchoiceState): Promise<ForkchoiceResult>;
  /**
   * Inserts `payload` and makes it the head (`state.headBlockHash` is its hash): each call's outcome, never a
   * rejection (a request that failed as a whole is each element's error).
   */
  insertAsHead(payload: PayloadToInsert, state: ForkchoiceState): Promise<HeadInsertion>;
  /** Starts building a block (and inserts its parent first, when given); outcomes as {@link insertAsHead}. */
  startBuild(req: BuildStart): Promise<BuildStarted>;
  /** The payload the EL sealed under `payloadId` (`timestamp`: the block's, choosing the method version). */
  sealPayload(payloadId: Hex, timestamp: number): Promise<SealedPayload>;
  /** Undefined when the EL has no such label yet (e.g. no finalized block). */
  l2BlockRefByLabel(label: BlockLabel): Promise<L2BlockRef | undefined>;
  /** Undefined when the EL has no canonical block at `n`. */
  l2BlockRefByNumber(n: number): Promise<L2BlockRef | undefined>;
  l2BlockRefByHash(hash: Hash): Promise<L2BlockRef | undefined>;
  payloadByNumber(n: number): Promise<ExecutionPayloadEnvelope | undefined>;
  payloadByHash(hash: Hash): Promise<ExecutionPayloadEnvelope | undefined>;
  /** Several canonical blocks; each element is the block, undefined (no such block) or that element's error. */
  payloadsByNumber(ns: readonly number[]): Promise<(ExecutionPayloadEnvelope | undefined | Error)[]>;
  /**
   * The headers and transaction hashes of canonical blocks (what consolidation compares with derived attributes,
   * without their transactions); elements as in {@link payloadsByNumber}.
   */
  headersByNumber(ns: readonly number[]): Promise<(L2BlockHeader | undefined | Error)[]>;
  /** `eth_getProof(address, slots, blockHash)`; the node reads `storageHash`. */
  getProof(address: Address, slots: readonly Hash[], blockHash: Hash): Promise<{ storageHash: Hash }>;
}

// ----------------------------------------------------------------------------------------------------------------
// SafeDB, unsafe-block sink, sequencer state

export interface SafeDbPort {
  /**
   * Resolves once the store is open and verified (optional): the driver loop waits for it before its first step,
   * so a damaged store fails the chain at start (critical `SAFEDB_CORRUPT`), not the RPC read that touches it.
   */
  opened?(): Promise<void>;
  safeHeadUpdated(safeHead: BlockId, l1Head: BlockId): Promise<void>;
  /** The entry at or before `l1Number`, or undefined when none. */
  safeHeadAtL1Block(l1Number: number): Promise<{ l1Block: BlockId; safeHead: BlockId } | undefined>;
  /** Drop every entry whose L1 block number is > `l1Number` (reset). */
  truncate(l1Number: number): Promise<void>;
  /**
   * op-node `SafeHeadReset` (optional; the node falls back to `truncate`): from `newSafe`'s L1 origin upward, drop
   * the first entry whose safe L2 number ≥ `newSafe.number` and everything after it, re-recording `newSafe` under
   * that entry's key when an earlier entry exists; a reset to the L2 genesis records (L1 block 0 → genesis).
   */
  safeHeadReset?(newSafe: L2BlockRef, opts?: { isL2Genesis?: boolean; l1Block0?: BlockId }): Promise<void>;
  /** Drop every entry (EL sync start; optional, the node falls back to `truncate(-1)`). */
  clear?(): Promise<void>;
}

/**
 * Where a sequencer's freshly built blocks go (P2P gossip). `publish` hands the block over and returns at once: the
 * sequencer does not wait for it (op-node gossips asynchronously too). Signing (possibly remote) and publishing run
 * behind it, in order, and never throw back (src/p2p/publisher.ts).
 */
export interface UnsafeBlockSink {
  publish(envelope: ExecutionPayloadEnvelope): void;
}

/**
 * Unsafe payloads the chain's P2P host accepted (gossip, req-resp answers). The feed outlives node instances (a
 * restarted node subscribes again); a node takes them while it runs.
 */
export interface UnsafePayloadFeed {
  /** `take` receives every payload from now on, until the returned function is called. */
  subscribe(take: (envelope: ExecutionPayloadEnvelope) => void): () => void;
}

/**
 * Req-resp gap filling (`syncmode.req-resp`): fetch the unsafe blocks strictly between `from` and `to` (whose
 * parent hash anchors the chain) from P2P peers; they come back through the node's unsafe-payload input.
 */
export interface UnsafeGapFiller {
  requestRange(from: number, to: { readonly number: number; readonly parentHash: Hash }): void;
}

/**
 * Persisted sequencer admin state (`{"sequencerStarted": bool, "sdmPostExecOptIn": bool}` in the chain's data dir,
 * written atomically and durably): undefined = never set.
 */
export interface SequencerStateStore {
  load(): Promise<boolean | undefined>;
  save(started: boolean): Promise<void>;
  /** `admin_setSdmPostExecOptIn`'s last value. */
  loadSdmOptIn(): Promise<boolean | undefined>;
  saveSdmOptIn(on: boolean): Promise<void>;
}

/**
 * The supernode's say over a chain's safety labels once interop is active (op-supernode §2.9): the node keeps
 * deriving local-safe, but `safe` and `finalized` follow what the interop activity verified. Before activation the
 * node ignores it (local-safe = safe).
 */
export interface SuperAuthority {
  /** Whether interop rules apply to the L2 block at `timestamp`. */
  isActiveAt(timestamp: number): boolean;
  /** This chain's block in the newest verified result; undefined while nothing is verified. */
  verifiedHead(): Promise<BlockId | undefined>;
  /** This chain's block in the newest verified result whose L1 inclusion is at or below `l1Number`. */
  verifiedAtL1(l1Number: number): Promise<BlockId | undefined>;
}

export type { DeniedBlock } from "../protocol/interop/types.js";
import type { DeniedBlock } from "../protocol/interop/types.js";

/**
 * The chain's persisted deny list (`chain-<id>/denylist/`). Every write is one synchronous LevelDB write, so a
 * killed process leaves the old or the new list; reads are answered from memory (the list is small) and are only
 * meaningful once `opened()` resolved (the node waits for it before it inserts or builds anything).
 */
export interface DenyListPort {
  /** Resolves once the list is open and loaded; rejects with the classified open error (a retry opens again). */
  opened(): Promise<void>;
  /** Records `b`; false when that (height, hash) was already denied (the first record wins). Height 0 is refused. */
  add(b: DeniedBlock): Promise<boolean>;
  isDenied(height: number, hash: Hash): boolean;
  atHeight(height: number): readonly DeniedBlock[];
  /** Every record, by height then insertion. */
  all(): readonly DeniedBlock[];
  /** Removes records decided at or after `timestamp`; returns them. */
  pruneAtOrAfter(timestamp: number): Promise<DeniedBlock[]>;
  /** The height whose deposits-only replacement the sequencer waits for (persisted); undefined when none. */
  replacementHold(): number | undefined;
  /** Records (a height) or clears (undefined) that wait. */
  setReplacementHold(height: number | undefined): Promise<void>;
  /**
   * The failed write the list has not recovered from yet (a full disk: the next write opens the list again and
   * checks it); undefined when healthy. The node reports it as `degraded` while it lasts.
   */
  fault?(): Error | undefined;
}
