import { bytesToHex, concatBytes, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import type { Log, Receipt } from "../block/receipt.js";
import { bytesToBigint, uintToBytes } from "../block/rlp.js";
import type { SystemConfig } from "../rollup-config.js";
import { isValidEcotoneScalar } from "./fee-scalars.js";

/** keccak256("ConfigUpdate(uint256,uint8,bytes)"). */
export const CONFIG_UPDATE_TOPIC: Hash = "0x1d2b0bda21d56b8bd12d4f94ebacffdfb35f5e226f84b461103bb8beab6353be";

/** SystemConfig update types (topic 2 of `ConfigUpdate`). */
export const ConfigUpdateType = {
  Batcher: 0,
  FeeScalars: 1,
  GasLimit: 2,
  UnsafeBlockSigner: 3,
  Eip1559Params: 4,
  OperatorFee: 5,
  MinBaseFee: 6,
  DaFootprintGasScalar: 7,
} as const;

const ZERO32: Hash = `0x${"00".repeat(32)}`;

function word(b: Uint8Array, i: number): Uint8Array {
  return b.subarray(i * 32, i * 32 + 32);
}

function zeroPrefix(b: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (b[i] !== 0) return false;
  return true;
}

/**
 * Applies one `ConfigUpdate` log to `cfg`. `ecotoneActive` is whether Ecotone is active at the log's L1
 * block time (it changes the fee-scalar rule). Returns the new config (the unsafe-block-signer update leaves
 * it unchanged). Throws DecodeError on any malformed log; callers skip such logs.
 */
export function applyConfigUpdateLog(cfg: SystemConfig, log: Log, ecotoneActive: boolean): SystemConfig {
  if (log.topics.length !== 3) throw new DecodeError(`config update: expected 3 topics, got ${log.topics.length}`);
  if (log.topics[0]?.toLowerCase() !== CONFIG_UPDATE_TOPIC) throw new DecodeError("config update: wrong topic");
  const version = hexToBytes(log.topics[1] as Hash);
  if (version.length !== 32 || !zeroPrefix(version, 32)) throw new DecodeError("config update: unsupported version");
  const typeWord = hexToBytes(log.topics[2] as Hash);
  if (typeWord.length !== 32) throw new DecodeError("config update: bad type topic");
  const updateType = bytesToBigint(typeWord);
  const data = hexToBytes(log.data);
  if (data.length < 64 || data.length % 32 !== 0) throw new DecodeError("config update: bad data length");
  if (bytesToBigint(word(data, 0)) !== 32n) throw new DecodeError("config update: bad offset");
  const len = bytesToBigint(word(data, 1));
  const payload = data.subarray(64);
  const expect = (n: number): void => {
    if (len !== BigInt(n) || payload.length !== n)
      throw new DecodeError(`config update type ${updateType}: expected ${n} bytes`);
  };
  switch (updateType) {
    case 0n: {
      expect(32);
      if (!zeroPrefix(payload, 12)) throw new DecodeError("config update: batcher address not left-padded");
      return { ...cfg, batcherAddr: bytesToHex(payload.subarray(12)) as Address };
    }
    case 1n: {
      expect(64);
      const overhead = bytesToHex(word(payload, 0));
      const scalar = bytesToHex(word(payload, 1));
      if (!ecotoneActive) return { ...cfg, overhead, scalar };
      if (!isValidEcotoneScalar(scalar)) throw new DecodeError("config update: invalid ecotone scalar");
      return { ...cfg, overhead: ZERO32, scalar };
    }
    case 2n: {
      expect(32);
      if (!zeroPrefix(payload, 24)) throw new DecodeError("config update: gas limit exceeds uint64");
      return { ...cfg, gasLimit: bytesToBigint(payload) };
    }
    case 3n:
      return cfg;
    case 4n: {
      expect(32);
      // Like op-node: the whole word is read, only its last 8 bytes are used (no padding check).
      const p = payload.subarray(24);
      const denominator = new DataView(p.buffer, p.byteOffset, 8).getUint32(0);
      const elasticity = new DataView(p.buffer, p.byteOffset, 8).getUint32(4);
      if (denominator === 0 && elasticity !== 0) throw new DecodeError("config update: zero denominator");
      return { ...cfg, eip1559Params: bytesToHex(p) as Hex };
    }
    case 5n: {
      expect(32);
      // Stored as the whole word (op-node reads no padding); scalar [20,24), constant [24,32).
      return { ...cfg, operatorFeeParams: bytesToHex(payload) };
    }
    case 6n: {
      expect(32);
      if (!zeroPrefix(payload, 24)) throw new DecodeError("config update: min base fee exceeds uint64");
      return { ...cfg, minBaseFee: bytesToBigint(payload) };
    }
    case 7n: {
      expect(32);
      if (!zeroPrefix(payload, 30)) throw new DecodeError("config update: DA footprint scalar exceeds uint16");
      return { ...cfg, daFootprintGasScalar: Number(bytesToBigint(payload)) };
    }
    default:
      throw new DecodeError(`config update: unknown type ${updateType}`);
  }
}

/** A skipped malformed update (for logging by the caller). */
export interface SkippedConfigUpdate {
  readonly logIndex: number;
  readonly error: DecodeError;
}

/**
 * Applies every `ConfigUpdate` log of an L1 block's receipts (successful receipts, logs from the
 * SystemConfig contract) in order. Malformed updates are skipped and reported.
 */
export function applySystemConfigReceipts(
  cfg: SystemConfig,
  receipts: readonly Receipt[],
  systemConfigAddress: Address,
  ecotoneActive: boolean,
): { config: SystemConfig; skipped: SkippedConfigUpdate[] } {
  const addr = systemConfigAddress.toLowerCase();
  const skipped: SkippedConfigUpdate[] = [];
  let config = cfg;
  let index = 0;
  for (const r of receipts) {
    for (const log of r.logs) {
      const logIndex = log.logIndex ?? index;
      index++;
      if (r.status !== 1 || log.address.toLowerCase() !== addr) continue;
      if (log.topics[0]?.toLowerCase() !== CONFIG_UPDATE_TOPIC) continue;
      try {
        config = applyConfigUpdateLog(config, log, ecotoneActive);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        skipped.push({ logIndex, error: e });
      }
    }
  }
  return { config, skipped };
}

/** Builds a `ConfigUpdate` log (devnet and tests). `payload` is the raw update bytes. */
export function configUpdateLog(systemConfigAddress: Address, updateType: number, payload: Uint8Array): Log {
  const w = (v: bigint | number): Uint8Array => {
    const b = uintToBytes(v);
    const out = new Uint8Array(32);
    out.set(b, 32 - b.length);
    return out;
  };
  const padded = new Uint8Array(Math.ceil(payload.length / 32) * 32);
  padded.set(payload);
  return {
    address: systemConfigAddress,
    topics: [CONFIG_UPDATE_TOPIC, bytesToHex(w(0)), bytesToHex(w(updateType))],
    data: bytesToHex(concatBytes(w(32), w(payload.length), padded)),
  };
}
