import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  NUT_UPGRADE_GAS,
  type NutBundle,
  type NutBundles,
  type NutFork,
  parseNutBundle,
} from "../protocol/l2/nut-bundle.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import { projectConfigDir } from "./networks.js";

/**
 * The Karst and Lagoon network-upgrade transaction bundles the product ships (`config/nuts/<fork>_nut_bundle.json`,
 * byte for byte op-node's embedded `op-core/nuts/bundles/*`, ADR 0107). Each is pinned here by the sha256 of
 * upstream's `op-core/nuts/fork_lock.toml`; a file that does not hash to it is refused, so a damaged or edited bundle
 * never builds an activation block.
 */
export const NUT_BUNDLE_SHA256: Readonly<Record<NutFork, string>> = {
  karst: "08f5df36f7ff29a9421ab84beebe96684a7455df9a5d234a2468613a4008ad91",
  lagoon: "2124ce31c0947cac15f00114214dd4354848f7b4642ff2d12ebb3f94b28cc989",
};

/** `<project>/config/nuts`. */
export const defaultNutsDir = (): string => projectConfigDir("nuts");

/** Reads, checks (sha256, total gas) and parses one shipped bundle. Throws with the reason. */
export function loadNutBundle(fork: NutFork, dir: string = defaultNutsDir()): NutBundle {
  const path = join(dir, `${fork}_nut_bundle.json`);
  if (!existsSync(path)) throw new Error(`the ${fork} NUT bundle ${path} is missing (the product ships it)`);
  const bytes = readFileSync(path);
  const sum = createHash("sha256").update(bytes).digest("hex");
  if (sum !== NUT_BUNDLE_SHA256[fork])
    throw new Error(`the ${fork} NUT bundle ${path} has sha256 ${sum}, not the pinned ${NUT_BUNDLE_SHA256[fork]}`);
  const bundle = parseNutBundle(fork, bytes.toString("utf8"));
  if (bundle.gas !== NUT_UPGRADE_GAS[fork])
    throw new Error(`the ${fork} NUT bundle's gas ${bundle.gas} is not the pinned ${NUT_UPGRADE_GAS[fork]}`);
  return bundle;
}

/** The bundles the given chains need: a bundle is loaded when some chain schedules its fork. */
export function loadNutBundlesFor(rollups: readonly RollupConfig[], dir: string = defaultNutsDir()): NutBundles {
  const karst = rollups.some((r) => r.karst_time !== undefined);
  const lagoon = rollups.some((r) => r.lagoon_time !== undefined);
  return {
    ...(karst ? { karst: loadNutBundle("karst", dir) } : {}),
    ...(lagoon ? { lagoon: loadNutBundle("lagoon", dir) } : {}),
  };
}
