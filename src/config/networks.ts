import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRollupConfig } from "../protocol/rollup-config-json.js";
import type { RollupConfig } from "../protocol/rollup-config.js";

/** A built-in network as stored in `config/networks/<name>.json` (the project's own format). */
export interface NetworkFile {
  /** Network name, `<chain>-<superchain>` (e.g. `op-mainnet`). */
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Human chain name from the registry (e.g. "OP Mainnet"). */
  readonly chainName: string;
  /** Superchain the chain belongs to (`mainnet`, `sepolia`, …). */
  readonly superchain: string;
  readonly chainId: number;
  readonly l1ChainId: number;
  /** Registry `governed_by_optimism`. */
  readonly governedByOptimism?: boolean;
  readonly publicRpc?: string;
  readonly sequencerRpc?: string;
  readonly explorer?: string;
  readonly dataAvailabilityType?: string;
  readonly gasPayingToken?: string;
  /** Registry `[interop.dependencies]`: the chain IDs of the chain's dependency set, when the registry gives one. */
  readonly interopDependencies?: readonly number[];
  /** Contract addresses of the chain (registry `Addresses`, non-null only). */
  readonly addresses: Readonly<Record<string, string>>;
  /** The rollup config (rollup.json shape). */
  readonly rollup: unknown;
}

export interface Network {
  readonly file: NetworkFile;
  readonly rollup: RollupConfig;
}

/** `<project>/config/<name>`, found from this module's location (works from `src/` and `dist/`). */
export function projectConfigDir(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ["../..", "../../.."]) {
    const dir = resolve(here, up, "config", name);
    if (existsSync(dir)) return dir;
  }
  return resolve(here, "../..", "config", name);
}

/** `<project>/config/networks`. */
export const defaultNetworksDir = (): string => projectConfigDir("networks");

/** Legacy aliases accepted for network names. */
const ALIASES: Readonly<Record<string, string>> = { mainnet: "op-mainnet", sepolia: "op-sepolia" };

/** Names of every built-in network in `dir`, sorted. */
export function listNetworks(dir: string = defaultNetworksDir()): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}

/**
 * Built-in networks of the earlier registry snapshot that the superchain registry of 2026-08 no longer lists: a
 * chain that left it is refused with a pointer to `rollup.config` instead of an unexplained "unknown network".
 */
const LEFT_THE_REGISTRY: ReadonlySet<string> = new Set([
  "arena-z-mainnet",
  "arena-z-sepolia",
  "base-mainnet",
  "base-sepolia",
  "creator-chain-testnet-sepolia",
  "ethernity-sepolia",
  "snax-mainnet",
  "swell-mainnet",
]);

/** Why `name` is not a built-in network, for the configuration error. */
export function unknownNetworkMessage(name: string, dir: string = defaultNetworksDir()): string {
  const n = name.trim().toLowerCase();
  if (LEFT_THE_REGISTRY.has(n))
    return `network "${name}" is no longer in the superchain registry (2026-08) this build follows; give the chain's rollup.json with rollup.config instead`;
  return `unknown network "${name}"; known networks: ${listNetworks(dir).join(", ")}`;
}

/** Canonical network name for `name` (case-insensitive, aliases resolved); undefined when unknown. */
export function resolveNetworkName(name: string, dir: string = defaultNetworksDir()): string | undefined {
  const n = name.trim().toLowerCase();
  const canonical = ALIASES[n] ?? n;
  return listNetworks(dir).includes(canonical) ? canonical : undefined;
}

/**
 * Loads a built-in network by name. Throws when the name is unknown (message lists the known networks) or the
 * file is malformed.
 */
export function loadNetwork(name: string, dir: string = defaultNetworksDir()): Network {
  const canonical = resolveNetworkName(name, dir);
  if (canonical === undefined) {
    throw new Error(unknownNetworkMessage(name, dir));
  }
  const file = JSON.parse(readFileSync(join(dir, `${canonical}.json`), "utf8")) as NetworkFile;
  return { file, rollup: parseRollupConfig(file.rollup) };
}
