/** Compiles Solidity at test time with the solc npm package (the wasm compiler: no download, no network). */
import { createRequire } from "node:module";
import type { Abi, Hex } from "viem";

const require = createRequire(import.meta.url);

export interface Compiled {
  readonly abi: Abi;
  readonly bytecode: Hex;
}

/** Compiles `source` (one file) and returns every contract's ABI and creation code. */
export function compileSolidity(source: string, evmVersion = "cancun"): Record<string, Compiled> {
  const solc = require("solc") as { compile(input: string): string };
  const input = {
    language: "Solidity",
    sources: { "Test.sol": { content: source } },
    settings: {
      evmVersion,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const result: Record<string, Compiled> = {};
  for (const [name, c] of Object.entries(out.contracts["Test.sol"] ?? {}))
    result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return result;
}
