import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  networkFromRegistry,
  type RegistryChain,
  type RegistrySuperchain,
} from "../../../src/config/network-convert.js";
import { defaultNetworksDir, listNetworks, loadNetwork, resolveNetworkName } from "../../../src/config/networks.js";
import { checkRollupConfig } from "../../../src/protocol/rollup-config-json.js";

const REGISTRY = resolve(process.cwd(), "..", "shared", "conformance", "registry");
const hasRegistry = existsSync(join(REGISTRY, "superchain-configs.json"));
if (!hasRegistry)
  console.warn(`[skip] superchain registry snapshot not found at ${REGISTRY}; network cross-check skipped`);

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
    expect(() => loadNetwork("nope")).toThrow(/unknown network "nope"; known networks: .*base-mainnet/);
    expect(loadNetwork("base-mainnet").rollup.l2_chain_id).toBe(8453n);
    expect(loadNetwork("base-sepolia").rollup.l2_chain_id).toBe(84532n);
    expect(loadNetwork("op-sepolia").rollup.l2_chain_id).toBe(11155420n);
  });

  describe.skipIf(!hasRegistry)("cross-check against the superchain registry snapshot", () => {
    type Chain = Record<string, unknown> & {
      l2_chain_id: number;
      Name: string;
      genesis: {
        l1: { hash: string; number: number };
        l2: { hash: string; number: number };
        l2_time: number;
        system_config: { batcherAddr: string; overhead: string; scalar: string; gasLimit: number };
      };
      hardfork_configuration: Record<string, number | null> | null;
      Addresses: Record<string, string | null> | null;
      optimism: {
        eip1559Elasticity: number;
        eip1559Denominator: number;
        eip1559DenominatorCanyon?: number | null;
      } | null;
      alt_da: {
        da_challenge_address: string;
        da_challenge_window: number;
        da_resolve_window: number;
        da_commitment_type: string;
      } | null;
    };
    const snap = hasRegistry
      ? (JSON.parse(readFileSync(join(REGISTRY, "superchain-configs.json"), "utf8")) as {
          superchains: Array<{
            name: string;
            config: { l1: { chain_id: number }; protocol_versions_addr: string | null };
            chains: Chain[] | null;
          }>;
        })
      : { superchains: [] };
    const byChainId = new Map(names.map((n) => [loadNetwork(n).file.chainId, loadNetwork(n)] as const));
    const registryChains = snap.superchains.flatMap((sc) => (sc.chains ?? []).map((c) => ({ sc, c })));

    it("one network file per registry chain, and no others", () => {
      expect(names.length).toBe(registryChains.length);
      for (const { c } of registryChains) expect(byChainId.has(c.l2_chain_id), c.Name).toBe(true);
    });

    it("the committed files are what scripts/gen-networks.ts produces from the snapshot", () => {
      const list = JSON.parse(readFileSync(join(REGISTRY, "chainList.json"), "utf8")) as Array<{
        chainId: number;
        identifier: string;
      }>;
      const ids = new Map(list.map((c) => [c.chainId, c.identifier]));
      for (const { sc, c } of registryChains) {
        const net = networkFromRegistry(
          sc.name,
          sc.config as unknown as RegistrySuperchain,
          c as unknown as RegistryChain,
          ids.get(c.l2_chain_id),
        );
        const file = JSON.parse(readFileSync(join(defaultNetworksDir(), `${net.name}.json`), "utf8"));
        expect(file, net.name).toEqual(JSON.parse(JSON.stringify(net)));
      }
    });

    it("the well-known names map to the right chains", () => {
      expect(loadNetwork("op-mainnet").file.chainId).toBe(10);
      expect(loadNetwork("base-mainnet").file.chainId).toBe(8453);
      expect(loadNetwork("unichain-mainnet").file.chainId).toBe(130);
      expect(loadNetwork("op-sepolia").file.chainId).toBe(11155420);
    });

    it("genesis, addresses, parameters and every hardfork time match the snapshot", () => {
      const low = (s: string | null | undefined) => s?.toLowerCase();
      for (const { sc, c } of registryChains) {
        const net = byChainId.get(c.l2_chain_id);
        if (!net) throw new Error(`missing ${c.Name}`);
        const r = net.rollup;
        const at = `${net.file.name}`;
        expect(net.file.superchain, at).toBe(sc.name);
        expect(net.file.chainName, at).toBe(c.Name);
        expect(r.l1_chain_id, at).toBe(BigInt(sc.config.l1.chain_id));
        expect(r.genesis.l1, at).toEqual({ hash: low(c.genesis.l1.hash), number: c.genesis.l1.number });
        expect(r.genesis.l2, at).toEqual({ hash: low(c.genesis.l2.hash), number: c.genesis.l2.number });
        expect(r.genesis.l2_time, at).toBe(c.genesis.l2_time);
        expect(r.genesis.system_config.batcherAddr, at).toBe(low(c.genesis.system_config.batcherAddr));
        expect(r.genesis.system_config.overhead, at).toBe(low(c.genesis.system_config.overhead));
        expect(r.genesis.system_config.scalar, at).toBe(low(c.genesis.system_config.scalar));
        expect(r.genesis.system_config.gasLimit, at).toBe(BigInt(c.genesis.system_config.gasLimit));
        expect(r.block_time, at).toBe(c.block_time);
        expect(r.seq_window_size, at).toBe(c.seq_window_size);
        expect(r.max_sequencer_drift, at).toBe(c.max_sequencer_drift);
        expect(r.channel_timeout, at).toBe(300);
        expect(r.regolith_time, at).toBe(0);
        expect(r.batch_inbox_address, at).toBe(
          low(c.batch_inbox as string | undefined) ?? low(c.batch_inbox_address as string),
        );
        expect(r.deposit_contract_address, at).toBe(low(c.Addresses?.OptimismPortalProxy));
        expect(r.l1_system_config_address, at).toBe(low(c.Addresses?.SystemConfigProxy));
        expect(r.protocol_versions_address, at).toBe(low(sc.config.protocol_versions_addr) ?? `0x${"00".repeat(20)}`);
        for (const [k, v] of Object.entries(c.hardfork_configuration ?? {})) {
          expect((r as unknown as Record<string, unknown>)[k], `${at} ${k}`).toBe(v ?? undefined);
        }
        if (c.optimism) {
          expect(r.chain_op_config?.eip1559Elasticity, at).toBe(c.optimism.eip1559Elasticity);
          expect(r.chain_op_config?.eip1559Denominator, at).toBe(c.optimism.eip1559Denominator);
          expect(r.chain_op_config?.eip1559DenominatorCanyon, at).toBe(
            c.optimism.eip1559DenominatorCanyon ?? undefined,
          );
        }
        if (c.alt_da) {
          expect(r.alt_da?.da_challenge_contract_address, at).toBe(low(c.alt_da.da_challenge_address));
          expect(r.alt_da?.da_commitment_type, at).toBe(c.alt_da.da_commitment_type);
          expect(r.alt_da?.da_challenge_window, at).toBe(c.alt_da.da_challenge_window);
        } else expect(r.alt_da, at).toBeUndefined();
      }
    });
  });
});
