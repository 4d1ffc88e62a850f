import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DecodeError } from "../../../src/core/errors/supernode-error.js";
import {
  checkRollupConfig,
  parseRollupConfig,
  rollupConfigToJson,
  serializeRollupConfig,
} from "../../../src/protocol/rollup-config-json.js";
import { rollupJson } from "./helpers.js";

const CONFORMANCE = resolve(process.cwd(), "..", "shared", "conformance", "rollup-configs");
const hasConformance = existsSync(CONFORMANCE);
if (!hasConformance) console.warn(`[skip] rollup-config conformance files not found at ${CONFORMANCE}`);

describe("parseRollupConfig", () => {
  it("parses the Go shape; bigint chain IDs; defaults for the newer system_config fields", () => {
    const cfg = parseRollupConfig(JSON.stringify(rollupJson(901)));
    expect(cfg.l2_chain_id).toBe(901n);
    expect(cfg.l1_chain_id).toBe(900n);
    expect(cfg.genesis.system_config.gasLimit).toBe(30_000_000n);
    expect(cfg.genesis.system_config.eip1559Params).toBe("0x0000000000000000");
    expect(cfg.genesis.system_config.minBaseFee).toBe(0n);
    expect(cfg.ecotone_time).toBe(0);
    expect(cfg.fjord_time).toBeUndefined();
    expect(checkRollupConfig(cfg)).toEqual([]);
  });

  it("rejects unknown fields (top level and nested), non-JSON and wrong types with DecodeError", () => {
    expect(() => parseRollupConfig(JSON.stringify(rollupJson(1, { extra: true })))).toThrow(/unknown field\(s\) extra/);
    const nested = rollupJson(1);
    (nested.genesis as Record<string, unknown>).foo = 1;
    expect(() => parseRollupConfig(nested)).toThrow(/genesis\.foo/);
    expect(() => parseRollupConfig("{")).toThrow(DecodeError);
    expect(() => parseRollupConfig(rollupJson(1, { block_time: "2" }))).toThrow(/block_time/);
    expect(() => parseRollupConfig(rollupJson(1, { batch_inbox_address: "0x12" }))).toThrow(/batch_inbox_address/);
  });

  it("keeps every hardfork time, pectra blob schedule, chain_op_config and alt_da", () => {
    const cfg = parseRollupConfig(
      rollupJson(5, {
        fjord_time: 1,
        granite_time: 2,
        holocene_time: 3,
        isthmus_time: 4,
        jovian_time: 5,
        karst_time: 6,
        interop_time: 7, // the older name of lagoon_time
        pectra_blob_schedule_time: 8,
        chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
        alt_da: {
          da_challenge_contract_address: `0x${"11".repeat(20)}`,
          da_commitment_type: "KeccakCommitment",
          da_challenge_window: 10,
          da_resolve_window: 20,
        },
      }),
    );
    expect([cfg.jovian_time, cfg.karst_time, cfg.lagoon_time, cfg.pectra_blob_schedule_time]).toEqual([5, 6, 7, 8]);
    expect(cfg.chain_op_config?.eip1559DenominatorCanyon).toBe(250);
    expect(cfg.alt_da?.da_challenge_window).toBe(10);
    expect(checkRollupConfig(cfg)).toEqual([]);
  });
});

describe("Karst and Lagoon fields", () => {
  const forks = { jovian_time: 5, karst_time: 6 };
  it("lagoon_time, interop_time as its older name, both when equal; serialised as lagoon_time", () => {
    const a = parseRollupConfig(rollupJson(5, { ...forks, lagoon_time: 9 }));
    const b = parseRollupConfig(rollupJson(5, { ...forks, interop_time: 9 }));
    const c = parseRollupConfig(rollupJson(5, { ...forks, lagoon_time: 9, interop_time: 9 }));
    for (const cfg of [a, b, c]) {
      expect(cfg.lagoon_time).toBe(9);
      const json = rollupConfigToJson(cfg);
      expect(json.lagoon_time).toBe(9);
      expect("interop_time" in json).toBe(false);
    }
  });

  it("lagoon_time and interop_time both set and different is a clear error", () => {
    expect(() => parseRollupConfig(rollupJson(5, { ...forks, lagoon_time: 9, interop_time: 10 }))).toThrow(
      /lagoon_time=9 and interop_time=10 \(its older name\) disagree/,
    );
  });

  it("keep_karst_upgrade_gas is carried (serialised after karst_time when true) and is a boolean", () => {
    const kept = parseRollupConfig(rollupJson(5, { ...forks, keep_karst_upgrade_gas: true }));
    expect(kept.keep_karst_upgrade_gas).toBe(true);
    const keys = Object.keys(rollupConfigToJson(kept));
    expect(keys.indexOf("keep_karst_upgrade_gas")).toBe(keys.indexOf("karst_time") + 1);
    expect(parseRollupConfig(serializeRollupConfig(kept)).keep_karst_upgrade_gas).toBe(true);
    const off = parseRollupConfig(rollupJson(5, { ...forks, keep_karst_upgrade_gas: false }));
    expect(off.keep_karst_upgrade_gas).toBeUndefined();
    expect("keep_karst_upgrade_gas" in rollupConfigToJson(off)).toBe(false);
    expect(() => parseRollupConfig(rollupJson(5, { keep_karst_upgrade_gas: "yes" }))).toThrow(/keep_karst_upgrade_gas/);
  });

  it("a fork this node does not implement is refused, naming the fork and its time", () => {
    expect(() => parseRollupConfig(rollupJson(5, { ...forks, lagoon_time: 9, marsh_time: 1790000000 }))).toThrow(
      /schedules fork "marsh" at 1790000000 \(2026-09-21T.*\), which this node does not implement/,
    );
  });
});

