import type { RollupConfig } from "supernode/protocol";
import type { ElForks } from "./types.js";

/** The simulated client's fork schedule from a rollup config's `<fork>_time` fields. */
export function forksFromRollupConfig(cfg: RollupConfig): ElForks {
  const pick = (t: number | undefined) => t;
  const out: Record<string, number> = {};
  const entries: [keyof ElForks, number | undefined][] = [
    ["regolith", pick(cfg.regolith_time)],
    ["canyon", cfg.canyon_time],
    ["delta", cfg.delta_time],
    ["ecotone", cfg.ecotone_time],
    ["fjord", cfg.fjord_time],
    ["granite", cfg.granite_time],
    ["holocene", cfg.holocene_time],
    ["isthmus", cfg.isthmus_time],
    ["jovian", cfg.jovian_time],
    ["karst", cfg.karst_time],
    ["lagoon", cfg.lagoon_time],
  ];
  for (const [k, v] of entries) if (v !== undefined) out[k] = v;
  return out as ElForks;
}
