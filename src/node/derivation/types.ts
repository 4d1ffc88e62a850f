/** The contract between the node's driver and its derivation pipeline (op-node §2.0). */
import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import type { DerivedAttributes } from "../engine/engine-controller.js";
import type { Hex } from "../../core/types/primitives.js";
import type { PayloadAttributes } from "../ports.js";

/**
 * One pipeline step:
 * - `attributes`: the next derived block on top of the given pending-safe head;
 * - `progress`: the pipeline moved (read data, advanced its L1 origin); call again now;
 * - `eof`: no more L1 data for now (idle; try later).
 */
export type StepResult =
  | { readonly kind: "attributes"; readonly attrs: DerivedAttributes }
  | { readonly kind: "progress" }
  | { readonly kind: "eof" };

export interface DerivationPipeline {
  /** L1 block the pipeline is reading (sync status `current_l1`). */
  readonly origin: L1BlockRef;
  step(pendingSafe: L2BlockRef): Promise<StepResult>;
  /** Resets every stage to re-derive on top of `safeHead` (walks back one channel timeout for open channels). */
  reset(safeHead: L2BlockRef): Promise<void>;
  /**
   * Holocene: the last attributes were invalid; returns deposits-only attributes for the same parent and flushes
   * the channel stages. Pre-Holocene: drops the batch (returns undefined). `denied` (interop: the block they build
   * is on the deny list): deposits-only and flushed whatever the fork, as op-node's `DepositsOnlyAttributes`, so
   * the rest of the denied block's span batch is not derived on top of its replacement.
   */
  invalidated(last: DerivedAttributes, denied?: boolean): DerivedAttributes | undefined;
}

/** Payload attributes for the next block on `parent` with L1 origin `epoch` (shared by derivation and sequencer). */
export interface AttributesBuilder {
  /**
   * `batchTransactions` (derivation): the batch's transactions, appended after the deposits, so that the derived
   * block's attributes are made once (docs/performance.md); the sequencer gives none.
   */
  prepare(
    parent: L2BlockRef,
    epoch: BlockId,
    batchTransactions?: readonly (Uint8Array | Hex)[],
  ): Promise<PreparedAttributes>;
}

/** The attributes of the next block with the L1 origin and sequence number they were made for. */
export interface PreparedAttributes {
  readonly attributes: PayloadAttributes;
  readonly l1origin: L1BlockRef;
  readonly sequenceNumber: number;
}