describe("checkRollupConfig (Config.Check rules)", () => {
  const problems = (extra: Record<string, unknown>) => checkRollupConfig(parseRollupConfig(rollupJson(7, extra)));
  it.each([
    [{ block_time: 0 }, "block_time must be > 0"],
    [{ channel_timeout: 0 }, "channel_timeout must be > 0"],
    [{ seq_window_size: 1 }, "seq_window_size must be at least 2"],
    [{ max_sequencer_drift: 0 }, "max_sequencer_drift must be > 0"],
    [{ l1_chain_id: 7 }, "l1_chain_id and l2_chain_id must differ"],
    [{ batch_inbox_address: `0x${"00".repeat(20)}` }, "batch_inbox_address must not be zero"],
    [{ granite_time: 5 }, "fork granite is scheduled (granite_time=5) but fjord is not"],
    [{ fjord_time: 10, granite_time: 5 }, "fork granite (granite_time=5) must not activate before fjord"],
    [
      { alt_da: { da_commitment_type: "KeccakCommitment", da_challenge_window: 1, da_resolve_window: 1 } },
      "KeccakCommitment requires",
    ],
  ] as const)("%j → %s", (extra, msg) => {
    expect(problems(extra as Record<string, unknown>).join("\n")).toContain(msg);
  });
  it("genesis rules", () => {
    const j = rollupJson(7);
    const g = j.genesis as Record<string, unknown>;
    g.l2_time = 0;
    (g.l2 as Record<string, unknown>).hash = `0x${"00".repeat(32)}`;
    const p = checkRollupConfig(parseRollupConfig(j)).join("\n");
    expect(p).toContain("genesis.l2.hash must not be zero");
    expect(p).toContain("genesis.l2_time must not be zero");
  });
});

describe("serialisation", () => {
  it("emits the Go key order and omits unset fork times", () => {
    const cfg = parseRollupConfig(
      rollupJson(10, { chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50 } }),
    );
    const keys = Object.keys(rollupConfigToJson(cfg));
    expect(keys).toEqual([
      "genesis",
      "block_time",
      "max_sequencer_drift",
      "seq_window_size",
      "channel_timeout",
      "l1_chain_id",
      "l2_chain_id",
      "regolith_time",
      "canyon_time",
      "delta_time",
      "ecotone_time",
      "batch_inbox_address",
      "deposit_contract_address",
      "l1_system_config_address",
      "protocol_versions_address",
      "chain_op_config",
    ]);
    const sc = (rollupConfigToJson(cfg).genesis as Record<string, Record<string, unknown>>).system_config as Record<
      string,
      unknown
    >;
    expect(Object.keys(sc)).toEqual([
      "batcherAddr",
      "overhead",
      "scalar",
      "gasLimit",
      "eip1559Params",
      "operatorFeeParams",
      "minBaseFee",
      "daFootprintGasScalar",
    ]);
    expect(rollupConfigToJson(cfg).l2_chain_id).toBe(10);
  });

  it("round-trips", () => {
    const cfg = parseRollupConfig(
      rollupJson(10, { jovian_time: 0, fjord_time: 0, granite_time: 0, holocene_time: 0, isthmus_time: 0 }),
    );
    expect(parseRollupConfig(serializeRollupConfig(cfg))).toEqual(cfg);
  });

  describe.skipIf(!hasConformance)("conformance rollup.json files", () => {
    for (const name of ["901-rollup.json", "rollup-10.json", "rollup-20.json"]) {
      it(`${name}: parses, passes Check and re-serialises to the same JSON (plus defaulted fields)`, () => {
        const text = readFileSync(join(CONFORMANCE, name), "utf8");
        const original = JSON.parse(text) as Record<string, unknown>;
        const cfg = parseRollupConfig(text);
        expect(checkRollupConfig(cfg)).toEqual([]);
        const out = rollupConfigToJson(cfg);
        const origSc = (original.genesis as Record<string, unknown>).system_config as Record<string, unknown>;
        const outSc = (out.genesis as Record<string, unknown>).system_config as Record<string, unknown>;
        for (const [k, v] of Object.entries(origSc))
          expect(outSc[k]).toEqual(typeof v === "string" ? v.toLowerCase() : v);
        for (const [k, v] of Object.entries(original)) {
          if (k === "genesis") continue;
          expect(out[k], k).toEqual(v);
        }
        // Go always emits protocol_versions_address (zero when unset); nothing else is added
        expect(Object.keys(out).filter((k) => !(k in original) && k !== "protocol_versions_address")).toEqual([]);
      });
    }
  });
});
