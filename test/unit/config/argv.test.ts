import { describe, expect, it } from "vitest";
import { tokenizeArgv } from "../../../src/config/argv.js";
import { GLOBAL_OPTIONS } from "../../../src/config/global-options.js";
import { CHAIN_OPTIONS } from "../../../src/config/chain-options.js";
import { editDistance, nearest } from "../../../src/config/suggest.js";
import { parseOptionValue, splitList } from "../../../src/config/values.js";
import type { OptionSpec } from "../../../src/config/option-spec.js";

const spec = (type: OptionSpec["type"], extra: Partial<OptionSpec> = {}): OptionSpec => ({
  name: "x",
  type,
  env: ["X"],
  help: "",
  group: "g",
  ...extra,
});

describe("tokenizeArgv", () => {
  const arity = (n: string) =>
    n === "flag" ? ("bool" as const) : n.startsWith("unknown") ? ("unknown" as const) : ("value" as const);
  it("handles --a=b, --a b, -a b, bare booleans, negative values and --", () => {
    const t = tokenizeArgv(
      ["--a=1", "--b", "2", "-c", "3", "--flag", "pos", "--n", "-5", "--flag=false", "--", "--after"],
      arity,
    );
    expect(t.flags.map((f) => [f.name, f.value])).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["c", "3"],
      ["flag", undefined],
      ["n", "-5"],
      ["flag", "false"],
    ]);
    expect(t.positionals).toEqual(["pos", "--after"]);
  });
  it("an unknown flag takes the next token only when it is not a flag; a trailing value flag has none", () => {
    const t = tokenizeArgv(["--unknown1", "v", "--unknown2", "--b"], arity);
    expect(t.flags.map((f) => [f.name, f.value])).toEqual([
      ["unknown1", "v"],
      ["unknown2", undefined],
      ["b", undefined],
    ]);
  });
  it("keeps '=' inside values", () => {
    expect(tokenizeArgv(["--signer.header=k=v"], arity).flags[0]?.value).toBe("k=v");
  });
});

describe("parseOptionValue", () => {
  it("bool", () => {
    expect(parseOptionValue(spec("bool"), undefined)).toEqual({ ok: true, value: true });
    expect(parseOptionValue(spec("bool"), "FALSE")).toEqual({ ok: true, value: false });
    expect(parseOptionValue(spec("bool"), "1")).toEqual({ ok: true, value: true });
    expect(parseOptionValue(spec("bool"), "maybe").ok).toBe(false);
  });
  it("numbers and ports", () => {
    expect(parseOptionValue(spec("int"), "-100")).toEqual({ ok: true, value: -100 });
    expect(parseOptionValue(spec("uint"), "-1")).toMatchObject({
      ok: false,
      error: expect.stringContaining("negative"),
    });
    expect(parseOptionValue(spec("uint"), "1.5").ok).toBe(false);
    expect(parseOptionValue(spec("port"), "65535")).toEqual({ ok: true, value: 65535 });
    expect(parseOptionValue(spec("port"), "65536")).toMatchObject({
      ok: false,
      error: expect.stringContaining("invalid port"),
    });
    expect(parseOptionValue(spec("uint"), undefined)).toEqual({ ok: false, error: "needs a value" });
  });
  it("durations: 12s, 500ms, 168h, 0; negative and unit-less rejected", () => {
    expect(parseOptionValue(spec("duration"), "12s")).toEqual({ ok: true, value: 12_000 });
    expect(parseOptionValue(spec("duration"), "500ms")).toEqual({ ok: true, value: 500 });
    expect(parseOptionValue(spec("duration"), "168h")).toEqual({ ok: true, value: 604_800_000 });
    expect(parseOptionValue(spec("duration"), "6m24s")).toEqual({ ok: true, value: 384_000 });
    expect(parseOptionValue(spec("duration"), "0")).toEqual({ ok: true, value: 0 });
    expect(parseOptionValue(spec("duration"), "-1s")).toMatchObject({
      ok: false,
      error: expect.stringContaining("negative"),
    });
    expect(parseOptionValue(spec("duration"), "12")).toMatchObject({
      ok: false,
      error: expect.stringContaining("invalid duration"),
    });
  });
  it("lists and enums", () => {
    expect(splitList(" a, ,b ,, c")).toEqual(["a", "b", "c"]);
    expect(parseOptionValue(spec("list"), "x,y")).toEqual({ ok: true, value: ["x", "y"] });
    const e = spec("enum", { choices: ["variant_b", "variant_a"] });
    expect(parseOptionValue(e, "VARIANT_A")).toEqual({ ok: true, value: "variant_a" });
    expect(parseOptionValue(e, "reth")).toEqual({
      ok: false,
      error: 'invalid value "reth" (expected one of: variant_b, variant_a)',
    });
  });
});

