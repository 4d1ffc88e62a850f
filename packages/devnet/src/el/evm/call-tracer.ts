/**
 * geth's `callTracer` over the EVM library's message events: one frame per message (the transaction's and every
 * CALL/CREATE/DELEGATECALL/STATICCALL below it), nested as the calls were, with gas, output and error as geth
 * names them.
 */
import type { EVM, EVMResult, Message } from "@ethereumjs/evm";
import { type Address, bytesToHex, type Hex, toQuantity } from "supernode/core";

export interface CallFrame {
  type: "CALL" | "CREATE" | "CREATE2" | "DELEGATECALL" | "STATICCALL";
  from: Address;
  to?: Address;
  value?: Hex;
  gas: Hex;
  gasUsed: Hex;
  input: Hex;
  output?: Hex;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
}

/** Collects the frames of one run; `root` is the transaction's frame once the run is over. */
export class CallTracer {
  root: CallFrame | undefined;
  readonly #stack: { frame: CallFrame }[] = [];

  enter(m: Message): void {
    const parent = this.#stack[this.#stack.length - 1];
    const type: CallFrame["type"] =
      m.to === undefined
        ? m.salt !== undefined
          ? "CREATE2"
          : "CREATE"
        : m.delegatecall
          ? "DELEGATECALL"
          : // a frame in a static context: Solidity reaches view and pure functions by STATICCALL (the library's
            // message does not tell a CALL with no value in a static context apart)
            m.isStatic && parent !== undefined
            ? "STATICCALL"
            : "CALL";
    const frame: CallFrame = {
      type,
      from: m.caller.toString() as Address,
      ...(m.to === undefined ? {} : { to: m.to.toString() as Address }),
      ...(type === "STATICCALL" || type === "DELEGATECALL" ? {} : { value: toQuantity(m.value) }),
      gas: toQuantity(m.gasLimit),
      gasUsed: "0x0",
      input: bytesToHex(m.data),
    };
    if (parent !== undefined) {
      parent.frame.calls ??= [];
      parent.frame.calls.push(frame);
    }
    this.#stack.push({ frame });
  }

  exit(r: EVMResult): void {
    const top = this.#stack.pop();
    if (top === undefined) return;
    const f = top.frame;
    const ex = r.execResult;
    f.gasUsed = toQuantity(ex.executionGasUsed);
    if (r.createdAddress !== undefined) f.to = r.createdAddress.toString() as Address;
    const out = bytesToHex(ex.returnValue);
    const err = ex.exceptionError?.error;
    if (err === undefined) f.output = out;
    else {
      f.error = err === "revert" ? "execution reverted" : err;
      if (out !== "0x") f.output = out;
      const reason = decodeRevertReason(out);
      if (reason !== undefined) f.revertReason = reason;
    }
    if (this.#stack.length === 0) this.root = f;
  }
}

/** `Error(string)` revert data → the string. */
export function decodeRevertReason(data: Hex): string | undefined {
  if (!data.startsWith("0x08c379a0") || data.length < 10 + 128) return undefined;
  try {
    const len = Number(BigInt(`0x${data.slice(10 + 64, 10 + 128)}`));
    const hex = data.slice(10 + 128, 10 + 128 + len * 2);
    return Buffer.from(hex, "hex").toString("utf8");
  } catch {
    return undefined;
  }
}

/** Subscribes the tracer to the EVM's message events; returns the unsubscribe. */
export function attachTracer(evm: EVM, t: CallTracer): () => void {
  const before = (m: Message) => t.enter(m);
  const after = (r: EVMResult) => t.exit(r);
  evm.events.on("beforeMessage", before);
  evm.events.on("afterMessage", after);
  return () => {
    evm.events.off("beforeMessage", before);
    evm.events.off("afterMessage", after);
  };
}
