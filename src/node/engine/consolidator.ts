/**
 * Consolidation (op-node §2.12.3): derived attributes on top of the pending-safe head, when the EL already has a
 * block at that height (pending-safe behind unsafe), are checked against that block instead of building one. The
 * EL's blocks are read ahead in batches while a long run of them consolidates (catch-up), as headers with their
 * transaction hashes (existing-block.ts); a read-ahead block that does not match is
 * decided again on a fresh read of the whole block, compared byte for byte (docs/performance.md).
 */
import type { Logger } from "../../core/logger.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { ExecutionEngine, ExecutionPayloadEnvelope } from "../ports.js";
import { AttributesTxHashes } from "./attributes-match.js";
import { BlockLookahead } from "./block-lookahead.js";
import type { DerivedAttributes } from "./derived-attributes.js";
import { type ExistingBlock, existingBlockRef, existingBlockSource, matchExisting } from "./existing-block.js";

type Timed = <T>(method: string, fn: () => Promise<T>) => Promise<T>;

export interface ConsolidatorDeps {
  readonly engine: ExecutionEngine;
  readonly cfg: RollupConfig;
  readonly logger: Logger;
  /** L2 block ref of an execution payload (decodes the L1-info deposit). */
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
  /** Interop deny list: a denied block never consolidates (the derived block is built instead). */
  readonly isDenied?: ((height: number, hash: Hash) => boolean) | undefined;
  /** Engine latency metrics around each read. */
  readonly timed: Timed;
}

export class Consolidator {
  private readonly d: ConsolidatorDeps;
  /** Blocks the EL already has, fetched ahead while consolidating a long run of them. */
  private readonly lookahead: BlockLookahead<ExistingBlock>;

  constructor(deps: ConsolidatorDeps) {
    this.d = deps;
    this.lookahead = new BlockLookahead(existingBlockSource(deps.engine), deps.timed);
  }

  /** Forgets the look-ahead: the EL's canonical chain may change under it (a build, an insertion, a reset). */
  drop(): void {
    this.lookahead.drop();
  }

  /**
   * The EL's block after `parent` (which is below the unsafe head, number `unsafe`) checked against `d`: its ref
   * when it matches; undefined when the EL has no block there or a different one (an L2 reorg, or a denied block:
   * the caller builds the derived block).
   */
  async consolidate(d: DerivedAttributes, parent: L2BlockRef, unsafe: number): Promise<L2BlockRef | undefined> {
    const n = parent.number + 1;
    const hashes = new AttributesTxHashes(d.attributes);
    let existing = await this.lookahead.get(n, unsafe);
    let mismatch = existing === undefined ? undefined : matchExisting(this.d.cfg, hashes, parent.hash, existing);
    if (mismatch !== undefined) {
      // A prefetched block may be stale, and a header's transaction hashes are the EL's word: decide on a fresh
      // read of the whole block, its transactions compared byte for byte.
      this.lookahead.drop();
      const env = await this.d.timed("payloadByNumber", () => this.d.engine.payloadByNumber(n));
      existing = env === undefined ? undefined : { envelope: env };
      mismatch = existing === undefined ? undefined : matchExisting(this.d.cfg, hashes, parent.hash, existing);
    }
    if (existing === undefined) return undefined;
    const at = "header" in existing ? existing.header : existing.envelope.executionPayload;
    if (this.d.isDenied?.(at.blockNumber, at.blockHash)) mismatch = "denied";
    if (mismatch === undefined) return existingBlockRef(existing, d, this.d.refFromPayload);
    this.d.logger.warn(
      { number: n, reason: mismatch },
      "L2 reorg: derived attributes differ from the unsafe block; building the derived block",
    );
    return undefined;
  }
}
