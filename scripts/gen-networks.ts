/**
 * Generates config/networks/<name>.json (the project's own network format: metadata plus a rollup config) from a
 * superchain-registry snapshot. Usage:
 *   npx tsx scripts/gen-networks.ts [registry-dir]     (default ../shared/conformance/registry)
 * The snapshot is read only when this script runs; the generated files are committed.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { networkFromRegistry, type RegistryChain, type RegistrySuperchain } from "../src/config/network-convert.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const registryDir = resolve(process.argv[2] ?? join(root, "..", "shared", "conformance", "registry"));
const outDir = join(root, "config", "networks");

const configs = JSON.parse(readFileSync(join(registryDir, "superchain-configs.json"), "utf8")) as {
  superchains: Array<{ name: string; config: RegistrySuperchain; chains: RegistryChain[] | null }>;
};
const chainList = JSON.parse(readFileSync(join(registryDir, "chainList.json"), "utf8")) as Array<{
  chainId: number;
  identifier: string;
}>;
const identifiers = new Map(chainList.map((c) => [c.chainId, c.identifier]));

mkdirSync(outDir, { recursive: true });
for (const f of readdirSync(outDir)) if (f.endsWith(".json")) rmSync(join(outDir, f));
let n = 0;
for (const sc of configs.superchains) {
  for (const chain of sc.chains ?? []) {
    const net = networkFromRegistry(sc.name, sc.config, chain, identifiers.get(chain.l2_chain_id));
    writeFileSync(join(outDir, `${net.name}.json`), `${JSON.stringify(net, null, 2)}\n`);
    n++;
  }
}
process.stderr.write(`wrote ${n} networks to ${outDir}\n`);
