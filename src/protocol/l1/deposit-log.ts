import { bytesToHex, concatBytes, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash } from "../../core/types/primitives.js";
import type { Log, Receipt } from "../block/receipt.js";
import { bytesToBigint, uintToBytes } from "../block/rlp.js";
import type { DepositTx } from "../l2/deposit-tx.js";
import { userDepositSourceHash } from "./source-hash.js";

/** keccak256("TransactionDeposited(address,address,uint256,bytes)"). */
export const DEPOSIT_EVENT_TOPIC: Hash = "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32";
export const DEPOSIT_EVENT_VERSION_0 = 0n;

const U64_MAX = (1n << 64n) - 1n;

function padWord(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

function topicAddress(topic: Hash, what: string): Address {
  const b = hexToBytes(topic);
  if (b.length !== 32) throw new DecodeError(`deposit log: ${what} topic must be 32 bytes`);
  return bytesToHex(b.subarray(12));
}

/**
 * Decodes the opaque data of a version-0 deposit: `mint(32) ‖ value(32) ‖ gas(8) ‖ isCreation(1) ‖ data`.
 */
export function decodeOpaqueDepositData(opaque: Uint8Array): {
  mint: bigint;
  value: bigint;
  gas: bigint;
  isCreation: boolean;
  data: Uint8Array;
} {
  if (opaque.length < 73) throw new DecodeError(`deposit opaque data too short: ${opaque.length} < 73`);
  return {
    mint: bytesToBigint(opaque.subarray(0, 32)),
    value: bytesToBigint(opaque.subarray(32, 64)),
    gas: bytesToBigint(opaque.subarray(64, 72)),
    isCreation: opaque[72] !== 0,
    data: opaque.slice(73),
  };
}

/** Encodes the version-0 opaque data of a deposit. */
export function encodeOpaqueDepositData(d: {
  mint: bigint;
  value: bigint;
  gas: bigint;
  isCreation: boolean;
  data: Uint8Array;
}): Uint8Array {
  const gas = new Uint8Array(8);
  const g = uintToBytes(d.gas);
  if (g.length > 8) throw new DecodeError("deposit gas exceeds uint64");
  gas.set(g, 8 - g.length);
  return concatBytes(
    padWord(uintToBytes(d.mint)),
    padWord(uintToBytes(d.value)),
    gas,
    Uint8Array.of(d.isCreation ? 1 : 0),
    d.data,
  );
}

/**
 * Turns a `TransactionDeposited` log into a deposit transaction. `logIndex` is the index of the log within
 * its whole L1 block. Throws DecodeError on any malformed log.
 */
export function depositFromLog(log: Log, l1BlockHash: Hash, logIndex: number): DepositTx {
  if (log.topics.length !== 4) throw new DecodeError(`deposit log: expected 4 topics, got ${log.topics.length}`);
  if (log.topics[0]?.toLowerCase() !== DEPOSIT_EVENT_TOPIC) throw new DecodeError("deposit log: wrong event topic");
  const from = topicAddress(log.topics[1] as Hash, "from");
  const to = topicAddress(log.topics[2] as Hash, "to");
  const version = bytesToBigint(hexToBytes(log.topics[3] as Hash));
  if (version !== DEPOSIT_EVENT_VERSION_0) throw new DecodeError(`deposit log: unsupported version ${version}`);
  const data = hexToBytes(log.data);
  if (data.length < 64 || data.length % 32 !== 0)
    throw new DecodeError(`deposit log: data length ${data.length} not ≥ 64 and a multiple of 32`);
  const offset = bytesToBigint(data.subarray(0, 32));
  if (offset !== 32n) throw new DecodeError(`deposit log: opaque offset ${offset} ≠ 32`);
  const len = bytesToBigint(data.subarray(32, 64));
  if (len > U64_MAX) throw new DecodeError("deposit log: opaque length exceeds uint64");
  const body = data.length - 64;
  if (len > BigInt(body)) throw new DecodeError("deposit log: opaque length exceeds data");
  const l = Number(len);
  if (l + 32 <= body) throw new DecodeError("deposit log: excess padding");
  // Like op-node, the padding bytes themselves are not inspected.
  const op = decodeOpaqueDepositData(data.subarray(64, 64 + l));
  return {
    sourceHash: userDepositSourceHash(l1BlockHash, logIndex),
    from,
    to: op.isCreation ? null : to,
    mint: op.mint,
    value: op.value,
    gas: op.gas,
    isSystemTx: false,
    data: bytesToHex(op.data),
  };
}

/** Builds the `TransactionDeposited` log a portal would emit for a deposit (devnet and tests). */
export function depositToLog(
  portal: Address,
  d: { from: Address; to: Address | null; mint: bigint; value: bigint; gas: bigint; data: Uint8Array },
): Log {
  const opaque = encodeOpaqueDepositData({ ...d, isCreation: d.to === null });
  const padded = new Uint8Array(Math.ceil(opaque.length / 32) * 32);
  padded.set(opaque);
  const addrTopic = (a: Address): Hash => bytesToHex(padWord(hexToBytes(a)));
  return {
    address: portal,
    topics: [
      DEPOSIT_EVENT_TOPIC,
      addrTopic(d.from),
      addrTopic(d.to ?? "0x0000000000000000000000000000000000000000"),
      bytesToHex(new Uint8Array(32)),
    ],
    data: bytesToHex(concatBytes(padWord(uintToBytes(32)), padWord(uintToBytes(opaque.length)), padded)),
  };
}

/**
 * The user deposits of an L1 block, in order: logs of successful receipts emitted by the deposit contract
 * with the `TransactionDeposited` topic. Log indices count every log of the block. Throws DecodeError
 * when any matching log is malformed (the whole block is then invalid).
 */
export function userDepositsFromReceipts(
  receipts: readonly Receipt[],
  depositContract: Address,
  l1BlockHash: Hash,
): DepositTx[] {
  const out: DepositTx[] = [];
  const contract = depositContract.toLowerCase();
  let index = 0;
  for (const r of receipts) {
    for (const log of r.logs) {
      const logIndex = log.logIndex ?? index;
      index++;
      if (r.status !== 1) continue;
      if (log.address.toLowerCase() !== contract) continue;
      if (log.topics[0]?.toLowerCase() !== DEPOSIT_EVENT_TOPIC) continue;
      try {
        out.push(depositFromLog(log, l1BlockHash, logIndex));
      } catch (e) {
        if (e instanceof DecodeError) throw new DecodeError(`malformed deposit log ${logIndex}: ${e.message}`, {}, e);
        throw e;
      }
    }
  }
  return out;
}
