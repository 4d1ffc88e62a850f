/**
 * The interop contracts the simulated execution client models natively (there is no EVM):
 *
 * - **CrossL2Inbox** (`0x4200…0022`): `validateMessage((address origin, uint256 blockNumber, uint256 logIndex,
 *   uint256 timestamp, uint256 chainId) id, bytes32 msgHash)` emits `ExecutingMessage(bytes32 indexed msgHash,
 *   Identifier id)`: topics `[keccak256("ExecutingMessage(bytes32,(address,uint256,uint256,uint256,uint256))"),
 *   msgHash]`, data = `abi.encode(id)` (160 bytes). It does not check the message (that is the rollup node's job)
 *   and does not require the access-list checksum the real contract asks for.
 * - **Log emitter** (`LOG_EMITTER_ADDRESS`, a devnet convention, not an OP predeploy): `emitLog(bytes32[] topics,
 *   bytes data)` emits one log from the emitter's address with exactly those topics (0…4) and data: an arbitrary
 *   initiating message.
 *
 * Both are nonpayable: a call with value, unknown calldata, a malformed argument or more than four topics reverts
 * (status 0, no logs, no value moved). Gas beyond the intrinsic gas is the LOG opcode's: 375 + 375 per topic + 8 per
 * data byte.
 */
import { decodeFunctionData, encodeAbiParameters, parseAbi } from "viem";
import type { Address, Hash, Hex } from "supernode/core";
import { CROSS_L2_INBOX, EXECUTING_MESSAGE_TOPIC } from "supernode/protocol";
import type { SimLog } from "./types.js";

export { CROSS_L2_INBOX };

/** The devnet's initiating-message emitter on every simulated L2 (`0xde90 … e4177`). */
export const LOG_EMITTER_ADDRESS: Address = "0xde900000000000000000000000000000000e4177";

export const CROSS_L2_INBOX_ABI = parseAbi([
  "struct Identifier { address origin; uint256 blockNumber; uint256 logIndex; uint256 timestamp; uint256 chainId; }",
  "function validateMessage(Identifier _id, bytes32 _msgHash)",
  "event ExecutingMessage(bytes32 indexed msgHash, Identifier id)",
]);

export const LOG_EMITTER_ABI = parseAbi(["function emitLog(bytes32[] _topics, bytes _data)"]);

const IDENTIFIER_PARAMS = [
  { type: "address" },
  { type: "uint256" },
  { type: "uint256" },
  { type: "uint256" },
  { type: "uint256" },
] as const;

/** The outcome of a call to a natively modelled contract: its logs, or a revert; `extraGas` beyond intrinsic gas. */
export type NativeCall =
  | { readonly ok: true; readonly logs: readonly SimLog[]; readonly extraGas: bigint }
  | { readonly ok: false; readonly extraGas: bigint };

const REVERT: NativeCall = { ok: false, extraGas: 0n };

/** LOG opcode gas: 375 + 375 per topic + 8 per data byte. */
export function logGas(topics: number, dataBytes: number): bigint {
  return 375n + 375n * BigInt(topics) + 8n * BigInt(dataBytes);
}

function dataLength(data: Hex): number {
  return (data.length - 2) / 2;
}

/** Whether the calldata word at byte offset `at` holds an address (its upper 12 bytes are zero). */
function isAddressWord(input: Hex, at: number): boolean {
  const start = 2 + at * 2;
  return /^0{24}$/.test(input.slice(start, start + 24));
}

/** `validateMessage(id, msgHash)`: the ExecutingMessage log, or a revert. */
function validateMessage(input: Hex): NativeCall {
  let args: readonly unknown[];
  try {
    args = decodeFunctionData({ abi: CROSS_L2_INBOX_ABI, data: input }).args ?? [];
  } catch {
    return REVERT;
  }
  // Solidity's decoder rejects an origin word with its upper bytes set; viem's does not look.
  if (!isAddressWord(input, 4)) return REVERT;
  const [id, msgHash] = args as [
    { origin: Address; blockNumber: bigint; logIndex: bigint; timestamp: bigint; chainId: bigint },
    Hash,
  ];
  const data = encodeAbiParameters(IDENTIFIER_PARAMS, [
    id.origin,
    id.blockNumber,
    id.logIndex,
    id.timestamp,
    id.chainId,
  ]);
  const log: SimLog = {
    address: CROSS_L2_INBOX,
    topics: [EXECUTING_MESSAGE_TOPIC, msgHash.toLowerCase() as Hash],
    data: data.toLowerCase() as Hex,
  };
  return { ok: true, logs: [log], extraGas: logGas(2, 160) };
}

/** `emitLog(topics, data)`: one log from the emitter, or a revert. */
function emitLog(input: Hex): NativeCall {
  let topics: readonly Hash[];
  let data: Hex;
  try {
    [topics, data] = decodeFunctionData({ abi: LOG_EMITTER_ABI, data: input }).args as unknown as [
      readonly Hash[],
      Hex,
    ];
  } catch {
    return REVERT;
  }
  if (topics.length > 4) return REVERT;
  const log: SimLog = {
    address: LOG_EMITTER_ADDRESS,
    topics: topics.map((t) => t.toLowerCase() as Hash),
    data: data.toLowerCase() as Hex,
  };
  return { ok: true, logs: [log], extraGas: logGas(topics.length, dataLength(data)) };
}

/**
 * The call of a transaction to `to` with `value` and `input` when `to` is one of the modelled interop contracts;
 * undefined for any other address.
 */
export function interopCall(to: Address | null, value: bigint, input: Hex): NativeCall | undefined {
  const target = to?.toLowerCase();
  if (target !== CROSS_L2_INBOX && target !== LOG_EMITTER_ADDRESS) return undefined;
  if (value !== 0n) return REVERT;
  return target === CROSS_L2_INBOX ? validateMessage(input) : emitLog(input);
}
