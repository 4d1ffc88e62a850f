import type { Hash, Hex } from "../../../../src/core/types/primitives.js";
import { computePayloadBlockHash, type ExecutionPayload } from "../../../../src/protocol/block/payload-hash.js";
import type { RollupConfig } from "../../../../src/protocol/rollup-config.js";
import type { PayloadVersion } from "../../../../src/protocol/p2p/ssz-payload.js";

export const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;

/** A payload of `version`'s shape with a correct block hash. */
export function samplePayload(
  version: PayloadVersion,
  over: Partial<ExecutionPayload> = {},
): { executionPayload: ExecutionPayload; parentBeaconBlockRoot?: Hash } {
  const base: ExecutionPayload = {
    parentHash: h(1),
    feeRecipient: "0x4200000000000000000000000000000000000011",
    stateRoot: h(2),
    receiptsRoot: h(3),
    logsBloom: `0x${"00".repeat(255)}01` as Hex,
    prevRandao: h(4),
    blockNumber: 1234,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: 1_700_000_000,
    extraData: "0x0102",
    baseFeePerGas: (1n << 200n) + 7n,
    blockHash: h(0),
    transactions: ["0x7e01020304", "0x02aabbccddeeff"],
    ...(version >= 1 ? { withdrawals: [] } : {}),
    ...(version >= 2 ? { blobGasUsed: 0n, excessBlobGas: 0n } : {}),
    ...(version >= 3 ? { withdrawalsRoot: h(9) } : {}),
    ...over,
  };
  const root = version >= 2 ? h(7) : undefined;
  const p = { ...base, blockHash: computePayloadBlockHash(base, root) };
  return root === undefined ? { executionPayload: p } : { executionPayload: p, parentBeaconBlockRoot: root };
}

/** A rollup config with every fork up to Isthmus at genesis, Jovian never. */
export function p2pRollup(over: Partial<RollupConfig> = {}): RollupConfig {
  return {
    genesis: {
      l1: { hash: h(0x11), number: 0 },
      l2: { hash: h(0x22), number: 0 },
      l2_time: 1_600_000_000,
      system_config: {
        batcherAddr: "0x0000000000000000000000000000000000000001",
        overhead: h(0),
        scalar: h(0),
        gasLimit: 30_000_000n,
        eip1559Params: "0x0000000000000000",
        operatorFeeParams: h(0),
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
    deposit_contract_address: "0x0000000000000000000000000000000000000002",
    l1_system_config_address: "0x0000000000000000000000000000000000000003",
    protocol_versions_address: "0x0000000000000000000000000000000000000004",
    ...over,
  };
}
