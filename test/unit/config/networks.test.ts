import { describe, expect, it } from "vitest";
import { defaultNetworksDir, listNetworks, loadNetwork, resolveNetworkName } from "../../../src/config/networks.js";
import { checkRollupConfig } from "../../../src/protocol/rollup-config-json.js";

// The cross-check against the registry's TOML files: test/conformance/registry-2026-08.test.ts.
describe("built-in networks", () => {
  const names = listNetworks();

  it("are present, load, and pass the rollup config checks", () => {
    expect(defaultNetworksDir()).toMatch(/config[/\\]networks$/);
    expect(names.length).toBeGreaterThan(50);
    for (const n of names) {
      const net = loadNetwork(n);
      expect(net.file.name).toBe(n);
      expect(n.endsWith(`-${net.file.superchain}`)).toBe(true);
      expect(BigInt(net.file.chainId)).toBe(net.rollup.l2_chain_id);
      expect(checkRollupConfig(net.rollup), n).toEqual([]);
    }
  });

  it("resolve names case-insensitively and the legacy aliases", () => {
    expect(resolveNetworkName("OP-Mainnet")).toBe("op-mainnet");
    expect(resolveNetworkName("mainnet")).toBe("op-mainnet");
    expect(resolveNetworkName("sepolia")).toBe("op-sepolia");
    expect(resolveNetworkName("nope")).toBeUndefined();
    expect(() => loadNetwork("nope")).toThrow(/unknown network "nope"; known networks: .*unichain-mainnet/);
    expect(loadNetwork("unichain-mainnet").rollup.l2_chain_id).toBe(130n);
    expect(loadNetwork("unichain-sepolia").rollup.l2_chain_id).toBe(1301n);
    expect(loadNetwork("op-sepolia").rollup.l2_chain_id).toBe(11155420n);
  });
});
