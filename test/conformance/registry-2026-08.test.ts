import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { networkFromRegistryToml } from "../../src/config/network-convert.js";
import { defaultNetworksDir, listNetworks, loadNetwork } from "../../src/config/networks.js";
import { parseRegistryToml, type TomlTable } from "../../src/config/registry-toml.js";
import { CONFORMANCE_DIR, conformanceAvailable } from "./conformance-dir.js";

/**
 * Every built-in network against the superchain registry's TOML files (2026-08-04), field by field: each key of
 * each chain file is either checked against the network file or named below as not carried, so a registry field we
 * do not know fails this test instead of being dropped silently.
 */
const have = conformanceAvailable("registry-2026-08/superchain/configs");
const CONFIGS = join(CONFORMANCE_DIR, "registry-2026-08", "superchain", "configs");

/** Registry keys the network files do not carry (not rollup-config facts), with the reason in the name. */
const NOT_CARRIED = new Set([
  "superchain_time", // the registry's inheritance marker; the inherited times are written into the chain's file
  "roles", // operator and owner roles: not used by a rollup node
]);

interface RegistryChain {
  readonly superchain: string;
  readonly short: string;
  readonly sc: TomlTable;
  readonly c: TomlTable;
}

function registryChains(): RegistryChain[] {
  if (!have) return [];
  const out: RegistryChain[] = [];
  for (const superchain of readdirSync(CONFIGS, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const dir = join(CONFIGS, superchain.name);
    const read = (f: string) => parseRegistryToml(readFileSync(join(dir, f), "utf8"), f);
    const sc = read("superchain.toml");
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".toml") && f !== "superchain.toml"))
      out.push({ superchain: superchain.name, short: f.slice(0, -".toml".length), sc, c: read(f) });
  }
  return out;
}

const t = (v: unknown): TomlTable => (v ?? {}) as TomlTable;
const low = (v: unknown): string | undefined => (typeof v === "string" ? v.toLowerCase() : undefined);

describe.skipIf(!have)("conformance: built-in networks against the superchain registry 2026-08", () => {
  const chains = registryChains();
  const names = listNetworks();

  it("one network per registry chain, and no others", () => {
    expect(chains.length).toBe(53);
    expect(names.sort()).toEqual(chains.map((r) => `${r.short}-${r.superchain}`).sort());
  });

  it("the committed files are what scripts/gen-networks.ts produces", () => {
    for (const r of chains) {
      const net = networkFromRegistryToml(r.superchain, r.short, r.sc, r.c);
      const file = JSON.parse(readFileSync(join(defaultNetworksDir(), `${net.name}.json`), "utf8"));
      expect(file, net.name).toEqual(JSON.parse(JSON.stringify(net)));
    }
  });

  it("every registry field matches the network file and its rollup config", () => {
    for (const { superchain, short, sc, c } of chains) {
      const at = `${superchain}/${short}`;
      const net = loadNetwork(`${short}-${superchain}`);
      const r = net.rollup as unknown as Record<string, unknown> & typeof net.rollup;
      const f = net.file;
      const checked = new Set<string>();
      const check = (key: string, got: unknown, want: unknown) => {
        checked.add(key);
        expect(got, `${at} ${key}`).toEqual(want);
      };
      check("name", f.chainName, c.name);
      check("chain_id", r.l2_chain_id, BigInt(c.chain_id as number));
      check("public_rpc", f.publicRpc, c.public_rpc || undefined);
      check("sequencer_rpc", f.sequencerRpc, c.sequencer_rpc || undefined);
      check("explorer", f.explorer, c.explorer || undefined);
      check("governed_by_optimism", f.governedByOptimism, c.governed_by_optimism);
      check("data_availability_type", f.dataAvailabilityType, c.data_availability_type);
      check("gas_paying_token", f.gasPayingToken, low(c.gas_paying_token));
      check("batch_inbox_addr", r.batch_inbox_address, low(c.batch_inbox_addr));
      check("block_time", r.block_time, c.block_time);
      check("seq_window_size", r.seq_window_size, c.seq_window_size);
      check("max_sequencer_drift", r.max_sequencer_drift, c.max_sequencer_drift);
      expect(r.l1_chain_id, at).toBe(BigInt(t(sc.l1).chain_id as number));
      expect(r.channel_timeout, at).toBe(300);
      expect(r.regolith_time, at).toBe(0);

      const hf = t(c.hardforks);
      checked.add("hardforks");
      for (const [k, v] of Object.entries(hf)) {
        if (k === "interop_time") expect(r.lagoon_time, `${at} ${k}`).toBe(v);
        else if (k === "keep_karst_upgrade_gas") expect(r.keep_karst_upgrade_gas ?? false, `${at} ${k}`).toBe(v);
        else expect(r[k], `${at} ${k}`).toBe(v);
      }
      for (const k of Object.keys(r).filter((k) => k.endsWith("_time") && k !== "regolith_time" && k !== "block_time"))
        expect(k === "lagoon_time" ? (hf.lagoon_time ?? hf.interop_time) : hf[k], `${at} ${k} not in registry`).toBe(
          r[k],
        );

      const g = t(c.genesis);
      const sys = t(g.system_config);
      checked.add("genesis");
      expect(r.genesis.l1, at).toEqual({ hash: low(t(g.l1).hash), number: t(g.l1).number });
      expect(r.genesis.l2, at).toEqual({ hash: low(t(g.l2).hash), number: t(g.l2).number });
      expect(r.genesis.l2_time, at).toBe(g.l2_time);
      expect(r.genesis.system_config.batcherAddr, at).toBe(low(sys.batcherAddress));
      expect(r.genesis.system_config.overhead, at).toBe(low(sys.overhead));
      expect(r.genesis.system_config.scalar, at).toBe(low(sys.scalar));
      expect(r.genesis.system_config.gasLimit, at).toBe(BigInt(sys.gasLimit as number));

      const op = t(c.optimism);
      check("optimism", r.chain_op_config, {
        eip1559Elasticity: op.eip1559_elasticity,
        eip1559Denominator: op.eip1559_denominator,
        eip1559DenominatorCanyon: op.eip1559_denominator_canyon,
      });
      const da = c.alt_da === undefined ? undefined : t(c.alt_da);
      check(
        "alt_da",
        r.alt_da,
        da && {
          da_challenge_contract_address: low(da.da_challenge_contract_address),
          da_commitment_type: da.da_commitment_type,
          da_challenge_window: da.da_challenge_window,
          da_resolve_window: da.da_resolve_window,
        },
      );
      const addrs = t(c.addresses);
      check("addresses", f.addresses, Object.fromEntries(Object.entries(addrs).map(([k, v]) => [k, low(v)])));
      expect(r.deposit_contract_address, at).toBe(low(addrs.OptimismPortalProxy));
      expect(r.l1_system_config_address, at).toBe(low(addrs.SystemConfigProxy));
      const deps = t(t(c.interop).dependencies);
      check("interop", f.interopDependencies, c.interop === undefined ? undefined : Object.keys(deps).map(Number));

      const unknown = Object.keys(c).filter((k) => !checked.has(k) && !NOT_CARRIED.has(k));
      expect(unknown, `${at}: registry fields not checked`).toEqual([]);
    }
  });

  it("OP Mainnet and OP Sepolia carry Karst and keep_karst_upgrade_gas", () => {
    const main = loadNetwork("op-mainnet").rollup;
    expect([main.karst_time, main.keep_karst_upgrade_gas]).toEqual([1783526401, true]);
    expect(loadNetwork("op-sepolia").rollup.karst_time).toBe(1781712001);
  });
});
