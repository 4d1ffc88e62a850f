import {
  decodeAbiParameters,
  decodeEventLog,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  keccak256,
  parseAbi,
} from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import type { Address, Hash, Hex } from "supernode/core";
import { CallTracer } from "../../../src/el/evm/call-tracer.js";
import { createAddress } from "../../../src/el/executor.js";
import { MESSAGE_PASSED_TOPIC, MESSAGE_PASSER_ADDRESS } from "../../../src/el/evm/message-passer.js";
import {
  CROSS_L2_INBOX,
  executingAccessList,
  type InteropIdentifier,
  L2_TO_L2_CROSS_DOMAIN_MESSENGER as MESSENGER,
  L2_TO_L2_CROSS_DOMAIN_MESSENGER_ABI as ABI,
  logPayloadHex,
  RELAYED_MESSAGE_TOPIC,
  SENT_MESSAGE_TOPIC,
} from "../../../src/el/interop-predeploys.js";
import type { SimLog } from "../../../src/el/types.js";
import { CALLER, interopSession, runCall } from "../../support/native-call.js";
import { compileSolidity } from "../../support/solidity.js";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
interface IMessenger {
  function sendMessage(uint256, address, bytes calldata) external returns (bytes32);
  function crossDomainMessageContext() external view returns (address, uint256);
  function crossDomainMessageSender() external view returns (address);
}
interface IPasser { function initiateWithdrawal(address, uint256, bytes calldata) external payable; }
contract Receiver {
  IMessenger constant M = IMessenger(0x4200000000000000000000000000000000000023);
  uint256 public value; address public from; uint256 public source; uint256 public paid;
  event Received(uint256 value, address from, uint256 source);
  function receiveMessage(uint256 v) external payable returns (uint256) {
    require(msg.sender == address(M), "not the messenger");
    (address s, uint256 src) = M.crossDomainMessageContext();
    require(M.crossDomainMessageSender() == s, "sender");
    value = v; from = s; source = src; paid = msg.value;
    emit Received(v, s, src);
    return v * 2;
  }
  function fail() external pure { revert("nope"); }
}
contract Sender {
  function send(uint256 dest, address target, bytes calldata m) external returns (bytes32) {
    return IMessenger(0x4200000000000000000000000000000000000023).sendMessage(dest, target, m);
  }
  function withdraw(address target) external payable {
    IPasser(0x4200000000000000000000000000000000000016).initiateWithdrawal{value: msg.value}(target, 100000, hex"01");
  }
}`;
const RECEIVER_ABI = parseAbi([
  "function receiveMessage(uint256 v) payable returns (uint256)",
  "function fail()",
  "function value() view returns (uint256)",
  "function from() view returns (address)",
  "function source() view returns (uint256)",
  "function paid() view returns (uint256)",
]);
const SENDER_ABI = parseAbi([
  "function send(uint256 dest, address target, bytes m) returns (bytes32)",
  "function withdraw(address target) payable",
]);
const selector = (sig: string) => keccak256(new TextEncoder().encode(sig)).slice(0, 10);

type Session = ReturnType<typeof interopSession>;

async function deploy(s: Session, bytecode: Hex): Promise<Address> {
  const nonce = s.writer.account(CALLER).nonce;
  s.writer.bumpNonce(CALLER);
  const r = await runCall(s.session, null, bytecode);
  expect(r.success).toBe(true);
  return createAddress(CALLER, nonce);
}

const messengerCall = (fn: string, args: unknown[] = []) =>
  encodeFunctionData({ abi: ABI, functionName: fn as never, args: args as never });

async function read(s: Session, to: Address, abi: typeof ABI | typeof RECEIVER_ABI, fn: string, args: unknown[] = []) {
  const r = await runCall(s.session, to, encodeFunctionData({ abi, functionName: fn as never, args: args as never }));
  expect(r.error).toBeUndefined();
  return decodeFunctionResult({ abi, functionName: fn as never, data: r.output }) as unknown;
}

function messageHash(dest: bigint, src: bigint, nonce: bigint, sender: Address, target: Address, msg: Hex): Hash {
  const t = ["uint256", "uint256", "uint256", "address", "address", "bytes"].map((type) => ({ type }));
  return keccak256(encodeAbiParameters(t, [dest, src, nonce, sender, target, msg]));
}

describe("simulated L2ToL2CrossDomainMessenger (chain 901 → 902)", () => {
  const a = interopSession(901n);
  const b = interopSession(902n);
  let receiver: Address;
  let sender: Address;
  let sent: SimLog;
  const message = encodeFunctionData({ abi: RECEIVER_ABI, functionName: "receiveMessage", args: [7n] });
  const id = (o: Partial<InteropIdentifier> = {}): InteropIdentifier => ({
    origin: MESSENGER,
    blockNumber: 12n,
    logIndex: 0n,
    timestamp: 1_700_000_024n,
    chainId: 901n,
    ...o,
  });
  const relay = (log: SimLog, ident = id(), o: { value?: bigint; list?: boolean } = {}) => {
    const payload = logPayloadHex(log);
    return runCall(b.session, MESSENGER, messengerCall("relayMessage", [ident, payload]), {
      value: o.value ?? 0n,
      ...(o.list === false ? {} : { accessList: executingAccessList(ident, keccak256(payload)) }),
    });
  };

  beforeAll(async () => {
    const c = compileSolidity(SOURCE);
    receiver = await deploy(b, c.Receiver!.bytecode);
    a.writer.bumpNonce(CALLER); // another address than the receiver's
    sender = await deploy(a, c.Sender!.bytecode);
  });

  it("sendMessage from a contract: SentMessage, the versioned nonce, sentMessages and the returned hash", async () => {
    expect(SENT_MESSAGE_TOPIC).toBe("0x382409ac69001e11931a28435afef442cbfd20d9891907e8fa373ba7d351f320");
    const r = await runCall(
      a.session,
      sender,
      encodeFunctionData({ abi: SENDER_ABI, functionName: "send", args: [902n, receiver, message] }),
    );
    expect(r.success).toBe(true);
    expect(r.logs).toHaveLength(1);
    sent = r.logs[0]!;
    expect(sent.address).toBe(MESSENGER);
    const ev = decodeEventLog({ abi: ABI, topics: sent.topics as [Hash], data: sent.data });
    expect(ev.eventName).toBe("SentMessage");
    const args = ev.args as { target: Address; sender: Address };
    expect({ ...ev.args, target: args.target.toLowerCase(), sender: args.sender.toLowerCase() }).toEqual({
      destination: 902n,
      target: receiver,
      messageNonce: 0n,
      sender,
      message,
    });
    const hash = messageHash(902n, 901n, 0n, sender, receiver, message);
    expect(decodeAbiParameters([{ type: "bytes32" }], r.output)[0]).toBe(hash);
    expect(await read(a, MESSENGER, ABI, "messageNonce")).toBe(1n);
    expect(await read(a, MESSENGER, ABI, "sentMessages", [0n])).toBe(hash);
    expect(await read(a, MESSENGER, ABI, "messageVersion")).toBe(0);
    // the errors of the real contract
    const same = await runCall(a.session, MESSENGER, messengerCall("sendMessage", [901n, receiver, "0x"]));
    expect(same.output).toBe(selector("MessageDestinationSameChain()"));
    const self = await runCall(a.session, MESSENGER, messengerCall("sendMessage", [902n, MESSENGER, "0x"]));
    expect(self.output).toBe(selector("MessageTargetL2ToL2CrossDomainMessenger()"));
    const paid = await runCall(a.session, MESSENGER, messengerCall("sendMessage", [902n, receiver, "0x"]), {
      value: 1n,
    });
    expect(paid).toMatchObject({ success: false, output: "0x" }); // not payable
  });

  it("relayMessage validates through the CrossL2Inbox, calls the target with the context set, emits RelayedMessage", async () => {
    const r = await relay(sent, id(), { value: 3n });
    expect(r.error).toBeUndefined();
    expect(r.logs.map((l) => l.address)).toEqual([CROSS_L2_INBOX, receiver, MESSENGER]);
    const hash = messageHash(902n, 901n, 0n, sender, receiver, message);
    const returned = encodeAbiParameters([{ type: "uint256" }], [14n]);
    const relayed = r.logs[2]!;
    expect(relayed.topics).toEqual([
      RELAYED_MESSAGE_TOPIC,
      `0x${901n.toString(16).padStart(64, "0")}`,
      `0x${"0".repeat(64)}`,
      hash,
    ]);
    expect(relayed.data).toBe(keccak256(returned));
    expect(decodeFunctionResult({ abi: ABI, functionName: "relayMessage", data: r.output })).toBe(returned);
    expect(await read(b, receiver, RECEIVER_ABI, "value")).toBe(7n);
    expect(String(await read(b, receiver, RECEIVER_ABI, "from")).toLowerCase()).toBe(sender);
    expect(await read(b, receiver, RECEIVER_ABI, "source")).toBe(901n);
    expect(await read(b, receiver, RECEIVER_ABI, "paid")).toBe(3n);
    expect(await read(b, MESSENGER, ABI, "successfulMessages", [hash])).toBe(true);
    // outside a relay there is no context
    const outside = await runCall(b.session, MESSENGER, messengerCall("crossDomainMessageSender"));
    expect(outside.output).toBe(selector("NotEntered()"));
    // no replay
    expect((await relay(sent)).output).toBe(selector("MessageAlreadyRelayed()"));
  });

  it("refuses a relay without the access list, from another origin, for another chain, or of another event", async () => {
    const fresh = await runCall(a.session, MESSENGER, messengerCall("sendMessage", [902n, receiver, message]));
    const log = fresh.logs[0]!;
    expect((await relay(log, id(), { list: false })).output).toBe(selector("NotInAccessList()"));
    expect((await relay(log, id({ origin: CROSS_L2_INBOX }))).output).toBe(
      selector("IdOriginNotL2ToL2CrossDomainMessenger()"),
    );
    const elsewhere = await runCall(a.session, MESSENGER, messengerCall("sendMessage", [903n, receiver, message]));
    expect((await relay(elsewhere.logs[0]!)).output).toBe(selector("MessageDestinationNotRelayChain()"));
    const other = { ...log, topics: [MESSAGE_PASSED_TOPIC, ...log.topics.slice(1)] };
    expect((await relay(other)).output).toBe(selector("EventPayloadNotSentMessage()"));
    // a failing target: the relay reverts with the target's data, and the message stays relayable
    const failing = await runCall(
      a.session,
      MESSENGER,
      messengerCall("sendMessage", [902n, receiver, encodeFunctionData({ abi: RECEIVER_ABI, functionName: "fail" })]),
    );
    const f = await relay(failing.logs[0]!);
    expect(f.output.startsWith("0x08c379a0")).toBe(true);
    expect(f.logs).toEqual([]);
    // the first one still goes through after all that, and the call tracer sees its nested calls
    const payload = logPayloadHex(log);
    const tracer = new CallTracer();
    const traced = await b.session.run(
      {
        from: CALLER,
        to: MESSENGER,
        value: 0n,
        input: messengerCall("relayMessage", [id(), payload]),
        gas: 1_000_000n,
        gasPrice: 1n,
        accessList: executingAccessList(id(), keccak256(payload)),
      },
      { keep: true, tracer },
    );
    expect(traced.error).toBeUndefined();
    const root = tracer.root!;
    expect(root.to).toBe(MESSENGER);
    expect(root.calls?.map((c) => [c.type, c.from, c.to])).toEqual([
      ["CALL", MESSENGER, CROSS_L2_INBOX],
      ["CALL", MESSENGER, receiver],
    ]);
    // the receiver's own calls back into the messenger (the context) are STATICCALLs under it
    expect(root.calls?.[1]?.calls?.map((c) => c.type)).toEqual(["STATICCALL", "STATICCALL"]);
  });

  it("a contract initiates a withdrawal through the native L2ToL1MessagePasser", async () => {
    const r = await runCall(
      a.session,
      sender,
      encodeFunctionData({ abi: SENDER_ABI, functionName: "withdraw", args: [receiver] }),
      { value: 5n },
    );
    expect(r.error).toBeUndefined();
    expect(r.logs).toHaveLength(1);
    const [log] = r.logs;
    expect(log!.address).toBe(MESSAGE_PASSER_ADDRESS);
    expect(log!.topics[0]).toBe(MESSAGE_PASSED_TOPIC);
    expect(log!.topics[2]).toBe(`0x${sender.slice(2).padStart(64, "0")}`);
    expect(a.writer.account(MESSAGE_PASSER_ADDRESS).balance).toBe(5n);
    const passer = parseAbi(["function messageNonce() view returns (uint256)"]);
    const n = await runCall(a.session, MESSAGE_PASSER_ADDRESS, encodeFunctionData({ abi: passer }));
    expect(BigInt(n.output)).toBe((1n << 240n) + 1n);
  });
});
