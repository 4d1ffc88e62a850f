/** Deterministic test fixtures for the derivation codecs: rollup config, L1/L2 refs and signed-looking txs. */
import { type Hex, serializeTransaction } from "viem";
import { hexToBytes } from "../../../../src/core/codec/hex.js";
import type { L1BlockRef, L2BlockRef } from "../../../../src/core/types/block-ref.js";
import type { Hash } from "../../../../src/core/types/primitives.js";
import type { RollupConfig } from "../../../../src/protocol/rollup-config.js";

export const CHAIN_ID = 901n;

export type ConfigOverrides = { [K in keyof RollupConfig]?: RollupConfig[K] | undefined };

/** A test rollup config; an override of `undefined` removes the field (e.g. an unscheduled fork). */
export function makeConfig(overrides: ConfigOverrides = {}): RollupConfig {
  const cfg: Record<string, unknown> = {
    genesis: {
      l1: { hash: hash(1000), number: 0 },
      l2: { hash: hash(2000), number: 0 },
      l2_time: 1_000_000,
      system_config: {
        batcherAddr: `0x${"aa".repeat(20)}`,
        overhead: `0x${"00".repeat(32)}`,
        scalar: `0x${"00".repeat(32)}`,
        gasLimit: 30_000_000n,
        eip1559Params: "0x0000000000000000",
        operatorFeeParams: `0x${"00".repeat(32)}`,
        minBaseFee: 0n,
        daFootprintGasScalar: 0,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 10,
    channel_timeout: 30,
    l1_chain_id: 900n,
    l2_chain_id: CHAIN_ID,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    batch_inbox_address: `0x${"ff".repeat(20)}`,
    deposit_contract_address: `0x${"01".repeat(20)}`,
    l1_system_config_address: `0x${"02".repeat(20)}`,
    protocol_versions_address: `0x${"03".repeat(20)}`,
    ...overrides,
  };
  for (const [k, v] of Object.entries(cfg)) if (v === undefined) delete cfg[k];
  return cfg as unknown as RollupConfig;
}

/** A deterministic 32-byte hash from a seed. */
export function hash(seed: number): Hash {
  return `0x${seed.toString(16).padStart(8, "0").repeat(8)}`;
}

export function l1(number: number, timestamp = 1_000_000 + number * 12): L1BlockRef {
  return { hash: hash(0x10000000 + number), number, parentHash: hash(0x10000000 + number - 1), timestamp };
}

export function l2(number: number, origin: L1BlockRef, seq: number, timestamp: number): L2BlockRef {
  return {
    hash: hash(0x20000000 + number),
    number,
    parentHash: hash(0x20000000 + number - 1),
    timestamp,
    l1origin: { hash: origin.hash, number: origin.number },
    sequenceNumber: seq,
  };
}

const word = (seed: number): Hex =>
  `0x${(seed * 2654435761).toString(16).padStart(8, "0").repeat(8)}`.slice(0, 66) as Hex;

/** A transaction of the given kind with a deterministic (not cryptographically valid) signature. */
export function makeTx(
  kind: "legacy" | "legacy-unprotected" | "eip2930" | "eip1559" | "eip7702" | "create",
  seed: number,
  chainId = CHAIN_ID,
): Uint8Array {
  const to: Hex = `0x${(seed % 256).toString(16).padStart(2, "0").repeat(20)}`;
  const yParity = seed % 2;
  const sig = { r: word(seed + 1), s: word(seed + 2), yParity };
  const data: Hex = `0x${"ab".repeat(seed % 50)}`;
  const accessList = [{ address: to, storageKeys: [word(seed + 3)] }];
  let hex: Hex;
  switch (kind) {
    case "legacy":
      hex = serializeTransaction(
        { type: "legacy", chainId: Number(chainId), nonce: seed, gasPrice: 1_000_000_000n, gas: 21000n, to, data },
        { ...sig, v: chainId * 2n + 35n + BigInt(yParity) },
      );
      break;
    case "legacy-unprotected":
      hex = serializeTransaction(
        { type: "legacy", nonce: seed, gasPrice: 7n, gas: 50_000n, to, value: 5n, data },
        { r: sig.r, s: sig.s, v: 27n + BigInt(yParity) },
      );
      break;
    case "eip2930":
      hex = serializeTransaction(
        { type: "eip2930", chainId: Number(chainId), nonce: seed, gasPrice: 3n, gas: 60_000n, to, accessList, data },
        sig,
      );
      break;
    case "eip1559":
      hex = serializeTransaction(
        {
          type: "eip1559",
          chainId: Number(chainId),
          nonce: seed,
          maxFeePerGas: 2_000_000_000n + BigInt(seed),
          maxPriorityFeePerGas: 1_000_000n,
          gas: 100_000n,
          to,
          value: 10n ** 18n,
          data,
          ...(seed % 3 === 0 ? { accessList } : {}),
        },
        sig,
      );
      break;
    case "create":
      hex = serializeTransaction(
        {
          type: "eip1559",
          chainId: Number(chainId),
          nonce: seed,
          maxFeePerGas: 9n,
          maxPriorityFeePerGas: 1n,
          gas: 500_000n,
          data: "0x6001600155",
        },
        sig,
      );
      break;
    case "eip7702":
      hex = serializeTransaction(
        {
          type: "eip7702",
          chainId: Number(chainId),
          nonce: seed,
          maxFeePerGas: 9n,
          maxPriorityFeePerGas: 1n,
          gas: 80_000n,
          to,
          authorizationList: [
            {
              chainId: Number(chainId),
              address: to,
              nonce: seed + 1,
              yParity: 1,
              r: word(seed + 5),
              s: word(seed + 6),
            },
          ],
        },
        sig,
      );
      break;
  }
  return hexToBytes(hex);
}

export const ALL_KINDS = ["legacy", "legacy-unprotected", "eip2930", "eip1559", "eip7702", "create"] as const;
