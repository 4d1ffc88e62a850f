/**
 * L2ToL2CrossDomainMessenger (`0x4200…0023`, version 1.3.0) as a native of the EVM (`native-frame.ts`), from the
 * Interop (Lagoon) activation, with the real contract's ABI, storage, events, errors and hashing:
 *
 * - storage: slot 0 `successfulMessages` (bytes32 ⇒ bool), slot 1 `msgNonce` (uint240), slot 2 `sentMessages`
 *   (nonce ⇒ message hash); `messageNonce()` = msgNonce with the message version (0) in the top two bytes;
 * - the message hash: keccak256(abi.encode(destination, source, nonce, sender, target, message));
 * - `sendMessage` emits `SentMessage(destination, target, nonce, sender, message)`;
 * - `relayMessage(id, sentMessage)` checks the origin is this messenger, has the CrossL2Inbox validate the message
 *   (a CALL: the access-list rule applies), decodes the SentMessage payload (topics ‖ data), checks the destination
 *   is this chain and that it was not relayed, marks it relayed, calls the target with the value and
 *   `crossDomainMessageSender()` / `Source()` / `Context()` set (transient storage, as the real contract), bubbles a
 *   failure, emits `RelayedMessage(source, nonce, messageHash, keccak256(returnData))` and returns the return data;
 *   it is non-reentrant.
 */
import { decodeAbiParameters, encodeAbiParameters } from "viem";
import { type Address, bytesToHex, type Hash, type Hex, hexToBytes } from "supernode/core";
import {
  type InteropIdentifier,
  L2_TO_L2_CROSS_DOMAIN_MESSENGER,
  L2_TO_L2_CROSS_DOMAIN_MESSENGER_ABI as ABI,
  SENT_MESSAGE_TOPIC,
  RELAYED_MESSAGE_TOPIC,
} from "../interop-predeploys.js";
import { callValidateMessage } from "./interop-natives.js";
import {
  customError,
  decodeCall,
  encodeResult,
  mappingSlot,
  type NativeFrame,
  NativeRevert,
  type StatefulNative,
  word,
} from "./native-frame.js";

const MESSENGER = L2_TO_L2_CROSS_DOMAIN_MESSENGER;
/** bytes32(uint256(keccak256("l2tol2crossdomainmessenger.sender")) - 1) */
const SENDER_SLOT: Hash = "0xb83444d07072b122e2e72a669ce32857d892345c19856f4e7142d06a167ab3f3";
/** bytes32(uint256(keccak256("l2tol2crossdomainmessenger.source")) - 1) */
const SOURCE_SLOT: Hash = "0x711dfa3259c842fffc17d6e1f1e0fc5927756133a2345ca56b4cb8178589fee7";
/** bytes32(uint256(keccak256("transientreentrancyaware.entered")) - 1) */
const ENTERED_SLOT: Hash = "0xf13569814868ede994184d5a425471fb19e869768a33421cb701a2ba3d420c0a";
const NONCE_SLOT: Hash = `0x${"00".repeat(31)}01`;
const MESSAGE_VERSION = 0n;
const DISPATCH_GAS = 500n;

const successfulSlot = (hash: Hash) => mappingSlot(hexToBytes(hash), 0n);
const sentSlot = (nonce: bigint) => mappingSlot(word(nonce), 2n);

function messageHash(
  frame: NativeFrame,
  m: { destination: bigint; source: bigint; nonce: bigint; sender: Address; target: Address; message: Hex },
): Hash {
  const enc = encodeAbiParameters(
    [
      { type: "uint256" },
      { type: "uint256" },
      { type: "uint256" },
      { type: "address" },
      { type: "address" },
      { type: "bytes" },
    ],
    [m.destination, m.source, m.nonce, m.sender, m.target, m.message],
  );
  return bytesToHex(frame.keccak(hexToBytes(enc))) as Hash;
}

async function messageNonce(frame: NativeFrame): Promise<bigint> {
  return (MESSAGE_VERSION << 240n) | (await frame.sload(NONCE_SLOT));
}

function emitSent(
  frame: NativeFrame,
  destination: bigint,
  target: Address,
  nonce: bigint,
  sender: Address,
  message: Hex,
) {
  const data = encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [sender, message]);
  frame.log(
    [
      SENT_MESSAGE_TOPIC,
      bytesToHex(word(destination)) as Hash,
      bytesToHex(word(BigInt(target))) as Hash,
      bytesToHex(word(nonce)) as Hash,
    ],
    hexToBytes(data),
  );
}

async function sendMessage(frame: NativeFrame, destination: bigint, target: Address, message: Hex): Promise<Hash> {
  if (destination === frame.chainId) throw customError("MessageDestinationSameChain()");
  if (target.toLowerCase() === MESSENGER) throw customError("MessageTargetL2ToL2CrossDomainMessenger()");
  const nonce = await messageNonce(frame);
  const hash = messageHash(frame, { destination, source: frame.chainId, nonce, sender: frame.caller, target, message });
  await frame.sstore(sentSlot(nonce), BigInt(hash));
  await frame.sstore(NONCE_SLOT, (nonce & ((1n << 240n) - 1n)) + 1n);
  emitSent(frame, destination, target, nonce, frame.caller, message);
  return hash;
}

