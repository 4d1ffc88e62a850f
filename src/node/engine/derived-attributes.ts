import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { PayloadAttributes } from "../ports.js";

/** Derived payload attributes handed from the pipeline to the engine (op-node AttributesWithParent). */
export interface DerivedAttributes {
  readonly attributes: PayloadAttributes;
  readonly parent: L2BlockRef;
  /** L1 origin (epoch) and sequence number of the block these attributes build. */
  readonly l1origin: BlockId;
  readonly sequenceNumber: number;
  /** Last block of its batch (span batches conclude on their last element). */
  readonly concluding: boolean;
  /** L1 block the attributes were derived from (the traversal origin). */
  readonly derivedFrom: L1BlockRef;
  /** Only deposits (a Holocene replacement): a failure here is critical. */
  readonly depositsOnly?: boolean;
}

/** "denied": the attributes produce a payload on the deny list; the caller builds the deposits-only replacement. */
export type ApplyResult = "consolidated" | "built" | "invalid" | "denied";
