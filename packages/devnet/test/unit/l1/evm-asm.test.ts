import { describe, expect, it } from "vitest";
import { assemble, label, push, ref } from "../../../src/l1/evm-asm.js";
import {
  DEPOSIT_CONTRACT_CODE,
  DEPOSIT_TRANSACTION_SELECTOR,
  depositContractAddress,
  protocolVersionsAddress,
  SYSTEM_CONFIG_CODE,
  systemConfigAddress,
} from "../../../src/l1/contracts.js";
import { configPayload } from "../../../src/l1/l1.js";

describe("evm-asm", () => {
  it("uses the smallest push and PUSH0 for zero", () => {
    expect(assemble([push(0), push(1), push(0x1234), push("0x0001")])).toBe("0x5f6001611234610001");
    expect(assemble([push(1n << 255n)])).toBe(`0x7f80${"00".repeat(31)}`);
  });

  it("resolves labels forwards and backwards to PUSH2 offsets of their JUMPDEST", () => {
    // 0: PUSH2 0x0005, 3: JUMP, 4: STOP, 5: JUMPDEST, 6: PUSH2 0x0005, 9: JUMP
    expect(assemble([ref("a"), "JUMP", "STOP", label("a"), ref("a"), "JUMP"])).toBe("0x61000556005b61000556");
  });

  it("rejects unknown opcodes, labels and oversized pushes", () => {
    expect(() => assemble(["NOPE"])).toThrow(/unknown opcode/);
    expect(() => assemble([ref("x")])).toThrow(/unknown label/);
    expect(() => assemble([label("x"), label("x")])).toThrow(/duplicate/);
    expect(() => push(`0x${"00".repeat(33)}`)).toThrow();
    expect(() => push(-1)).toThrow();
  });
});

describe("devnet contracts", () => {
  it("has the real depositTransaction selector and small bytecode", () => {
    expect(DEPOSIT_TRANSACTION_SELECTOR).toBe("0xe9e05c42");
    expect((DEPOSIT_CONTRACT_CODE.length - 2) / 2).toBeLessThan(300);
    expect((SYSTEM_CONFIG_CODE.length - 2) / 2).toBeLessThan(200);
  });

  it("derives distinct per-chain addresses", () => {
    expect(depositContractAddress(901)).toBe("0xde90010000000000000000000000000000000385");
    expect(systemConfigAddress(901)).toBe("0xde90020000000000000000000000000000000385");
    expect(protocolVersionsAddress(901n)).toBe("0xde90030000000000000000000000000000000385");
    expect(depositContractAddress(902)).not.toBe(depositContractAddress(901));
  });

  it("encodes ConfigUpdate payloads like the real setters", () => {
    expect(configPayload.eip1559Params(250, 6)).toBe(`0x${"00".repeat(24)}000000fa00000006`);
    expect(configPayload.operatorFee(1, 2n)).toBe(`0x${"00".repeat(20)}00000001${"00".repeat(7)}02`);
    expect(configPayload.feeScalars(1368, 810949)).toBe(`0x${"00".repeat(32)}01${"00".repeat(23)}000c5fc500000558`);
    expect(configPayload.batcher("0x00000000000000000000000000000000000000AB")).toBe(`0x${"00".repeat(31)}ab`);
  });
});
