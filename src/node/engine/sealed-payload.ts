/**
 * Checks of a payload the EL has just built for the node (`getPayload` after `forkchoiceUpdated` with attributes)
 * against what the node asked for: before the node adopts it, or hands it back to the EL (newPayload) unchanged.
 */
import { hexEqualsBytes } from "../../core/codec/hex.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { ExecutionPayload, PayloadAttributes } from "../ports.js";

/**
 * Why `p` is not a block built from `attrs` on `parent`, or undefined when it is: its parent, number and timestamp,
 * and its transactions — exactly the attributes' when the pool was excluded (derivation), the attributes' first
 * (the deposits, forced) otherwise (sequencing). An EL that answers with a payload of other attributes (a stale
 * or mixed-up payload id) is caught here instead of being inserted as the derived block.
 */
export function sealedPayloadMismatch(
  attrs: PayloadAttributes,
  parent: L2BlockRef,
  p: ExecutionPayload,
): string | undefined {
  if (p.parentHash.toLowerCase() !== parent.hash.toLowerCase()) return `parent ${p.parentHash}, wanted ${parent.hash}`;
  if (p.blockNumber !== parent.number + 1) return `number ${p.blockNumber}, wanted ${parent.number + 1}`;
  if (p.timestamp !== attrs.fields.timestamp) return `timestamp ${p.timestamp}, wanted ${attrs.fields.timestamp}`;
  const want = attrs.txBytes;
  const got = p.transactions;
  if (attrs.fields.noTxPool ? got.length !== want.length : got.length < want.length) {
    return `${got.length} transactions for ${want.length} in the attributes`;
  }
  for (let i = 0; i < want.length; i++) {
    if (!hexEqualsBytes(got[i]!, want[i]!)) return `transaction ${i} differs from the attributes'`;
  }
  return undefined;
}
