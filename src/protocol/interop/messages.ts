import { bytesToHex, concatBytes, hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, ChainId, Hash, Hex } from "../../core/types/primitives.js";
import { keccak, keccakHex } from "../block/keccak.js";
import type { Log } from "../block/receipt.js";

/** The CrossL2Inbox predeploy: the only emitter of executing messages. */
export const CROSS_L2_INBOX: Address = "0x4200000000000000000000000000000000000022";

/** The ExecutingMessage event signature and its topic0. */
export const EXECUTING_MESSAGE_SIGNATURE = "ExecutingMessage(bytes32,(address,uint256,uint256,uint256,uint256))";
export const EXECUTING_MESSAGE_TOPIC: Hash = keccakHex(new TextEncoder().encode(EXECUTING_MESSAGE_SIGNATURE));

/** Where an initiating message (a log) lives: the CrossL2Inbox `Identifier` struct. */
export interface MessageIdentifier {
  readonly origin: Address;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly timestamp: number;
  readonly chainId: ChainId;
}

/** A decoded ExecutingMessage event: the identifier and the hash of the initiating log's payload. */
export interface ExecutingMessage {
  readonly id: MessageIdentifier;
  readonly payloadHash: Hash;
}

export type DecodedLog =
  | { readonly kind: "plain" }
  | { readonly kind: "executing"; readonly message: ExecutingMessage }
  /** Emitted by the inbox with the ExecutingMessage topic but not decodable: an invalid executing message. */
  | { readonly kind: "malformed"; readonly reason: string };

function allZero(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}

function word(b: Uint8Array, i: number): Uint8Array {
  return b.subarray(i * 32, i * 32 + 32);
}

/** Big-endian unsigned integer of a 32-byte word whose value must fit `bytes` (4 or 8) bytes (else undefined). */
function uintOf(w: Uint8Array, bytes: 4 | 8): number | undefined {
  if (!allZero(w, 0, 32 - bytes)) return undefined;
  const dv = new DataView(w.buffer, w.byteOffset, 32);
  if (bytes === 4) return dv.getUint32(28);
  const v = dv.getBigUint64(24);
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : undefined;
}

/**
 * Classifies one log. An executing message is a log of the CrossL2Inbox with exactly two topics (the event topic,
 * the payload hash) and 160 bytes of data; other data under that event is "malformed" (the block is invalid): origin (address, left-padded), block number (uint64), log index
 * (uint32), timestamp (uint64), chain ID (uint256), each one ABI word.
 */
export function decodeLog(log: Log): DecodedLog {
  // Quick reject on the last two characters ("22") before comparing the whole address.
  const a = log.address;
  if (a.charCodeAt(a.length - 1) !== 50 || a.charCodeAt(a.length - 2) !== 50) return { kind: "plain" };
  if (a.toLowerCase() !== CROSS_L2_INBOX) return { kind: "plain" };
  // Another topic count is not this event (as upstream): a plain log.
  if (log.topics.length !== 2 || log.topics[0]?.toLowerCase() !== EXECUTING_MESSAGE_TOPIC) return { kind: "plain" };
  const data = hexToBytes(log.data);
  if (data.length !== 160) return { kind: "malformed", reason: `expected 160 bytes of data, got ${data.length}` };
  const originWord = word(data, 0);
  if (!allZero(originWord, 0, 12)) return { kind: "malformed", reason: "origin is not an address" };
  const blockNumber = uintOf(word(data, 1), 8);
  if (blockNumber === undefined) return { kind: "malformed", reason: "block number does not fit uint64" };
  const logIndex = uintOf(word(data, 2), 4);
  if (logIndex === undefined) return { kind: "malformed", reason: "log index does not fit uint32" };
  const timestamp = uintOf(word(data, 3), 8);
  if (timestamp === undefined) return { kind: "malformed", reason: "timestamp does not fit uint64" };
  const chainId = BigInt(bytesToHex(word(data, 4)));
  return {
    kind: "executing",
    message: {
      id: { origin: bytesToHex(originWord.subarray(12)), blockNumber, logIndex, timestamp, chainId },
      payloadHash: (log.topics[1] as Hash).toLowerCase() as Hash,
    },
  };
}

function u256(v: bigint | number): Uint8Array {
  return hexToBytes(`0x${BigInt(v).toString(16).padStart(64, "0")}`);
}

