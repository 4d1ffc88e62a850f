/**
 * Natively implemented predeploys that keep state and see their caller (the message passer, the interop contracts),
 * behind the EVM's precompile hook like the fee predeploys (docs/adr/0111), but given a call frame: the message
 * (caller, value, static context) the EVM is running, storage and transient storage of their own address (journaled
 * with the frame: a revert undoes them), the EIP-2929 warm sets, logs, and calls into other contracts (which run in
 * the EVM as nested frames, tracers included). A contract reaches them with CALL as it would the real contracts.
 *
 * Gas is a real client's for what the frame does (SLOAD/SSTORE warm and cold, LOG, KECCAK, CALL with the 63/64 rule
 * and the value stipend) plus what each contract charges for its dispatch; the real contracts' bytecode (proxy,
 * ABI decoding) costs a few thousand gas more, which `eth_estimateGas` covers by simulation anyway.
 */
import { type EVM, EVMError, type ExecResult, Message, type PrecompileInput } from "@ethereumjs/evm";
import { Address as EvmAddress } from "@ethereumjs/util";
import { type Abi, decodeFunctionData, encodeFunctionResult } from "viem";
import { type Address, bytesToHex, type Hash, type Hex, hexToBytes } from "supernode/core";
import { keccak } from "supernode/protocol";

/** A stateful native contract: `run` returns the output or throws `NativeRevert`. */
export interface StatefulNative {
  readonly address: Address;
  run(frame: NativeFrame): Promise<Uint8Array>;
}

/** A revert with this data (an ABI-encoded custom error, or nothing). */
export class NativeRevert extends Error {
  constructor(readonly data: Uint8Array = new Uint8Array(0)) {
    super("revert");
  }
}

/** An exceptional halt (all gas used): out of gas, or a state change in a static context. */
class NativeHalt extends Error {}

type EvmLog = [Uint8Array, Uint8Array[], Uint8Array];

const COLD_SLOAD = 2100n;
const WARM_ACCESS = 100n;
const COLD_ACCOUNT = 2600n;
const SSTORE_SET = 20_000n;
const SSTORE_RESET = 2900n;
const CALL_VALUE = 9000n;
const CALL_STIPEND = 2300n;
const MAX_DEPTH = 1024;

export function word(v: bigint): Uint8Array {
  return hexToBytes(`0x${v.toString(16).padStart(64, "0")}`);
}

export function wordToBigint(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(bytesToHex(b));
}

/** The storage slot of `mapping[key]` at mapping slot `slot` (Solidity's layout). */
export function mappingSlot(key: Uint8Array, slot: bigint): Hash {
  const b = new Uint8Array(64);
  b.set(key, 0);
  b.set(word(slot), 32);
  return bytesToHex(keccak(b)) as Hash;
}

/** The revert of a custom error without arguments, e.g. `customError("NotEntered()")`. */
export function customError(signature: string): NativeRevert {
  return new NativeRevert(keccak(new TextEncoder().encode(signature)).subarray(0, 4));
}

/**
 * The function and arguments of `input` under `abi`; a revert without data for an unknown selector or malformed
 * arguments (as a Solidity contract without fallback). `addressWords`: byte offsets (after the selector) of static
 * address arguments, whose upper 12 bytes Solidity's decoder requires to be zero (viem's does not look).
 */
export function decodeCall(
  abi: Abi,
  input: Hex,
  addressWords: Readonly<Record<string, readonly number[]>> = {},
): { name: string; args: readonly unknown[] } {
  let call: { functionName: string; args?: readonly unknown[] };
  try {
    call = decodeFunctionData({ abi, data: input }) as typeof call;
  } catch {
    throw new NativeRevert();
  }
  for (const at of addressWords[call.functionName] ?? []) {
    const start = 10 + at * 2;
    if (!/^0{24}$/.test(input.slice(start, start + 24))) throw new NativeRevert();
  }
  return { name: call.functionName, args: call.args ?? [] };
}

