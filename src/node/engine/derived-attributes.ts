import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { PayloadAttributes } from "../ports.js";
import type { TransactionBytes } from "./attributes-match.js";

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
  /**
   * The bytes of `attributes.transactions` where derivation still has them (batch transactions), so that
   * consolidation hashes them without decoding hex again; used only while `of` is that very array.
   */
  readonly transactionBytes?: TransactionBytes | undefined;
}

/** "denied": the attributes produce a payload on the deny list; the caller builds the deposits-only replacement. */
export type ApplyResult = "consolidated" | "built" | "invalid" | "denied";