/** ABI-encodes an ExecutingMessage event (topics and data), as the CrossL2Inbox emits it. */
export function encodeExecutingMessageLog(m: ExecutingMessage): Log {
  const data = concatBytes(
    u256(BigInt(m.id.origin)),
    u256(m.id.blockNumber),
    u256(m.id.logIndex),
    u256(m.id.timestamp),
    u256(m.id.chainId),
  );
  return { address: CROSS_L2_INBOX, topics: [EXECUTING_MESSAGE_TOPIC, m.payloadHash], data: bytesToHex(data) };
}

/** The message payload of a log: its topics concatenated, then its data. */
export function logPayload(log: Pick<Log, "topics" | "data">): Uint8Array {
  return concatBytes(...log.topics.map(hexToBytes), hexToBytes(log.data));
}

/** The bytes of 0x-hex `h` (either case); DecodeError when it is not hex of whole bytes. */
function hexField(h: string): Uint8Array {
  if (h.charCodeAt(0) !== 48 || (h.charCodeAt(1) | 32) !== 120 || (h.length & 1) !== 0)
    throw new DecodeError("invalid hex string", { value: h.slice(0, 80) });
  // Node's hex decoder stops at the first character that is not hex: a bad field comes out short.
  const b = Buffer.from(h.slice(2), "hex");
  if (b.length !== (h.length - 2) >> 1) throw new DecodeError("invalid hex string", { value: h.slice(0, 80) });
  return b;
}

/** keccak256(emitter ‖ payloadHash): the hash every initiating log is stored and matched by. */
export function payloadHashToLogHash(emitter: Address, payloadHash: Hash): Hash {
  return keccakHex(concatBytes(hexField(emitter), hexField(payloadHash)));
}

/** The log hash of a log: keccak256(address ‖ keccak256(topics ‖ data)). */
export function logHash(log: Pick<Log, "address" | "topics" | "data">): Hash {
  const payloadHash = keccak(concatBytes(...log.topics.map(hexField), hexField(log.data)));
  return keccakHex(concatBytes(hexField(log.address), payloadHash));
}

/** The log hash an executing message expects the initiating log to have. */
export function expectedLogHash(m: ExecutingMessage): Hash {
  return payloadHashToLogHash(m.id.origin, m.payloadHash);
}

/**
 * The message checksum (op-supervisor's `ChecksumArgs`): keccak256(keccak256(logHash ‖ idPacked) ‖ chainId),
 * idPacked = 12 zero bytes ‖ uint64 block number ‖ uint64 timestamp ‖ uint32 log index, first byte set to 0x03.
 */
export function messageChecksum(
  id: Pick<MessageIdentifier, "blockNumber" | "timestamp" | "logIndex" | "chainId">,
  hash: Hash,
): Hex {
  const packed = new Uint8Array(32);
  const v = new DataView(packed.buffer);
  v.setBigUint64(12, BigInt(id.blockNumber));
  v.setBigUint64(20, BigInt(id.timestamp));
  v.setUint32(28, id.logIndex);
  const h = keccak(concatBytes(hexToBytes(hash), packed));
  const out = keccak(concatBytes(h, u256(id.chainId)));
  out[0] = 0x03;
  return bytesToHex(out);
}

/** One log of a block as the interop activity stores it. */
export interface StoredLog {
  readonly hash: Hash;
  readonly executing?: ExecutingMessage;
  readonly malformed?: string;
}

/**
 * The position in the block of the transaction that emitted log `logIndex` (receipts are in transaction order and
 * log indices count across them from 0); undefined past the block's logs.
 */
export function txIndexOfLog(
  receipts: ReadonlyArray<{ readonly logs: readonly unknown[] }>,
  logIndex: number,
): number | undefined {
  let end = 0;
  for (let i = 0; i < receipts.length; i++) {
    end += (receipts[i] as { readonly logs: readonly unknown[] }).logs.length;
    if (logIndex < end) return i;
  }
  return undefined;
}

/** Every log of a block in order (indices across all receipts, from 0), hashed and classified. */
export function blockLogs(receipts: ReadonlyArray<{ readonly logs: readonly Log[] }>): StoredLog[] {
  const out: StoredLog[] = [];
  for (const r of receipts) {
    for (const log of r.logs) {
      const d = decodeLog(log);
      const hash = logHash(log);
      if (d.kind === "executing") out.push({ hash, executing: d.message });
      else if (d.kind === "malformed") out.push({ hash, malformed: d.reason });
      else out.push({ hash });
    }
  }
  return out;
}
