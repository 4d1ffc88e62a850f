/**
 * CrossL2Inbox and the devnet's log emitter as natives of the EVM (`native-frame.ts`), from the Interop (Lagoon)
 * activation: transactions and contracts call them as they would the real contracts (ABI and errors in
 * `../interop-predeploys.ts`). The L2ToL2CrossDomainMessenger is in `l2-to-l2-messenger.ts`.
 */
import { encodeAbiParameters, encodeFunctionData } from "viem";
import { type Hash, type Hex, hexToBytes } from "supernode/core";
import { EXECUTING_MESSAGE_TOPIC } from "supernode/protocol";
import {
  CROSS_L2_INBOX,
  CROSS_L2_INBOX_ABI,
  checksumOf,
  type InteropIdentifier,
  LOG_EMITTER_ABI,
  LOG_EMITTER_ADDRESS,
} from "../interop-predeploys.js";
import {
  customError,
  decodeCall,
  encodeResult,
  type NativeFrame,
  NativeRevert,
  type StatefulNative,
} from "./native-frame.js";

const U32 = (1n << 32n) - 1n;
const U64 = (1n << 64n) - 1n;
/** Gas for the dispatch of a call (the real contracts' proxy and ABI decoding cost more; see native-frame.ts). */
const DISPATCH_GAS = 200n;

const IDENTIFIER_PARAMS = [
  { type: "address" },
  { type: "uint256" },
  { type: "uint256" },
  { type: "uint256" },
  { type: "uint256" },
] as const;

/** `calculateChecksum`'s range checks and checksum. */
function checksum(frame: NativeFrame, id: InteropIdentifier, msgHash: Hash): Hash {
  if (id.blockNumber > U64) throw customError("BlockNumberTooHigh()");
  if (id.logIndex > U32) throw customError("LogIndexTooHigh()");
  if (id.timestamp > U64) throw customError("TimestampTooHigh()");
  frame.useGas(3n * 42n); // three KECCAK256 of one or two words
  return checksumOf(id, msgHash);
}

/** `validateMessage`: the checksum slot must be warm (the access list), then `ExecutingMessage(msgHash, id)`. */
async function validateMessage(frame: NativeFrame, id: InteropIdentifier, msgHash: Hash): Promise<void> {
  const slot = checksum(frame, id, msgHash);
  const warm = frame.isWarmSlot(CROSS_L2_INBOX, slot);
  await frame.sload(slot); // the real contract reads the slot to time it
  if (!warm) throw customError("NotInAccessList()");
  const data = encodeAbiParameters(IDENTIFIER_PARAMS, [
    id.origin,
    id.blockNumber,
    id.logIndex,
    id.timestamp,
    id.chainId,
  ]);
  frame.log([EXECUTING_MESSAGE_TOPIC, msgHash.toLowerCase() as Hash], hexToBytes(data));
}

export const crossL2Inbox: StatefulNative = {
  address: CROSS_L2_INBOX,
  async run(frame) {
    frame.useGas(DISPATCH_GAS);
    const { name, args } = decodeCall(CROSS_L2_INBOX_ABI, frame.input, {
      validateMessage: [0],
      calculateChecksum: [0],
    });
    if (frame.value !== 0n) throw new NativeRevert();
    switch (name) {
      case "validateMessage":
        await validateMessage(frame, args[0] as InteropIdentifier, args[1] as Hash);
        return new Uint8Array(0);
      case "calculateChecksum":
        return encodeResult(CROSS_L2_INBOX_ABI, name, checksum(frame, args[0] as InteropIdentifier, args[1] as Hash));
      default:
        return encodeResult(CROSS_L2_INBOX_ABI, name, "1.0.2");
    }
  },
};

export const logEmitter: StatefulNative = {
  address: LOG_EMITTER_ADDRESS,
  async run(frame) {
    const { args } = decodeCall(LOG_EMITTER_ABI, frame.input);
    const [topics, data] = args as [readonly Hash[], Hex];
    if (frame.value !== 0n || topics.length > 4) throw new NativeRevert();
    frame.log(
      topics.map((t) => t.toLowerCase() as Hash),
      hexToBytes(data),
    );
    return new Uint8Array(0);
  },
};

/** Calls `validateMessage(id, msgHash)` on the inbox from `frame`'s contract; a failure reverts with its data. */
export async function callValidateMessage(frame: NativeFrame, id: InteropIdentifier, msgHash: Hash): Promise<void> {
  const input = encodeFunctionData({ abi: CROSS_L2_INBOX_ABI, functionName: "validateMessage", args: [id, msgHash] });
  const r = await frame.call(CROSS_L2_INBOX, 0n, hexToBytes(input));
  if (!r.ok) throw new NativeRevert(r.output);
}
