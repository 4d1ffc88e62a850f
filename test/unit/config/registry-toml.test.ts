import { describe, expect, it } from "vitest";
import { parseRegistryToml } from "../../../src/config/registry-toml.js";

describe("parseRegistryToml (the registry's TOML subset)", () => {
  it("reads tables, nested headers, strings, integers, booleans and comments", () => {
    const doc = parseRegistryToml(
      [
        'name = "OP # Mainnet" # trailing',
        "chain_id = 10",
        "[hardforks]",
        "  karst_time = 1_783_526_401 # Wed 8 Jul 2026",
        "  keep_karst_upgrade_gas = true",
        "[genesis.l1]",
        '  hash = "0xab"',
        "[interop.dependencies.420130015]",
      ].join("\n"),
    );
    expect(doc).toEqual({
      name: "OP # Mainnet",
      chain_id: 10,
      hardforks: { karst_time: 1783526401, keep_karst_upgrade_gas: true },
      genesis: { l1: { hash: "0xab" } },
      interop: { dependencies: { "420130015": {} } },
    });
  });

  it("fails loudly on TOML it does not read, naming the line", () => {
    expect(() => parseRegistryToml("a = [1, 2]", "x.toml")).toThrow(/x.toml:1: unsupported TOML value/);
    expect(() => parseRegistryToml("a = 1\na = 2", "x.toml")).toThrow(/x.toml:2: duplicate key a/);
    expect(() => parseRegistryToml("a = 99999999999999999999")).toThrow(/too large/);
  });
});
