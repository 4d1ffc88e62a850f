import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type CliIo } from "../../../src/cli/program.js";
import type { SupernodeConfig } from "../../../src/config/types.js";
import { baseArgs, type Fixture, makeFixture } from "../config/helpers.js";

let f: Fixture;
beforeAll(() => {
  f = makeFixture();
});
afterAll(() => f.cleanup());

function io(env: Record<string, string> = {}, run?: CliIo["run"]) {
  const out: string[] = [];
  const err: string[] = [];
  const logs: string[] = [];
  const value: CliIo = {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    env,
    handleSignals: false,
    logDestination: { write: (s: string) => logs.push(s) },
    ...(run ? { run } : {}),
  };
  return { value, out: () => out.join(""), err: () => err.join(""), logs: () => logs.join("") };
}

describe("supernode --help", () => {
  it("prints the top-level options grouped by topic with env names and defaults", async () => {
    const t = io();
    expect(await runCli(["--help"], t.value)).toBe(0);
    const help = t.out();
    for (const group of ["Core:", "L1:", "Interop:", "RPC:", "Logging:", "Metrics and profiling:", "Per-chain options"])
      expect(help).toContain(group);
    expect(help).toMatch(/--chains <list>\s+Chain IDs/);
    expect(help).toContain("[env: SUPERNODE_CHAINS]");
    expect(help).toContain("--l1.beacon-fallbacks, --l1.beacon-archiver <list>");
    expect(help).toContain("(default: 12s)");
    expect(help).toContain("(default: 8545) [env: SUPERNODE_RPC_PORT]");
    expect(help).toContain("SUPERNODE_VN_<CHAINID>_<SUFFIX>");
    expect(help).toContain("supernode config");
    expect(help).toContain("Precedence: per-chain flag > per-chain env > all-chains flag > all-chains env > default.");
    // every command is separated from its description (a long one gets the description on the next line)
    for (const line of help.split("\n").filter((l) => l.startsWith("       supernode ")))
      expect(line, line).toMatch(/^ {7}supernode \S.*?(\s{2,}\S|[^\s]$)/);
    expect(help).not.toMatch(/--chain Ncheck/);
    expect(help).toMatch(/--chain N\n\s{20,}check a chain's SafeDB/);
  });

  it("chain-options lists every per-chain option with its env name", async () => {
    const t = io();
    expect(await runCli(["chain-options"], t.value)).toBe(0);
    const flat = t.out().replace(/\s+/g, " ");
    expect(flat).toMatch(/--vn\.<id>\.l2 <value> Engine API endpoint[^[]*\[env: …_L2_ENGINE_RPC\]/);
    expect(flat).toContain("[env: …_L2_ENGINE_AUTH]");
    expect(flat).toContain("(one of: variant_b, variant_a) (default: variant_b) [env: …_L2_ENGINE_KIND]");
    expect(t.out()).not.toContain("p2p.gossip.mesh.d ");
    const all = io();
    await runCli(["chain-options", "--hidden"], all.value);
    expect(all.out()).toContain("--vn.<id>.p2p.gossip.mesh.d <uint>");
  });

  it("`supernode devnet …` says the devnet is the supernode-devnet package (exit 2, nothing run)", async () => {
    let ran = false;
    const t = io({}, async () => {
      ran = true;
    });
    expect(await runCli(["devnet", "--chains", "4", "--interop"], t.value)).toBe(2);
    expect(t.err()).toContain("npx supernode-devnet [options]");
    expect(t.err()).toContain("npm start -- [options]");
    expect(ran).toBe(false);
    const help = io();
    await runCli(["--help"], help.value);
    expect(help.out()).toContain("npx supernode-devnet --help");
  });

  it("--version", async () => {
    const t = io();
    expect(await runCli(["--version"], t.value)).toBe(0);
    expect(t.out()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("supernode (run)", () => {
  it("with a bad configuration prints all problems and exits non-zero without starting", async () => {
    let started = false;
    const t = io({}, async () => {
      started = true;
    });
    const code = await runCli(
      ["--chains", "10,10", "--vn.11.l2", "x", "--rpc.port", "1e9", "--vn.10.l2", "http://127.0.0.1:1"],
      t.value,
    );
    expect(code).toBe(1);
    expect(started).toBe(false);
    const lines = t.err().trim().split("\n");
    expect(lines[0]).toMatch(/^supernode: invalid configuration \(\d+ problems\):$/);
    expect(t.err()).toContain("--chains: duplicate chain ID 10");
    expect(t.err()).toContain("--vn.11.l2 (chain 11): chain 11 is not in --chains (10)");
    expect(t.err()).toContain("--rpc.port: invalid number");
    expect(t.err()).toContain("--l1: required");
    expect(t.err()).toContain("--vn.10.l2.jwt-secret (chain 10): required");
    expect(lines.length - 1).toBeGreaterThanOrEqual(6);
    expect(t.out()).toBe("");
  });

  it("with a good configuration logs warnings and calls runSupernode with the config, a logger and a signal", async () => {
    let got: SupernodeConfig | undefined;
    const t = io({ SUPERNODE_LOG_FORMAT: "json" }, async (config, deps) => {
      got = config;
      expect(deps.signal.aborted).toBe(false);
      deps.logger.child({ chain: "10" }).info({}, "hello from chain");
    });
    const code = await runCli([...baseArgs(f, [10]), "--vn.10.l1", "http://127.0.0.1:3"], t.value);
    expect(code).toBe(0);
    expect(got?.chains).toEqual([10n]);
    const logs = t
      .logs()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(logs.find((l) => l.msg === "hello from chain")?.chain).toBe("10");
    expect(logs.find((l) => l.lvl === "warn" && l.flag === "l1")?.chain).toBe("10");
    expect(logs.find((l) => l.msg === "chain configured")).toMatchObject({
      chain: "10",
      engineKind: "variant_b",
      l2: "http://127.0.0.1:9551",
    });
  });

  it("exits 1 and logs crit when the node fails", async () => {
    const t = io({ SUPERNODE_LOG_FORMAT: "logfmt" }, async () => {
      throw new Error("boom");
    });
    expect(await runCli(baseArgs(f, [10]), t.value)).toBe(1);
    expect(t.logs()).toMatch(/lvl=crit msg="supernode failed" err=boom/);
  });
});

describe("supernode config", () => {
  it("prints the effective per-chain configuration as JSON with secrets redacted", async () => {
    const t = io({ SUPERNODE_VN_10_P2P_SEQUENCER_KEY: `0x${"12".repeat(32)}` });
    const code = await runCli(["config", ...baseArgs(f, [10, 20]), "--vn.all.sequencer.l1-confs", "7"], t.value);
    expect(t.err()).toBe("");
    expect(code).toBe(0);
    const json = JSON.parse(t.out());
    expect(json.chains).toEqual(["10", "20"]);
    expect(json.chainConfigs).toHaveLength(2);
    const c10 = json.chainConfigs[0];
    expect(c10.chainId).toBe("10");
    expect(c10.jwtSecret).toBe("[redacted]");
    expect(c10.jwtSecretPath).toBe(f.jwt);
    expect(c10.p2p.sequencerKey).toBe("[redacted]");
    expect(c10.options["p2p.sequencer.key"]).toBe("[redacted]");
    expect(c10.sequencer.l1Confs).toBe(7);
    expect(c10.rollup.l2_chain_id).toBe(10);
    expect(t.out()).not.toContain("12".repeat(32));
    expect(t.out()).not.toContain("ab".repeat(32));
  });

  it("fails like run on a bad configuration", async () => {
    const t = io();
    expect(await runCli(["config", "--chains", "10"], t.value)).toBe(1);
    expect(t.err()).toContain("--l1: required");
    expect(t.out()).toBe("");
  });
});

describe("supernode config: credentials in URLs", () => {
  it("hides URL passwords", async () => {
    const args = baseArgs(f, [10]);
    args[args.indexOf("--l1") + 1] = "https://user:s3cret@127.0.0.1:8545/key";
    const t = io();
    expect(await runCli(["config", ...args], t.value)).toBe(0);
    expect(t.out()).not.toContain("s3cret");
    expect(JSON.parse(t.out()).l1).toBe("https://user:[redacted]@127.0.0.1:8545/key");
  });
});

describe("secrets given where a path is expected (issue 11)", () => {
  const secret = `0x${"5a".repeat(32)}`;
  const withSecretAsPath = () => baseArgs(f, [10]).map((a) => (a === f.jwt ? secret : a));

  it("are never echoed in configuration errors, by flag or by env", async () => {
    for (const [args, env] of [
      [withSecretAsPath(), {}],
      [
        baseArgs(f, [10]).filter((a, i, all) => a !== f.jwt && all[i + 1] !== f.jwt),
        { SUPERNODE_VN_ALL_L2_ENGINE_AUTH: secret.slice(2) },
      ],
    ] as const) {
      const t = io(env);
      expect(await runCli([...args], t.value)).toBe(1);
      expect(t.err()).toContain("looks like a JWT secret, not a file path");
      expect(t.err()).toContain("[redacted]");
      expect(t.err()).not.toContain("5a".repeat(32));
      expect(t.logs() + t.out()).not.toContain("5a".repeat(32));
    }
  });

  it("are redacted in logs under key-material names", async () => {
    const t = io({ SUPERNODE_LOG_FORMAT: "json" }, async (_config, deps) => {
      deps.logger.info({ jwtSecretPath: secret, options: { "l2.jwt-secret": secret } }, "chain configured");
    });
    expect(await runCli(baseArgs(f, [10]), t.value)).toBe(0);
    expect(t.logs()).toContain("[redacted]");
    expect(t.logs()).not.toContain("5a".repeat(32));
  });
});
