/**
 * L2ToL1MessagePasser (`0x4200…0016`) as a native of the EVM (`native-frame.ts`), so transactions and contracts
 * initiate withdrawals alike: `initiateWithdrawal(target, gasLimit, data)` (payable; plain value sent to it is a
 * withdrawal to the sender with gas limit 100 000) records `sentMessages[withdrawalHash] = true` (slot 0 mapping),
 * bumps `msgNonce` (slot 1; the nonce carries version 1 in its top two bytes) and emits `MessagePassed`; the value
 * stays in the contract, as upstream's until `burn()`. Gas: the frame's storage and log costs plus the dispatch.
 * Output roots commit to its storage root, from Isthmus the header's withdrawalsRoot too.
 */
import { encodeAbiParameters, keccak256, parseAbi } from "viem";
import { type Address, type Hash, type Hex, hexToBytes } from "supernode/core";
import { decodeCall, encodeResult, mappingSlot, type StatefulNative } from "./native-frame.js";

export const MESSAGE_PASSER_ADDRESS: Address = "0x4200000000000000000000000000000000000016";
/** About what a first withdrawal costs beyond the intrinsic gas (for the tracers that do not execute). */
export const MESSAGE_PASSER_GAS = 50_000n;
const DISPATCH_GAS = 2_000n;
const RECEIVE_DEFAULT_GAS_LIMIT = 100_000n;
const MESSAGE_VERSION = 1n;
const NONCE_SLOT: Hash = `0x${"00".repeat(31)}01`;

export const MESSAGE_PASSER_ABI = parseAbi([
  "function initiateWithdrawal(address _target, uint256 _gasLimit, bytes _data) payable",
  "function messageNonce() view returns (uint256)",
  "function sentMessages(bytes32) view returns (bool)",
  "function MESSAGE_VERSION() view returns (uint16)",
  "function version() view returns (string)",
]);

/** keccak256("MessagePassed(uint256,address,address,uint256,uint256,bytes,bytes32)") */
export const MESSAGE_PASSED_TOPIC: Hash = keccak256(
  new TextEncoder().encode("MessagePassed(uint256,address,address,uint256,uint256,bytes,bytes32)"),
);

const pad = (v: bigint | Address): Hash => `0x${BigInt(v).toString(16).padStart(64, "0")}`;

export const messagePasser: StatefulNative = {
  address: MESSAGE_PASSER_ADDRESS,
  async run(frame) {
    frame.useGas(DISPATCH_GAS);
    let target = frame.caller;
    let gasLimit = RECEIVE_DEFAULT_GAS_LIMIT;
    let data: Hex = "0x";
    if (frame.input !== "0x") {
      const { name, args } = decodeCall(MESSAGE_PASSER_ABI, frame.input, { initiateWithdrawal: [0] });
      if (name !== "initiateWithdrawal") {
        const counter = name === "messageNonce" || name === "sentMessages" ? await frame.sload(NONCE_SLOT) : 0n;
        const answers: Record<string, unknown> = {
          messageNonce: (MESSAGE_VERSION << 240n) | counter,
          MESSAGE_VERSION,
          version: "1.1.0",
        };
        const value =
          name === "sentMessages"
            ? (await frame.sload(mappingSlot(hexToBytes(args[0] as Hash), 0n))) !== 0n
            : answers[name];
        return encodeResult(MESSAGE_PASSER_ABI, name, value);
      }
      [target, gasLimit, data] = args as [Address, bigint, Hex];
      target = target.toLowerCase() as Address;
    }
    const counter = await frame.sload(NONCE_SLOT);
    const nonce = (MESSAGE_VERSION << 240n) | counter;
    const sender = frame.caller;
    const withdrawalHash = keccak256(
      encodeAbiParameters(
        [
          { type: "uint256" },
          { type: "address" },
          { type: "address" },
          { type: "uint256" },
          { type: "uint256" },
          { type: "bytes" },
        ],
        [nonce, sender, target, frame.value, gasLimit, data],
      ),
    );
    await frame.sstore(mappingSlot(hexToBytes(withdrawalHash), 0n), 1n);
    await frame.sstore(NONCE_SLOT, counter + 1n);
    frame.log(
      [MESSAGE_PASSED_TOPIC, pad(nonce), pad(sender), pad(target)],
      hexToBytes(
        encodeAbiParameters(
          [{ type: "uint256" }, { type: "uint256" }, { type: "bytes" }, { type: "bytes32" }],
          [frame.value, gasLimit, data, withdrawalHash],
        ),
      ),
    );
    return new Uint8Array(0);
  },
};
