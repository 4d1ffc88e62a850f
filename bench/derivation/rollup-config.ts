/**
 * The rollup config of the derivation benches (`derivation`, `engine-build`): one chain (901 on L1 900) with every
 * fork up to Isthmus active at genesis, 2-s blocks, the batch inbox and deposit contract at fixed addresses.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { type Address, bytesToHex, type Hash, ZERO_HASH } from "supernode/core";
import type { RollupConfig } from "supernode/protocol";

export const GENESIS_TIME = 1_700_000_000;

/** A deterministic 32-byte hash named by `s`. */
export const benchHash = (s: string): Hash => bytesToHex(keccak_256(new TextEncoder().encode(s)));

export function benchRollupConfig(genesisHash: Hash, batcher: Address): RollupConfig {
  return {
    genesis: {
      l1: { hash: benchHash("l1-0"), number: 0 },
      l2: { hash: genesisHash, number: 0 },
      l2_time: GENESIS_TIME,
      system_config: {
        batcherAddr: batcher,
        overhead: ZERO_HASH,
        scalar: `0x01${"00".repeat(23)}0000000000000001`,
        gasLimit: 30_000_000n,
        eip1559Params: "0x0000000000000000",
        operatorFeeParams: ZERO_HASH,
        minBaseFee: 0n,
        daFootprintGasScalar: 0,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 3600,
    channel_timeout: 300,
    l1_chain_id: 900n,
    l2_chain_id: 901n,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ecotone_time: 0,
    fjord_time: 0,
    granite_time: 0,
    holocene_time: 0,
    isthmus_time: 0,
    batch_inbox_address: "0xff00000000000000000000000000000000000901",
    deposit_contract_address: "0x00000000000000000000000000000000000000d0",
    l1_system_config_address: "0x00000000000000000000000000000000000000c0",
    protocol_versions_address: "0x0000000000000000000000000000000000000000",
    chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
  };
}
