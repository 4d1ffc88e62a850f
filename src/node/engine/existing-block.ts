/**
 * A block the EL already has, as consolidation reads it: ahead, its header with the hashes of its transactions (no
 * transaction crosses the wire or is re-encoded); on a mismatch, its whole payload (consolidator.ts).
 */
import type { BlockId, L2BlockRef } from "../../core/types/block-ref.js";
import type { Hex } from "../../core/types/primitives.js";
import { l2BlockRef } from "../../protocol/l2/block-ref.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { ExecutionEngine, ExecutionPayloadEnvelope, L2BlockHeader } from "../ports.js";
import { type AttributesTxHashes, attributesMatchBlock, attributesMatchHeader } from "./attributes-match.js";
import type { LookaheadSource } from "./block-lookahead.js";

export type ExistingBlock = { readonly header: L2BlockHeader } | { readonly envelope: ExecutionPayloadEnvelope };

/** How the look-ahead reads existing blocks from `engine`: headers, in batches. */
export function existingBlockSource(engine: ExecutionEngine): LookaheadSource<ExistingBlock> {
  const many = async (ns: readonly number[]) =>
    (await engine.headersByNumber(ns)).map((r) => (r === undefined || r instanceof Error ? r : { header: r }));
  return {
    names: { one: "headerByNumber", many: "headersByNumber" },
    async one(n) {
      const [r] = await many([n]);
      if (r instanceof Error) throw r;
      return r;
    },
    many,
  };
}

/**
 * The ref of an existing block that matched derived attributes. A header matched transaction by transaction
 * hash, the L1-info deposit included, so its L1 origin and sequence number are the attributes' own; a payload's
 * are read from its deposit.
 */
export function existingBlockRef(
  b: ExistingBlock,
  d: { readonly l1origin: BlockId; readonly sequenceNumber: number },
  refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef,
): L2BlockRef {
  if (!("header" in b)) return refFromPayload(b.envelope);
  const h = b.header;
  return l2BlockRef(h.blockHash, h.blockNumber, h.parentHash, h.timestamp, d.l1origin, d.sequenceNumber);
}

/**
 * `AttributesMatchBlock` against an existing block as it was read: by transaction hash for a header, byte for byte
 * for a whole payload. Undefined on a match, else the reason.
 */
export function matchExisting(
  cfg: RollupConfig,
  hashes: AttributesTxHashes,
  parentHash: Hex,
  b: ExistingBlock,
): string | undefined {
  return "header" in b
    ? attributesMatchHeader(cfg, hashes, parentHash, b.header)
    : attributesMatchBlock(cfg, hashes.attrs, parentHash, b.envelope);
}
