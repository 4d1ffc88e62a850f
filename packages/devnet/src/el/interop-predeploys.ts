/**
 * The interop contracts of the simulated execution client: addresses, ABIs (the real contracts', for clients and
 * tests) and the access list an executing message needs. They run natively in the EVM (`evm/interop-natives.ts`,
 * `evm/l2-to-l2-messenger.ts`) from the Interop (Lagoon) activation:
 *
 * - **CrossL2Inbox** (`0x4200…0022`): `validateMessage(Identifier id, bytes32 msgHash)` emits `ExecutingMessage`
 *   when the message's checksum slot is warm (declared in the transaction's access list), else reverts with
 *   `NotInAccessList()`. It does not check the message itself: that is the rollup node's job.
 * - **L2ToL2CrossDomainMessenger** (`0x4200…0023`): `sendMessage`, `relayMessage`, `resendMessage` and the getters.
 * - **Log emitter** (`LOG_EMITTER_ADDRESS`, a devnet convention, not an OP predeploy): `emitLog(bytes32[] topics,
 *   bytes data)` emits one log from the emitter's address with exactly those topics (0…4) and data: an arbitrary
 *   initiating message.
 */
import { parseAbi } from "viem";
import { type Address, concatBytes, type Hash, type Hex, hexToBytes } from "supernode/core";
import { CROSS_L2_INBOX, keccak, keccakHex, payloadHashToLogHash } from "supernode/protocol";

export { CROSS_L2_INBOX };

/** The devnet's initiating-message emitter on every simulated L2 (`0xde90 … e4177`). */
export const LOG_EMITTER_ADDRESS: Address = "0xde900000000000000000000000000000000e4177";
export const L2_TO_L2_CROSS_DOMAIN_MESSENGER: Address = "0x4200000000000000000000000000000000000023";

const IDENTIFIER =
  "struct Identifier { address origin; uint256 blockNumber; uint256 logIndex; uint256 timestamp; uint256 chainId; }";

export const CROSS_L2_INBOX_ABI = parseAbi([
  IDENTIFIER,
  "function validateMessage(Identifier _id, bytes32 _msgHash)",
  "function calculateChecksum(Identifier _id, bytes32 _msgHash) pure returns (bytes32 checksum_)",
  "function version() view returns (string)",
  "event ExecutingMessage(bytes32 indexed msgHash, Identifier id)",
  "error NotInAccessList()",
  "error BlockNumberTooHigh()",
  "error TimestampTooHigh()",
  "error LogIndexTooHigh()",
]);

export const L2_TO_L2_CROSS_DOMAIN_MESSENGER_ABI = parseAbi([
  IDENTIFIER,
  "function sendMessage(uint256 _destination, address _target, bytes _message) returns (bytes32)",
  "function relayMessage(Identifier _id, bytes _sentMessage) payable returns (bytes returnData_)",
  "function resendMessage(uint256 _destination, uint256 _nonce, address _sender, address _target, bytes _message) returns (bytes32)",
  "function messageNonce() view returns (uint256)",
  "function messageVersion() view returns (uint16)",
  "function successfulMessages(bytes32) view returns (bool)",
  "function sentMessages(uint256) view returns (bytes32)",
  "function crossDomainMessageSender() view returns (address sender_)",
  "function crossDomainMessageSource() view returns (uint256 source_)",
  "function crossDomainMessageContext() view returns (address sender_, uint256 source_)",
  "function version() view returns (string)",
  "event SentMessage(uint256 indexed destination, address indexed target, uint256 indexed messageNonce, address sender, bytes message)",
  "event RelayedMessage(uint256 indexed source, uint256 indexed messageNonce, bytes32 indexed messageHash, bytes32 returnDataHash)",
  "error NotEntered()",
  "error ReentrantCall()",
  "error IdOriginNotL2ToL2CrossDomainMessenger()",
  "error EventPayloadNotSentMessage()",
  "error MessageDestinationSameChain()",
  "error MessageDestinationNotRelayChain()",
  "error MessageTargetL2ToL2CrossDomainMessenger()",
  "error MessageAlreadyRelayed()",
  "error InvalidMessage()",
]);

export const LOG_EMITTER_ABI = parseAbi(["function emitLog(bytes32[] _topics, bytes _data)"]);

const topic = (sig: string): Hash => keccakHex(new TextEncoder().encode(sig));
/** topic0 of `SentMessage` (the real contract's `SENT_MESSAGE_EVENT_SELECTOR`). */
export const SENT_MESSAGE_TOPIC = topic("SentMessage(uint256,address,uint256,address,bytes)");
export const RELAYED_MESSAGE_TOPIC = topic("RelayedMessage(uint256,uint256,bytes32,bytes32)");

/** An executing message's identifier of its initiating log. */
export interface InteropIdentifier {
  readonly origin: Address;
  readonly blockNumber: bigint;
  readonly logIndex: bigint;
  readonly timestamp: bigint;
  readonly chainId: bigint;
}

const U64 = (1n << 64n) - 1n;

/**
 * The access-list entry an executing message (`validateMessage(id, msgHash)`, directly or through
 * `relayMessage`) needs, as the interop rules give it: under the CrossL2Inbox address, the lookup entry (type 1:
 * chain ID as uint64, block number, timestamp, log index), the chain-ID extension (type 2) when the chain ID does
 * not fit 64 bits, and the checksum (type 3) — the slot the inbox requires to be warm.
 */
export function executingAccessList(id: InteropIdentifier, msgHash: Hash): { address: Address; storageKeys: Hash[] }[] {
  const hex = (v: bigint, bytes: number) => v.toString(16).padStart(bytes * 2, "0");
  const lookup = `0x01000000${hex(id.chainId & U64, 8)}${hex(id.blockNumber, 8)}${hex(id.timestamp, 8)}${hex(id.logIndex, 4)}`;
  const keys = [lookup as Hash];
  if (id.chainId > U64) keys.push(`0x02${"00".repeat(7)}${hex(id.chainId >> 64n, 24)}` as Hash);
  keys.push(checksumOf(id, msgHash));
  return [{ address: CROSS_L2_INBOX, storageKeys: keys }];
}

/**
 * The CrossL2Inbox checksum of an identifier and payload hash (`calculateChecksum`): keccak256(keccak256(logHash ‖
 * 12 zero bytes ‖ uint64 block number ‖ uint64 timestamp ‖ uint32 log index) ‖ chain ID), first byte set to 0x03.
 * The caller keeps the fields in range (block number and timestamp below 2^64, log index below 2^32).
 */
export function checksumOf(id: InteropIdentifier, msgHash: Hash): Hash {
  const packed = new Uint8Array(32);
  const v = new DataView(packed.buffer);
  v.setBigUint64(12, id.blockNumber);
  v.setBigUint64(20, id.timestamp);
  v.setUint32(28, Number(id.logIndex));
  const idLogHash = keccak(concatBytes(hexToBytes(payloadHashToLogHash(id.origin, msgHash)), packed));
  const out = keccak(concatBytes(idLogHash, hexToBytes(`0x${id.chainId.toString(16).padStart(64, "0")}`)));
  out[0] = 0x03;
  return `0x${Buffer.from(out).toString("hex")}` as Hash;
}

/** The payload an executing message names: the log's topics, then its data (`relayMessage`'s `_sentMessage`). */
export function logPayloadHex(log: { readonly topics: readonly Hex[]; readonly data: Hex }): Hex {
  return `0x${log.topics.map((t) => t.slice(2)).join("")}${log.data.slice(2)}`;
}
