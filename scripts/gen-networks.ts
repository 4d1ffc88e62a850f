/**
 * Generates config/networks/<name>.json (the project's own network format: metadata plus a rollup config) from the
 * superchain registry's TOML configs. Usage:
 *   npx tsx scripts/gen-networks.ts [registry-dir]     (default ../shared/conformance/registry-2026-08)
 * Every `superchain/configs/<superchain>/<chain>.toml` becomes one network; the registry is read only when this
 * script runs, the generated files are committed.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { networkFromRegistryToml } from "../src/config/network-convert.js";
import { parseRegistryToml } from "../src/config/registry-toml.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const registryDir = resolve(process.argv[2] ?? join(root, "..", "shared", "conformance", "registry-2026-08"));
const configsDir = join(registryDir, "superchain", "configs");
const outDir = join(root, "config", "networks");

const readToml = (path: string) => parseRegistryToml(readFileSync(path, "utf8"), path);

mkdirSync(outDir, { recursive: true });
for (const f of readdirSync(outDir)) if (f.endsWith(".json")) rmSync(join(outDir, f));
let n = 0;
for (const superchain of readdirSync(configsDir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
  const dir = join(configsDir, superchain.name);
  const sc = readToml(join(dir, "superchain.toml"));
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".toml") && f !== "superchain.toml").sort()) {
    const net = networkFromRegistryToml(superchain.name, f.slice(0, -".toml".length), sc, readToml(join(dir, f)));
    writeFileSync(join(outDir, `${net.name}.json`), `${JSON.stringify(net, null, 2)}\n`);
    n++;
  }
}
process.stderr.write(`wrote ${n} networks to ${outDir}\n`);
