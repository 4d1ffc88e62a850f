import type { ChainBlockAt, OutputV0 } from "../activities/ports.js";
import type { SyncStatus } from "../core/types/block-ref.js";
import type { Hash } from "../core/types/primitives.js";
import type { NodeHealth } from "../node/health.js";
import type { InteropChain } from "../activities/interop/ports.js";
import type { MethodTable } from "../rpc/method-table.js";

/** What the interop activity reaches through a running chain instance (see `InteropChain`). */
export type ChainInteropAccess = Pick<
  InteropChain,
  "blockLogs" | "blockLogsAt" | "payloadByHash" | "invalidate" | "rewindEngine" | "pruneDenied"
>;

/**
 * One running instance of a chain's virtual node, as the supervisor sees it. A fresh instance is made for every
 * (re)start, so an instance never has to be restartable itself.
 */
export interface ChainService {
  /** Starts the chain; resolves once it is serving (rejects if it cannot start). */
  start(signal: AbortSignal): Promise<void>;
  /** Settles when the instance ends on its own: resolves on an orderly end, rejects with the failure. */
  readonly exited: Promise<void>;
  /** Stops the instance and waits until it has stopped (idempotent). */
  stop(): Promise<void>;
  /** Current sync status (throws if not available). */
  syncStatus(): Promise<SyncStatus>;
  /** The local-safe block at `timestamp` with its output and L1 inclusion; undefined when not available yet. */
  blockAtTimestamp(timestamp: number): Promise<ChainBlockAt | undefined>;
  /** The output of the block with this hash, read by hash; undefined when the execution client lacks the block. */
  outputAtHash(hash: Hash): Promise<OutputV0 | undefined>;
  /** The output of the block last denied (invalidated and replaced) at `height`; undefined when none was. */
  deniedOutputAt(height: number): OutputV0 | undefined;
  /**
   * The timestamp of the safe head in the chain's oldest SafeDB entry (the first block whose L1 inclusion is
   * known), or undefined while the SafeDB is empty.
   */
  firstSafeTimestamp(): Promise<number | undefined>;
  /** The node's own view of its health (errors, progress); read by the supervisor every health check. */
  health(): NodeHealth;
  /** What the interop activity needs from a running instance (absent in test fakes without interop). */
  readonly interop?: ChainInteropAccess;
  /** The chain's JSON-RPC methods served at `/<chainID>/` while this instance runs. */
  readonly methods: MethodTable;
}

/** Makes a new instance for attempt `attempt` (1 for the first start). */
export type ChainServiceFactory = (attempt: number) => Promise<ChainService>;
