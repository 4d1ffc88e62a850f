/** Derived attributes for the engine-controller tests: the child of `parent` from one fixed L1 origin. */
import type { L1BlockRef, L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hex } from "../../../src/core/types/primitives.js";
import type { DerivedAttributes } from "../../../src/node/engine/engine-controller.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { fakeL1InfoTx } from "./fakes.js";
import { attributesFromHex } from "../../../src/protocol/l2/attributes.js";

/** The L1 origin every derived block of these tests has: the rollup's genesis L1 block. */
export function genesisOrigin(cfg: RollupConfig): L1BlockRef {
  return { ...cfg.genesis.l1, parentHash: cfg.genesis.l1.hash, timestamp: 0 };
}

/** Attributes of the block after `parent` (L1-info deposit + `txs`), concluding its batch. */
export function derivedChild(
  cfg: RollupConfig,
  origin: L1BlockRef,
  parent: L2BlockRef,
  txs: Hex[] = [],
): DerivedAttributes {
  const seq = parent.sequenceNumber + 1;
  return {
    attributes: attributesFromHex(
      {
        timestamp: parent.timestamp + cfg.block_time,
        prevRandao: origin.hash,
        suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
        noTxPool: true,
        gasLimit: 30_000_000n,
      },
      [fakeL1InfoTx(origin, seq), ...txs],
    ),
    parent,
    l1origin: origin,
    sequenceNumber: seq,
    concluding: true,
    derivedFrom: origin,
  };
}