async function resendMessage(frame: NativeFrame, args: readonly unknown[]): Promise<Hash> {
  const [destination, nonce, sender, target, message] = args as [bigint, bigint, Address, Address, Hex];
  const hash = messageHash(frame, { destination, source: frame.chainId, nonce, sender, target, message });
  if ((await frame.sload(sentSlot(nonce))) !== BigInt(hash)) throw customError("InvalidMessage()");
  emitSent(frame, destination, target, nonce, sender, message);
  return hash;
}

/** `_decodeSentMessagePayload`: topics (selector, destination, target, nonce) then data (sender, message). */
function decodeSentMessage(payload: Uint8Array) {
  if (payload.length < 32) throw new NativeRevert();
  if (bytesToHex(payload.subarray(0, 32)) !== SENT_MESSAGE_TOPIC) throw customError("EventPayloadNotSentMessage()");
  if (payload.length < 128) throw new NativeRevert();
  const targetWord = bytesToHex(payload.subarray(64, 96));
  if (!targetWord.startsWith(`0x${"00".repeat(12)}`)) throw new NativeRevert();
  try {
    const [destination, target, nonce] = decodeAbiParameters(
      [{ type: "uint256" }, { type: "address" }, { type: "uint256" }],
      payload.subarray(32, 128),
    );
    const data = payload.subarray(128);
    if (data.length >= 32 && !bytesToHex(data.subarray(0, 32)).startsWith(`0x${"00".repeat(12)}`)) throw new Error();
    const [sender, message] = decodeAbiParameters([{ type: "address" }, { type: "bytes" }], data);
    return {
      destination,
      target: target.toLowerCase() as Address,
      nonce,
      sender: sender.toLowerCase() as Address,
      message,
    };
  } catch {
    throw new NativeRevert();
  }
}

async function relayMessage(frame: NativeFrame, id: InteropIdentifier, sentMessage: Hex): Promise<Uint8Array> {
  if (frame.tload(ENTERED_SLOT) !== 0n) throw customError("ReentrantCall()");
  frame.tstore(ENTERED_SLOT, 1n);
  if (id.origin.toLowerCase() !== MESSENGER) throw customError("IdOriginNotL2ToL2CrossDomainMessenger()");
  const payload = hexToBytes(sentMessage);
  await callValidateMessage(frame, id, bytesToHex(frame.keccak(payload)) as Hash);
  const m = decodeSentMessage(payload);
  if (m.destination !== frame.chainId) throw customError("MessageDestinationNotRelayChain()");
  const source = id.chainId;
  const hash = messageHash(frame, { ...m, source });
  if ((await frame.sload(successfulSlot(hash))) !== 0n) throw customError("MessageAlreadyRelayed()");
  await frame.sstore(successfulSlot(hash), 1n);
  frame.tstore(SOURCE_SLOT, source);
  frame.tstore(SENDER_SLOT, BigInt(m.sender));
  const r = await frame.call(m.target, frame.value, hexToBytes(m.message));
  if (!r.ok) throw new NativeRevert(r.output);
  frame.log(
    [RELAYED_MESSAGE_TOPIC, bytesToHex(word(source)) as Hash, bytesToHex(word(m.nonce)) as Hash, hash],
    frame.keccak(r.output),
  );
  frame.tstore(SOURCE_SLOT, 0n);
  frame.tstore(SENDER_SLOT, 0n);
  frame.tstore(ENTERED_SLOT, 0n);
  return r.output;
}

function entered(frame: NativeFrame): void {
  if (frame.tload(ENTERED_SLOT) === 0n) throw customError("NotEntered()");
}

const addressOf = (v: bigint): Address => `0x${v.toString(16).padStart(40, "0")}`;

async function dispatch(frame: NativeFrame, name: string, args: readonly unknown[]): Promise<unknown> {
  switch (name) {
    case "sendMessage":
      return sendMessage(frame, args[0] as bigint, args[1] as Address, args[2] as Hex);
    case "relayMessage":
      return bytesToHex(await relayMessage(frame, args[0] as InteropIdentifier, args[1] as Hex));
    case "resendMessage":
      return resendMessage(frame, args);
    case "messageNonce":
      return messageNonce(frame);
    case "messageVersion":
      return MESSAGE_VERSION;
    case "successfulMessages":
      return (await frame.sload(successfulSlot(args[0] as Hash))) !== 0n;
    case "sentMessages":
      return bytesToHex(word(await frame.sload(sentSlot(args[0] as bigint))));
    case "crossDomainMessageSender":
      entered(frame);
      return addressOf(frame.tload(SENDER_SLOT));
    case "crossDomainMessageSource":
      entered(frame);
      return frame.tload(SOURCE_SLOT);
    case "crossDomainMessageContext":
      entered(frame);
      return [addressOf(frame.tload(SENDER_SLOT)), frame.tload(SOURCE_SLOT)];
    default:
      return "1.3.0";
  }
}

export const l2ToL2CrossDomainMessenger: StatefulNative = {
  address: MESSENGER,
  async run(frame) {
    frame.useGas(DISPATCH_GAS);
    const { name, args } = decodeCall(ABI, frame.input, {
      sendMessage: [32],
      relayMessage: [0],
      resendMessage: [64, 96],
    });
    // relayMessage is the one payable function
    if (frame.value !== 0n && name !== "relayMessage") throw new NativeRevert();
    return encodeResult(ABI, name, await dispatch(frame, name, args));
  },
};