describe("suggestions", () => {
  it("edit distance and nearest", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(nearest("rpc.prot", ["rpc.port", "rpc.addr"])).toBe("rpc.port");
    expect(nearest("zzzzzz", ["rpc.port"])).toBeUndefined();
  });
});

describe("option catalogues", () => {
  it("have unique names, aliases and env names; every default parses back", () => {
    for (const list of [GLOBAL_OPTIONS, CHAIN_OPTIONS]) {
      const names = list.flatMap((s) => [s.name, ...(s.aliases ?? [])]);
      expect(new Set(names).size).toBe(names.length);
      const envs = list.flatMap((s) => s.env);
      expect(new Set(envs).size).toBe(envs.length);
      for (const s of list) {
        expect(s.help.length, s.name).toBeGreaterThan(0);
        if (s.type === "enum")
          expect(s.choices?.includes(String(s.default ?? "")) || s.default === undefined, s.name).toBe(true);
      }
    }
  });
  it("per-chain env suffixes follow the rollup-node names", () => {
    const env = (n: string) => CHAIN_OPTIONS.find((s) => s.name === n)?.env;
    expect(env("l2")).toEqual(["L2_ENGINE_RPC"]);
    expect(env("l2.jwt-secret")).toEqual(["L2_ENGINE_AUTH"]);
    expect(env("l2.enginekind")).toEqual(["L2_ENGINE_KIND"]);
    expect(env("network")).toEqual(["NETWORK"]);
    expect(env("rollup.config")).toEqual(["ROLLUP_CONFIG"]);
    expect(env("finality.delay")).toEqual(["FINALITY_DELAY"]);
    expect(env("l1.beacon-fallbacks")).toEqual(["L1_BEACON_FALLBACKS", "L1_BEACON_ARCHIVER"]);
    expect(CHAIN_OPTIONS.find((s) => s.name === "l2.enginekind")?.default).toBe("variant_b");
    expect(CHAIN_OPTIONS.find((s) => s.name === "p2p.listen.tcp")?.default).toBe(0);
  });
  it("top-level options cover the specification's table with its defaults", () => {
    const d = Object.fromEntries(GLOBAL_OPTIONS.map((s) => [s.name, s.default]));
    expect(d).toEqual({
      chains: undefined,
      "data-dir": "./datadir",
      "disable-p2p": false,
      l1: undefined,
      "l1.beacon": undefined,
      "l1.beacon-fallbacks": [],
      "l1.http-poll-interval": 12_000,
      "l1.max-response-size": 64 * 1024 * 1024,
      "l1.beacon.max-response-size": 32 * 1024 * 1024,
      "interop.activation-timestamp": 0,
      "interop.log-backfill-depth": 0,
      "rpc.addr": "0.0.0.0",
      "rpc.port": 8545,
      "rpc.enable-admin": false,
      "rpc.request-timeout": 30_000,
      "rpc.max-connections": 1024,
      "rpc.max-connections-per-client": 128,
      "log.level": "info",
      "log.format": "text",
      "log.color": false,
      "metrics.enabled": false,
      "metrics.addr": "0.0.0.0",
      "metrics.port": 7300,
      "pprof.enabled": false,
      "pprof.addr": "0.0.0.0",
      "pprof.port": 6060,
    });
  });
});