/** The ABI encoding of `name`'s return value. */
export function encodeResult(abi: Abi, name: string, result: unknown): Uint8Array {
  return hexToBytes(encodeFunctionResult({ abi, functionName: name, result } as never));
}

/** One call of a native contract: the message, and what the contract may do in it. */
export class NativeFrame {
  readonly #evm: EVM;
  readonly #msg: Message;
  readonly #self: EvmAddress;
  readonly #gasLimit: bigint;
  readonly logs: EvmLog[] = [];
  used = 0n;

  constructor(
    evm: EVM,
    msg: Message,
    gasLimit: bigint,
    readonly chainId: bigint,
  ) {
    this.#evm = evm;
    this.#msg = msg;
    this.#self = msg.to!;
    this.#gasLimit = gasLimit;
  }

  get caller(): Address {
    return this.#msg.caller.toString() as Address;
  }

  get value(): bigint {
    return this.#msg.value;
  }

  get input(): Hex {
    return bytesToHex(this.#msg.data);
  }

  get isStatic(): boolean {
    return this.#msg.isStatic;
  }

  useGas(n: bigint): void {
    this.used += n;
    if (this.used > this.#gasLimit) throw new NativeHalt(EVMError.errorMessages.OUT_OF_GAS);
  }

  #writable(): void {
    if (this.#msg.isStatic) throw new NativeHalt(EVMError.errorMessages.STATIC_STATE_CHANGE);
  }

  /** KECCAK256 of `data`, charged as the opcode. */
  keccak(data: Uint8Array): Uint8Array {
    this.useGas(30n + 6n * BigInt(Math.ceil(data.length / 32)));
    return keccak(data);
  }

  #accessSlot(key: Uint8Array): void {
    const j = this.#evm.journal;
    if (j.isWarmedStorage(this.#self.bytes, key)) this.useGas(WARM_ACCESS);
    else {
      this.useGas(COLD_SLOAD);
      j.addWarmedStorage(this.#self.bytes, key);
    }
  }

  /** Whether `slot` of `address` is warm (in the access list, or touched earlier in the transaction). */
  isWarmSlot(address: Address, slot: Hash): boolean {
    return this.#evm.journal.isWarmedStorage(hexToBytes(address), hexToBytes(slot));
  }

  async sload(slot: Hash): Promise<bigint> {
    const key = hexToBytes(slot);
    this.#accessSlot(key);
    return wordToBigint(await this.#evm.stateManager.getStorage(this.#self, key));
  }

  async sstore(slot: Hash, value: bigint): Promise<void> {
    this.#writable();
    const key = hexToBytes(slot);
    const current = wordToBigint(await this.#evm.stateManager.getStorage(this.#self, key));
    if (!this.#evm.journal.isWarmedStorage(this.#self.bytes, key)) {
      this.useGas(COLD_SLOAD);
      this.#evm.journal.addWarmedStorage(this.#self.bytes, key);
    }
    this.useGas(current === value ? WARM_ACCESS : current === 0n ? SSTORE_SET : SSTORE_RESET);
    await this.#evm.stateManager.putStorage(this.#self, key, word(value));
  }

  tload(slot: Hash): bigint {
    this.useGas(WARM_ACCESS);
    return wordToBigint(this.#evm.transientStorage.get(this.#self, hexToBytes(slot)));
  }

  tstore(slot: Hash, value: bigint): void {
    this.#writable();
    this.useGas(WARM_ACCESS);
    this.#evm.transientStorage.put(this.#self, hexToBytes(slot), word(value));
  }

  /** Emits a log from this contract (LOG0…LOG4 gas). */
  log(topics: readonly Hash[], data: Uint8Array): void {
    this.#writable();
    this.useGas(375n + 375n * BigInt(topics.length) + 8n * BigInt(data.length));
    this.logs.push([this.#self.bytes, topics.map((t) => hexToBytes(t)), data]);
  }

  /**
   * Calls `to` with `value` and `data` as CALL does (a nested EVM frame with 63/64 of the gas left, the stipend when
   * value moves); its logs join this frame's in order. A failed call's state changes are undone by the EVM.
   */
  async call(to: Address, value: bigint, data: Uint8Array): Promise<{ ok: boolean; output: Uint8Array }> {
    const target = new EvmAddress(hexToBytes(to));
    const j = this.#evm.journal;
    if (j.isWarmedAddress(target.bytes)) this.useGas(WARM_ACCESS);
    else {
      this.useGas(COLD_ACCOUNT);
      j.addWarmedAddress(target.bytes);
    }
    if (value > 0n) {
      this.#writable();
      this.useGas(CALL_VALUE);
    }
    const msg = this.#msg;
    const balance = (await this.#evm.stateManager.getAccount(this.#self))?.balance ?? 0n;
    if (msg.depth + 1 > MAX_DEPTH || balance < value) return { ok: false, output: new Uint8Array(0) };
    const left = this.#gasLimit - this.used;
    const stipend = value > 0n ? CALL_STIPEND : 0n;
    const r = await this.#evm.runCall({
      message: new Message({
        caller: this.#self,
        to: target,
        value,
        data,
        gasLimit: left - left / 64n + stipend,
        depth: msg.depth + 1,
        isStatic: msg.isStatic,
        ...(msg.selfdestruct === undefined ? {} : { selfdestruct: msg.selfdestruct }),
        ...(msg.createdAddresses === undefined ? {} : { createdAddresses: msg.createdAddresses }),
        gasRefund: msg.gasRefund,
      }),
    });
    const ex = r.execResult;
    this.useGas(ex.executionGasUsed > stipend ? ex.executionGasUsed - stipend : 0n);
    const ok = ex.exceptionError === undefined;
    if (ok) {
      this.logs.push(...((ex.logs ?? []) as EvmLog[]));
      msg.gasRefund = ex.gasRefund ?? msg.gasRefund;
    }
    return { ok, output: ex.returnValue };
  }
}

function halted(gasLimit: bigint, error: string): ExecResult {
  return { executionGasUsed: gasLimit, returnValue: new Uint8Array(0), exceptionError: new EVMError(error as never) };
}

/**
 * The EVM's messages as a stack (the innermost is the one a precompile runs for): the precompile hook gives a
 * native its input and gas only, the message events give it the caller, value and depth.
 */
export class MessageStack {
  readonly #stack: Message[] = [];

  attach(evm: EVM): void {
    evm.events.on("beforeMessage", (m: Message) => void this.#stack.push(m));
    evm.events.on("afterMessage", () => void this.#stack.pop());
  }

  /** Forgets frames left by a run that threw. */
  reset(): void {
    this.#stack.length = 0;
  }

  get top(): Message | undefined {
    return this.#stack[this.#stack.length - 1];
  }
}

/** The precompile function of a stateful native (a DELEGATECALL or CALLCODE into one reverts). */
export function statefulPrecompile(
  n: StatefulNative,
  messages: MessageStack,
  chainId: bigint,
): (input: PrecompileInput) => Promise<ExecResult> {
  return async (input) => {
    const msg = messages.top;
    if (msg === undefined || msg.to === undefined || msg.delegatecall || !msg.to.equals(msg.codeAddress))
      return { executionGasUsed: 0n, returnValue: new Uint8Array(0), exceptionError: revertError() };
    const frame = new NativeFrame(input._EVM as EVM, msg, input.gasLimit, chainId);
    try {
      const out = await n.run(frame);
      return {
        executionGasUsed: frame.used,
        returnValue: out,
        logs: frame.logs,
        ...(msg.selfdestruct === undefined ? {} : { selfdestruct: msg.selfdestruct }),
        ...(msg.createdAddresses === undefined ? {} : { createdAddresses: msg.createdAddresses }),
      };
    } catch (e) {
      if (e instanceof NativeRevert)
        return { executionGasUsed: frame.used, returnValue: e.data, exceptionError: revertError() };
      if (e instanceof NativeHalt) return halted(input.gasLimit, e.message);
      throw e;
    }
  };
}

function revertError(): EVMError {
  return new EVMError(EVMError.errorMessages.REVERT);
}
