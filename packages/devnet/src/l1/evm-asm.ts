/**
 * A tiny EVM assembler for the devnet's hand-written contracts (no solc here). A program is a list of
 * instructions: opcode mnemonics (`"CALLER"`), pushes (`push(0x20)`, `push("0x…")`), jump targets
 * (`label("end")`, which emits JUMPDEST) and label references (`ref("end")`, a PUSH2 of the label's offset).
 * Pushes use the smallest PUSHn (PUSH0 for zero).
 */
import { bytesToHex, type Hex, hexToBytes } from "supernode/core";

const OPCODES: Readonly<Record<string, number>> = {
  STOP: 0x00,
  ADD: 0x01,
  MUL: 0x02,
  SUB: 0x03,
  DIV: 0x04,
  LT: 0x10,
  GT: 0x11,
  EQ: 0x14,
  ISZERO: 0x15,
  AND: 0x16,
  OR: 0x17,
  NOT: 0x19,
  SHL: 0x1b,
  SHR: 0x1c,
  ORIGIN: 0x32,
  CALLER: 0x33,
  CALLVALUE: 0x34,
  CALLDATALOAD: 0x35,
  CALLDATASIZE: 0x36,
  CALLDATACOPY: 0x37,
  POP: 0x50,
  MLOAD: 0x51,
  MSTORE: 0x52,
  MSTORE8: 0x53,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  JUMPDEST: 0x5b,
  PUSH0: 0x5f,
  DUP1: 0x80,
  DUP2: 0x81,
  DUP3: 0x82,
  DUP4: 0x83,
  DUP5: 0x84,
  SWAP1: 0x90,
  SWAP2: 0x91,
  SWAP3: 0x92,
  LOG0: 0xa0,
  LOG1: 0xa1,
  LOG2: 0xa2,
  LOG3: 0xa3,
  LOG4: 0xa4,
  RETURN: 0xf3,
  REVERT: 0xfd,
};

export type Mnemonic = keyof typeof OPCODES;

export type Instr =
  | string
  | { readonly kind: "push"; readonly bytes: Uint8Array }
  | { readonly kind: "label"; readonly name: string }
  | { readonly kind: "ref"; readonly name: string };

/** PUSHn of a value (number, bigint or 0x-hex; hex keeps its byte width). */
export function push(value: number | bigint | Hex): Instr {
  if (typeof value === "string") {
    const bytes = hexToBytes(value);
    if (bytes.length > 32) throw new Error(`push: ${value} is wider than 32 bytes`);
    return { kind: "push", bytes };
  }
  let v = BigInt(value);
  if (v < 0n || v >= 1n << 256n) throw new Error(`push: ${value} out of range`);
  const out: number[] = [];
  while (v > 0n) {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  return { kind: "push", bytes: Uint8Array.from(out) };
}

/** A jump target (emits JUMPDEST). */
export function label(name: string): Instr {
  return { kind: "label", name };
}

/** PUSH2 of a label's code offset. */
export function ref(name: string): Instr {
  return { kind: "ref", name };
}

function sizeOf(i: Instr): number {
  if (typeof i === "string") return 1;
  if (i.kind === "push") return 1 + i.bytes.length;
  if (i.kind === "label") return 1;
  return 3;
}

/** Assembles a program into runtime bytecode. */
export function assemble(program: readonly Instr[]): Hex {
  const labels = new Map<string, number>();
  let pc = 0;
  for (const i of program) {
    if (typeof i !== "string" && i.kind === "label") {
      if (labels.has(i.name)) throw new Error(`duplicate label ${i.name}`);
      labels.set(i.name, pc);
    }
    pc += sizeOf(i);
  }
  const out: number[] = [];
  for (const i of program) {
    if (typeof i === "string") {
      const op = OPCODES[i];
      if (op === undefined) throw new Error(`unknown opcode ${i}`);
      out.push(op);
    } else if (i.kind === "push") {
      out.push(i.bytes.length === 0 ? 0x5f : 0x5f + i.bytes.length, ...i.bytes);
    } else if (i.kind === "label") {
      out.push(0x5b);
    } else {
      const at = labels.get(i.name);
      if (at === undefined) throw new Error(`unknown label ${i.name}`);
      out.push(0x61, (at >> 8) & 0xff, at & 0xff);
    }
  }
  return bytesToHex(Uint8Array.from(out));
}
