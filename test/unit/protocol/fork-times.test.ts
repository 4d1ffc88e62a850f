import { describe, expect, it } from "vitest";
import {
  activeFork,
  FORKS,
  type Fork,
  forkTime,
  isForkActivationBlock,
  isForkActive,
  type RollupConfig,
} from "../../../src/protocol/rollup-config.js";
import { testRollupConfig } from "../node/fakes.js";

/** A config with no fork scheduled, then `times` (fork → time) set. */
function configWith(times: Partial<Record<Fork, number>>): RollupConfig {
  const cfg: Record<string, unknown> = { ...testRollupConfig() };
  for (const f of FORKS) delete cfg[`${f}_time`];
  for (const [f, t] of Object.entries(times)) cfg[`${f}_time`] = t;
  return cfg as unknown as RollupConfig;
}

describe("fork times (rollup config)", () => {
  it("forkTime reads each fork's own `<fork>_time` field, undefined when it is not scheduled", () => {
    const times = Object.fromEntries(FORKS.map((f, i) => [f, 100 * (i + 1)])) as Record<Fork, number>;
    const all = configWith(times);
    const none = configWith({});
    for (const f of FORKS) {
      expect(forkTime(all, f), f).toBe(times[f]);
      expect(forkTime(all, f), f).toBe((all as unknown as Record<string, unknown>)[`${f}_time`]);
      expect(forkTime(none, f), f).toBeUndefined();
      // only that fork scheduled: no other fork reads its time
      const one = configWith({ [f]: 7 });
      for (const g of FORKS) expect(forkTime(one, g), `${f}/${g}`).toBe(g === f ? 7 : undefined);
    }
    // a name that is not a fork (from untyped code): unscheduled, as `cfg["<name>_time"]` was
    expect(forkTime(all, "bedrock" as Fork)).toBeUndefined();
  });

  it("isForkActive, isForkActivationBlock and activeFork follow the times (0 active from genesis)", () => {
    const cfg = configWith({ regolith: 0, canyon: 0, ecotone: 10, jovian: 20 });
    expect(isForkActive(cfg, "regolith", 0)).toBe(true);
    expect(isForkActive(cfg, "ecotone", 9)).toBe(false);
    expect(isForkActive(cfg, "ecotone", 10)).toBe(true);
    expect(isForkActive(cfg, "delta", 1_000_000)).toBe(false); // unscheduled: never
    expect(isForkActivationBlock(cfg, "ecotone", 10)).toBe(true);
    expect(isForkActivationBlock(cfg, "ecotone", 12)).toBe(false);
    expect(activeFork(cfg, 15)).toBe("ecotone");
    expect(activeFork(cfg, 20)).toBe("jovian");
    expect(activeFork(configWith({}), 5)).toBe("bedrock");
  });
});
