import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfigIssue } from "../../../src/config/issues.js";
import { loadConfig } from "../../../src/config/load.js";
import type { ChainConfig, SupernodeConfig } from "../../../src/config/types.js";
import { baseArgs, type Fixture, makeFixture } from "./helpers.js";

let f: Fixture;
beforeAll(() => {
  f = makeFixture();
});
afterAll(() => f.cleanup());

function ok(argv: string[], env: Record<string, string> = {}): SupernodeConfig {
  const res = loadConfig(argv, env);
  if (!res.ok) throw new Error(`unexpected issues:\n${res.issues.map((i) => JSON.stringify(i)).join("\n")}`);
  return res.config;
}
function issues(argv: string[], env: Record<string, string> = {}): readonly ConfigIssue[] {
  const res = loadConfig(argv, env);
  if (res.ok) throw new Error("expected configuration problems");
  return res.issues;
}
function chain(cfg: SupernodeConfig, id: number): ChainConfig {
  const c = cfg.chainConfigs.find((x) => x.chainId === BigInt(id));
  if (!c) throw new Error(`no chain ${id}`);
  return c;
}
function hasIssue(
  list: readonly ConfigIssue[],
  option: string | RegExp,
  text: string | RegExp,
  chainId?: number,
): void {
  const match = list.find(
    (i) =>
      (typeof option === "string" ? i.option === option : option.test(i.option ?? "")) &&
      (typeof text === "string" ? i.message.includes(text) : text.test(i.message)) &&
      (chainId === undefined || i.chain === String(chainId)),
  );
  expect(
    match,
    `issue ${String(option)} ~ ${String(text)} in\n${list.map((i) => JSON.stringify(i)).join("\n")}`,
  ).toBeDefined();
}

describe("loadConfig: expansion and defaults", () => {
  it("builds one ChainConfig per --chains entry with defaults", () => {
    const cfg = ok(baseArgs(f, [901, 902]));
    expect(cfg.chains).toEqual([901n, 902n]);
    expect(cfg.chainConfigs.map((c) => c.chainId)).toEqual([901n, 902n]);
    expect(cfg.dataDir).toBe("./datadir");
    expect(cfg.l1HttpPollIntervalMs).toBe(12_000);
    expect(cfg.rpc).toEqual({
      addr: "0.0.0.0",
      port: 8545,
      requestTimeoutMs: 30_000,
      maxConnections: 1024,
      maxConnectionsPerClient: 128,
      enableAdmin: false,
    });
    expect(cfg.log).toEqual({ level: "info", format: "text", color: false });
    expect(cfg.metrics).toEqual({ enabled: false, addr: "0.0.0.0", port: 7300 });
    expect(cfg.pprof).toEqual({ enabled: false, addr: "0.0.0.0", port: 6060 });
    expect(cfg.interopActivationTimestamp).toBeUndefined();
    const c = chain(cfg, 901);
    expect(c.engineKind).toBe("variant_b");
    expect(c.syncMode).toBe("consensus-layer");
    expect(c.sequencer).toEqual({
      enabled: false,
      stopped: false,
      l1Confs: 4,
      maxSafeLag: 0,
      recoverMode: false,
      sealingDurationMs: 50,
    });
    expect(c.dataDir).toMatch(/datadir[/\\]chain-901$/);
    expect(c.safedbPath).toMatch(/chain-901[/\\]safedb$/);
    expect(c.p2p.listenTcp).toBe(0);
    expect(c.p2p.listenUdp).toBe(0);
    expect(c.p2p.privPath).toMatch(/chain-901[/\\]p2p[/\\]p2p_priv\.txt$/);
    expect(c.jwtSecret).toEqual(new Uint8Array(32).fill(0xab));
    expect(c.rollup.l2_chain_id).toBe(901n);
    expect(c.l2).toBe("http://127.0.0.1:9551");
    expect(chain(cfg, 902).l2).toBe("http://127.0.0.1:9552");
    expect(c.options["p2p.peers.hi"]).toBe(30);
    expect(c.explicitOptions.has("l2")).toBe(true);
    expect(c.explicitOptions.has("syncmode")).toBe(false);
  });

  it("accepts --chains as comma list and repeated, and from SUPERNODE_CHAINS", () => {
    const args = baseArgs(f, [1, 2, 3]);
    args.splice(0, 2, "--chains=1,, 2", "--chains", "3");
    expect(ok(args).chains).toEqual([1n, 2n, 3n]);
    const envArgs = baseArgs(f, [5, 6]).slice(2);
    expect(ok(envArgs, { SUPERNODE_CHAINS: "5, 6" }).chains).toEqual([5n, 6n]);
    // the flag wins over the env var
    expect(ok(baseArgs(f, [7]), { SUPERNODE_CHAINS: "8" }).chains).toEqual([7n]);
  });

  it("reads every top-level option from SUPERNODE_<NAME>", () => {
    const args = baseArgs(f, [10]).filter(
      (_, i, a) => !["--l1", "--l1.beacon"].includes(a[i - 1] ?? "") && !["--l1", "--l1.beacon"].includes(a[i] ?? ""),
    );
    const cfg = ok(args, {
      SUPERNODE_L1: "http://127.0.0.1:1",
      SUPERNODE_L1_BEACON: "http://127.0.0.1:2",
      SUPERNODE_L1_BEACON_ARCHIVER: "http://127.0.0.1:3,http://127.0.0.1:4",
      SUPERNODE_L1_HTTP_POLL_INTERVAL: "500ms",
      SUPERNODE_DATA_DIR: "/tmp/sn-data",
      SUPERNODE_DISABLE_P2P: "true",
      SUPERNODE_RPC_ADDR: "127.0.0.1",
      SUPERNODE_RPC_PORT: "0",
      SUPERNODE_RPC_ENABLE_ADMIN: "1",
      SUPERNODE_RPC_REQUEST_TIMEOUT: "5s",
      SUPERNODE_RPC_MAX_CONNECTIONS: "64",
      SUPERNODE_RPC_MAX_CONNECTIONS_PER_CLIENT: "16",
      SUPERNODE_L1_MAX_RESPONSE_SIZE: "1048576",
      SUPERNODE_L1_BEACON_MAX_RESPONSE_SIZE: "2097152",
      SUPERNODE_LOG_LEVEL: "crit",
      SUPERNODE_LOG_FORMAT: "jsonms",
      SUPERNODE_LOG_COLOR: "true",
      SUPERNODE_METRICS_ENABLED: "true",
      SUPERNODE_METRICS_ADDR: "127.0.0.1",
      SUPERNODE_METRICS_PORT: "9300",
      SUPERNODE_PPROF_ENABLED: "true",
      SUPERNODE_PPROF_ADDR: "127.0.0.1",
      SUPERNODE_PPROF_PORT: "6061",
      SUPERNODE_INTEROP_ACTIVATION_TIMESTAMP: "1800000000",
      SUPERNODE_INTEROP_LOG_BACKFILL_DEPTH: "168h",
    });
    expect(cfg.l1).toBe("http://127.0.0.1:1");
    expect(cfg.l1Beacon).toBe("http://127.0.0.1:2");
    expect(cfg.l1BeaconFallbacks).toEqual(["http://127.0.0.1:3", "http://127.0.0.1:4"]);
    expect(cfg.l1HttpPollIntervalMs).toBe(500);
    expect(cfg.dataDir).toBe("/tmp/sn-data");
    expect(chain(cfg, 10).dataDir).toBe("/tmp/sn-data/chain-10");
    expect(cfg.disableP2p).toBe(true);
    expect(chain(cfg, 10).p2p.disabled).toBe(true);
    expect(cfg.rpc).toEqual({
      addr: "127.0.0.1",
      port: 0,
      enableAdmin: true,
      requestTimeoutMs: 5_000,
      maxConnections: 64,
      maxConnectionsPerClient: 16,
    });
    expect(cfg.l1MaxResponseBytes).toBe(1_048_576);
    expect(cfg.l1BeaconMaxResponseBytes).toBe(2_097_152);
    expect(cfg.log).toEqual({ level: "crit", format: "jsonms", color: true });
    expect(cfg.metrics).toEqual({ enabled: true, addr: "127.0.0.1", port: 9300 });
    expect(cfg.pprof).toEqual({ enabled: true, addr: "127.0.0.1", port: 6061 });
    expect(cfg.interopActivationTimestamp).toBe(1_800_000_000);
    expect(cfg.interopLogBackfillDepthMs).toBe(168 * 3_600_000);
  });

  it("accepts --l1.beacon-archiver as an alias and repeated lists", () => {
    const cfg = ok([
      ...baseArgs(f, [10]),
      "--l1.beacon-archiver",
      "http://127.0.0.1:7",
      "--l1.beacon-fallbacks=http://127.0.0.1:8,http://127.0.0.1:9",
    ]);
    expect(cfg.l1BeaconFallbacks).toEqual(["http://127.0.0.1:7", "http://127.0.0.1:8", "http://127.0.0.1:9"]);
  });

  it("parses booleans as --flag, --flag=true|false and durations with units", () => {
    expect(ok([...baseArgs(f, [10]), "--rpc.enable-admin"]).rpc.enableAdmin).toBe(true);
    expect(ok([...baseArgs(f, [10]), "--rpc.enable-admin=false"]).rpc.enableAdmin).toBe(false);
    const cfg = ok([
      ...baseArgs(f, [10]),
      "--l1.http-poll-interval",
      "1h30m",
      "--vn.10.sequencer.enabled",
      "--vn.10.p2p.ban.threshold",
      "-50",
    ]);
    expect(cfg.l1HttpPollIntervalMs).toBe(5_400_000);
    expect(chain(cfg, 10).sequencer.enabled).toBe(true);
    expect(chain(cfg, 10).p2p.banThreshold).toBe(-50);
  });

  it("takes per-chain env names from the flag's own env suffix", () => {
    const args = ["--chains", "10", "--l1", "http://127.0.0.1:8545", "--l1.beacon", "http://127.0.0.1:5052"];
    const cfg = ok(args, {
      SUPERNODE_VN_10_L2_ENGINE_RPC: "http://127.0.0.1:7551",
      SUPERNODE_VN_ALL_L2_ENGINE_AUTH: f.jwt,
      SUPERNODE_VN_10_ROLLUP_CONFIG: f.rollup(10),
      SUPERNODE_VN_ALL_L2_ENGINE_KIND: "variant_a",
      SUPERNODE_VN_10_FINALITY_DELAY: "12",
      SUPERNODE_VN_10_P2P_LISTEN_TCP_PORT: "30303",
    });
    const c = chain(cfg, 10);
    expect(c.l2).toBe("http://127.0.0.1:7551");
    expect(c.engineKind).toBe("variant_a");
    expect(c.finalityDelay).toBe(12);
    expect(c.p2p.listenTcp).toBe(30303);
    expect(c.rollupConfigPath).toBe(f.rollup(10));
    const net = ok(["--chains", "10", "--l1", "http://127.0.0.1:8545", "--l1.beacon", "http://127.0.0.1:5052"], {
      SUPERNODE_VN_10_L2_ENGINE_RPC: "http://127.0.0.1:7551",
      SUPERNODE_VN_10_L2_ENGINE_AUTH: f.jwt,
      SUPERNODE_VN_10_NETWORK: "op-mainnet",
    });
    expect(chain(net, 10).network).toBe("op-mainnet");
    expect(chain(net, 10).rollup.l2_chain_id).toBe(10n);
    expect(chain(net, 10).rollup.karst_time).toBe(1783526401);
    expect(chain(net, 10).rollup.keep_karst_upgrade_gas).toBe(true);
  });
});

describe("loadConfig: one precedence for every type", () => {
  // per-chain flag > per-chain env > all-chains flag > all-chains env > default
  const cases: ReadonlyArray<{
    flag: string;
    env: string;
    values: [string, string, string, string];
    read: (c: ChainConfig) => unknown;
    expect: [unknown, unknown, unknown, unknown, unknown];
  }> = [
    {
      flag: "l2.enginekind",
      env: "L2_ENGINE_KIND",
      values: ["variant_a", "variant_b", "variant_a", "variant_b"],
      read: (c) => c.engineKind,
      expect: ["variant_a", "variant_b", "variant_a", "variant_b", "variant_b"],
    },
    {
      flag: "sequencer.l1-confs",
      env: "SEQUENCER_L1_CONFS",
      values: ["1", "2", "3", "5"],
      read: (c) => c.sequencer.l1Confs,
      expect: [1, 2, 3, 5, 4],
    },
    {
      flag: "sequencer.enabled",
      env: "SEQUENCER_ENABLED",
      values: ["true", "false", "true", "false"],
      read: (c) => c.sequencer.enabled,
      expect: [true, false, true, false, false],
    },
    {
      flag: "l2.engine-rpc-timeout",
      env: "L2_ENGINE_RPC_TIMEOUT",
      values: ["1s", "2s", "3s", "4s"],
      read: (c) => c.l2EngineRpcTimeoutMs,
      expect: [1000, 2000, 3000, 4000, 10_000],
    },
    {
      flag: "p2p.static",
      env: "P2P_STATIC",
      values: ["/ip4/127.0.0.1/tcp/1", "/ip4/127.0.0.1/tcp/2", "/ip4/127.0.0.1/tcp/3", "/ip4/127.0.0.1/tcp/4"],
      read: (c) => c.p2p.static,
      expect: [
        ["/ip4/127.0.0.1/tcp/1"],
        ["/ip4/127.0.0.1/tcp/2"],
        ["/ip4/127.0.0.1/tcp/3"],
        ["/ip4/127.0.0.1/tcp/4"],
        [],
      ],
    },
    {
      flag: "syncmode",
      env: "SYNCMODE",
      values: ["execution-layer", "consensus-layer", "execution-layer", "consensus-layer"],
      read: (c) => c.syncMode,
      expect: ["execution-layer", "consensus-layer", "execution-layer", "consensus-layer", "consensus-layer"],
    },
  ];
  for (const tc of cases) {
    it(`${tc.flag}`, () => {
      const [perFlag, perEnv, allFlag, allEnv] = tc.values;
      const layers = (n: number): { args: string[]; env: Record<string, string> } => {
        const args = baseArgs(f, [10, 20]);
        const env: Record<string, string> = {};
        if (n <= 0) args.push(`--vn.10.${tc.flag}=${perFlag}`);
        if (n <= 1) env[`SUPERNODE_VN_10_${tc.env}`] = perEnv;
        if (n <= 2) args.push(`--vn.all.${tc.flag}=${allFlag}`);
        if (n <= 3) env[`SUPERNODE_VN_ALL_${tc.env}`] = allEnv;
        return { args, env };
      };
      for (let n = 0; n <= 4; n++) {
        const { args, env } = layers(n);
        const cfg = ok(args, env);
        expect(tc.read(chain(cfg, 10)), `layer ${n}`).toEqual(tc.expect[n]);
      }
      // the other chain only sees the all-chains layers
      const { args, env } = layers(0);
      expect(tc.read(chain(ok(args, env), 20))).toEqual(tc.expect[2]);
    });
  }
});

describe("loadConfig: settings the supernode owns", () => {
  it("discards per-chain l1 and l1.beacon with a warning naming them", () => {
    const res = loadConfig(
      [...baseArgs(f, [10]), "--vn.10.l1", "http://127.0.0.1:1", "--vn.all.l1.beacon", "http://127.0.0.1:2"],
      {},
    );
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    const discarded = res.warnings.filter((w) => w.msg.includes("discarded")).map((w) => w.fields.flag);
    expect(discarded.sort()).toEqual(["l1", "l1.beacon"]);
    expect(res.config.chainConfigs[0]?.options.l1).toBeUndefined();
    expect(res.config.l1).toBe("http://127.0.0.1:8545");
  });
  it("warns on a per-chain l1.http-poll-interval and ignores it", () => {
    const res = loadConfig([...baseArgs(f, [10]), "--vn.all.l1.http-poll-interval", "1s"], {});
    expect(res.ok && res.config.l1HttpPollIntervalMs).toBe(12_000);
    expect(
      res.warnings.some(
        (w) => w.msg.includes("ignored") && w.fields.flag === "l1.http-poll-interval" && w.fields.chain === "10",
      ),
    ).toBe(true);
  });
  it("warns that a per-chain l1.epoch-poll-interval has no effect (the shared L1 client reads safe and finalized)", () => {
    const res = loadConfig([...baseArgs(f, [10]), "--vn.10.l1.epoch-poll-interval", "1s"], {});
    expect(res.ok).toBe(true);
    const w = res.warnings.find((x) => x.fields.flag === "l1.epoch-poll-interval");
    expect(w?.msg).toContain("no effect");
    expect(String(w?.fields.reason)).toContain("--l1.http-poll-interval");
  });
  it("p2p.priv.path: honoured per chain, ignored with a warning for all chains at once (op-supernode #21436)", () => {
    const res = loadConfig(
      [...baseArgs(f, [10, 20]), "--vn.all.p2p.priv.path", "/tmp/shared.key", "--vn.20.p2p.priv.path", "/tmp/20.key"],
      {},
    );
    if (!res.ok) throw new Error(JSON.stringify(res.issues));
    const [c10, c20] = res.config.chainConfigs;
    expect(c10?.p2p.privPath).toMatch(/chain-10[/\\]p2p[/\\]p2p_priv\.txt$/);
    expect(c20?.p2p.privPath).toBe("/tmp/20.key");
    expect(res.warnings.some((w) => w.fields.flag === "p2p.priv.path" && w.msg.includes("ignored"))).toBe(true);
  });
  it("silently ignores per-chain log.*", () => {
    const res = loadConfig([...baseArgs(f, [10]), "--vn.10.log.level", "debug", "--vn.all.log.format=json"], {});
    expect(res.ok).toBe(true);
    expect(res.warnings).toEqual([]);
    expect(res.ok && res.config.log.level).toBe("info");
  });
  it("honours per-chain metrics.*", () => {
    const cfg = ok([...baseArgs(f, [10, 20]), "--vn.10.metrics.enabled", "--vn.10.metrics.port", "7301"]);
    expect(chain(cfg, 10).metrics).toEqual({ enabled: true, addr: "0.0.0.0", port: 7301 });
    expect(chain(cfg, 20).metrics.enabled).toBe(false);
  });
  it("P2P listen ports: per-chain non-zero allowed, shared or duplicate rejected", () => {
    const cfg = ok([
      ...baseArgs(f, [10, 20]),
      "--vn.10.p2p.listen.tcp",
      "30303",
      "--vn.20.p2p.listen.tcp",
      "30304",
      "--vn.all.p2p.listen.udp=0",
    ]);
    expect(chain(cfg, 10).p2p.listenTcp).toBe(30303);
    hasIssue(
      issues([...baseArgs(f, [10, 20]), "--vn.all.p2p.listen.tcp", "30303"]),
      "--vn.all.p2p.listen.tcp",
      "non-zero",
    );
    hasIssue(
      issues(baseArgs(f, [10]), { SUPERNODE_VN_ALL_P2P_LISTEN_UDP_PORT: "9000" }),
      "SUPERNODE_VN_ALL_P2P_LISTEN_UDP_PORT",
      "non-zero",
    );
    hasIssue(
      issues([...baseArgs(f, [10, 20]), "--vn.10.p2p.listen.udp", "30303", "--vn.20.p2p.listen.udp", "30303"]),
      "--vn.20.p2p.listen.udp",
      "also used by chain 10",
      20,
    );
  });
  it("applies override.<fork> to the rollup config", () => {
    const cfg = ok([
      ...baseArgs(f, [10]),
      "--vn.10.override.fjord",
      "1750000000",
      "--vn.all.override.pectrablobschedule=5",
    ]);
    expect(chain(cfg, 10).rollup.fjord_time).toBe(1_750_000_000);
    expect(chain(cfg, 10).rollup.pectra_blob_schedule_time).toBe(5);
  });
});

describe("loadConfig: validation reports every problem at once", () => {
  it("missing --chains and --l1", () => {
    const list = issues([]);
    hasIssue(list, "--chains", "required");
    hasIssue(list, "--l1", "required");
  });
  it("bad and duplicate chain IDs", () => {
    const list = issues(["--chains", "10,x1,10,0,18446744073709551616", "--l1", "http://127.0.0.1:1"]);
    hasIssue(list, "--chains", 'invalid chain ID "x1"');
    hasIssue(list, "--chains", "duplicate chain ID 10");
    hasIssue(list, "--chains", 'invalid chain ID "0"');
    hasIssue(list, "--chains", 'invalid chain ID "18446744073709551616"');
    hasIssue(issues([], { SUPERNODE_CHAINS: "abc" }), "SUPERNODE_CHAINS", "invalid chain ID");
  });
  it("--vn.<id>.* for a chain not in --chains", () => {
    hasIssue(
      issues([...baseArgs(f, [10]), "--vn.11.l2", "http://127.0.0.1:1"]),
      "--vn.11.l2",
      "chain 11 is not in --chains (10)",
      11,
    );
  });
  it("unknown options suggest the nearest name", () => {
    const list = issues([
      ...baseArgs(f, [10]),
      "--rpc.prot",
      "1",
      "--vn.10.sequencer.enabeld",
      "--vn.all.l2.jwt-secrt",
      "x",
      "--l2",
      "http://x",
      "--totally-unknown",
    ]);
    hasIssue(list, "--rpc.prot", "did you mean --rpc.port?");
    hasIssue(list, "--vn.10.sequencer.enabeld", "did you mean --vn.10.sequencer.enabled?");
    hasIssue(list, "--vn.all.l2.jwt-secrt", "did you mean --vn.all.l2.jwt-secret?");
    hasIssue(list, "--l2", "per-chain option: use --vn.10.l2 or --vn.all.l2");
    hasIssue(list, "--totally-unknown", /^unknown option$/);
    hasIssue(issues([...baseArgs(f, [10]), "--vn.abc.l2", "x"]), "--vn.abc.l2", "unknown option");
  });
  it("a chain without l2", () => {
    const args = baseArgs(f, [10]).filter((a, i, all) => a !== "--vn.10.l2" && all[i - 1] !== "--vn.10.l2");
    hasIssue(issues(args), "--vn.10.l2", "required", 10);
  });
  it("neither or both of network and rollup.config", () => {
    const args = baseArgs(f, [10]).filter(
      (a, i, all) => a !== "--vn.10.rollup.config" && all[i - 1] !== "--vn.10.rollup.config",
    );
    hasIssue(issues(args), /network \/ .*rollup\.config/, "one of network or rollup.config is required", 10);
    hasIssue(
      issues([...baseArgs(f, [10]), "--vn.10.network", "op-mainnet"]),
      /network \/ .*rollup\.config/,
      "not both",
      10,
    );
  });
  it("an unknown network lists the known ones", () => {
    const args = baseArgs(f, [10]).filter(
      (a, i, all) => a !== "--vn.10.rollup.config" && all[i - 1] !== "--vn.10.rollup.config",
    );
    hasIssue(
      issues([...args, "--vn.10.network", "op-mainet"]),
      "--vn.10.network",
      /unknown network "op-mainet"; known networks: .*op-mainnet.*op-sepolia/,
      10,
    );
  });
  it("a network that left the superchain registry points to rollup.config", () => {
    const args = baseArgs(f, [8453]).filter(
      (a, i, all) => a !== "--vn.8453.rollup.config" && all[i - 1] !== "--vn.8453.rollup.config",
    );
    hasIssue(
      issues([...args, "--vn.8453.network", "base-mainnet"]),
      "--vn.8453.network",
      /"base-mainnet" is no longer in the superchain registry \(2026-08\).*rollup\.config/,
      8453,
    );
  });
  it("network for another chain ID", () => {
    const args = baseArgs(f, [8453]).filter(
      (a, i, all) => a !== "--vn.8453.rollup.config" && all[i - 1] !== "--vn.8453.rollup.config",
    );
    hasIssue(
      issues([...args, "--vn.8453.network", "op-mainnet"]),
      "--vn.8453.network",
      "l2_chain_id 10, not chain 8453",
      8453,
    );
  });
  it("rollup config file missing, not JSON, unknown fields, wrong chain, failing checks", () => {
    const base = baseArgs(f, [10]);
    const withFile = (p: string) => {
      const a = [...base];
      a[a.indexOf("--vn.10.rollup.config") + 1] = p;
      return a;
    };
    hasIssue(issues(withFile(`${f.dir}/nope.json`)), "--vn.10.rollup.config", "does not exist", 10);
    hasIssue(issues(withFile(f.write("bad.json", "{not json"))), "--vn.10.rollup.config", "not valid JSON", 10);
    hasIssue(issues(withFile(f.rollup(10, { surprise: 1 }))), "--vn.10.rollup.config", "unknown field(s) surprise", 10);
    hasIssue(issues(withFile(f.rollup(11))), "--vn.10.rollup.config", "l2_chain_id 11, not chain 10", 10);
    hasIssue(issues(withFile(f.rollup(10, { block_time: 0 }))), "--vn.10.rollup.config", "block_time must be > 0", 10);
    hasIssue(
      issues(withFile(f.rollup(10, { marsh_time: 1790000000 }))),
      "--vn.10.rollup.config",
      /schedules fork "marsh" at 1790000000 .*which this node does not implement/,
      10,
    );
  });
  it("two chains on the same l2 endpoint", () => {
    const args = baseArgs(f, [10, 20]);
    args[args.indexOf("--vn.20.l2") + 1] = "http://localhost:9551/";
    hasIssue(issues(args), "--vn.20.l2", "already backs chain 10", 20);
  });
  it("JWT secret missing, unreadable or not 32 bytes of hex", () => {
    const noJwt = baseArgs(f, [10]).filter(
      (a, i, all) => a !== "--vn.all.l2.jwt-secret" && all[i - 1] !== "--vn.all.l2.jwt-secret",
    );
    hasIssue(issues(noJwt), "--vn.10.l2.jwt-secret", "required", 10);
    hasIssue(
      issues([...noJwt, "--vn.10.l2.jwt-secret", `${f.dir}/missing.hex`]),
      "--vn.10.l2.jwt-secret",
      "does not exist",
      10,
    );
    hasIssue(
      issues([...noJwt, "--vn.10.l2.jwt-secret", f.write("short.hex", "0x1234")]),
      "--vn.10.l2.jwt-secret",
      "32 bytes",
      10,
    );
    // accepted forms: no prefix, surrounding whitespace
    const cfg = ok([...noJwt, "--vn.10.l2.jwt-secret", f.write("plain.hex", `  ${"0f".repeat(32)}  \n`)]);
    expect(chain(cfg, 10).jwtSecret[0]).toBe(0x0f);
  });
  it("no --l1.beacon while a chain schedules Ecotone", () => {
    const noBeacon = baseArgs(f, [10]).filter((a, i, all) => a !== "--l1.beacon" && all[i - 1] !== "--l1.beacon");
    hasIssue(issues(noBeacon), "--l1.beacon", "schedules Ecotone", 10);
    const pre = [
      "--chains",
      "10",
      "--l1",
      "http://127.0.0.1:1",
      "--vn.10.l2",
      "http://127.0.0.1:2",
      "--vn.10.l2.jwt-secret",
      f.jwt,
    ];
    expect(ok([...pre, "--vn.10.rollup.config", f.rollup(10, {}, false)]).l1Beacon).toBeUndefined();
  });
  it("bad ports, bad values and negative durations", () => {
    const list = issues([
      ...baseArgs(f, [10]),
      "--rpc.port",
      "70000",
      "--metrics.port=-1",
      "--vn.10.p2p.listen.tcp",
      "x",
      "--l1.http-poll-interval",
      "-1s",
      "--interop.log-backfill-depth",
      "5",
      "--log.level",
      "loud",
      "--vn.10.l2.enginekind",
      "geth",
    ]);
    hasIssue(list, "--rpc.port", "invalid port 70000");
    hasIssue(list, "--metrics.port", "must not be negative");
    hasIssue(list, "--vn.10.p2p.listen.tcp", "invalid number", 10);
    hasIssue(list, "--l1.http-poll-interval", "negative duration");
    hasIssue(list, "--interop.log-backfill-depth", "invalid duration");
    hasIssue(list, "--log.level", "expected one of: trace, debug, info, warn, error, crit");
    hasIssue(list, "--vn.10.l2.enginekind", "expected one of: variant_b, variant_a", 10);
    expect(list.length).toBe(7);
  });
  it("interop.log-backfill-depth > 0 needs a known activation timestamp", () => {
    hasIssue(
      issues([...baseArgs(f, [10]), "--interop.log-backfill-depth", "1h"]),
      "--interop.log-backfill-depth",
      "requires an interop activation timestamp",
    );
    expect(
      ok([...baseArgs(f, [10]), "--interop.log-backfill-depth", "1h", "--interop.activation-timestamp", "1800000000"])
        .interopActivationTimestamp,
    ).toBe(1_800_000_000);
  });
  it("interop activation from rollup configs: equal values used, differing or partial rejected, 0 means use them", () => {
    const args = (t10?: number, t20?: number) => {
      const a = baseArgs(f, [10, 20]);
      a[a.indexOf("--vn.10.rollup.config") + 1] = f.rollup(10, t10 === undefined ? {} : { interop_time: t10 });
      a[a.indexOf("--vn.20.rollup.config") + 1] = f.rollup(20, t20 === undefined ? {} : { interop_time: t20 });
      return a;
    };
    expect(
      ok([...args(2000, 2000), "--interop.activation-timestamp", "0", "--interop.log-backfill-depth", "1h"])
        .interopActivationTimestamp,
    ).toBe(2000);
    hasIssue(
      issues(args(2000, 3000)),
      "--interop.activation-timestamp",
      "mismatched interop activation timestamps: chain 10=2000, chain 20=3000",
    );
    hasIssue(
      issues(args(2000, undefined)),
      "--interop.activation-timestamp",
      "chain 20 has no interop activation timestamp, but chain 10 is configured for timestamp 2000",
      20,
    );
    // an explicit non-zero flag overrides the rollup configs
    expect(ok([...args(2000, 3000), "--interop.activation-timestamp", "4000"]).interopActivationTimestamp).toBe(4000);
  });
  it("a bad configuration reports all of its problems together", () => {
    const list = issues([
      "--chains",
      "10,10,20",
      "--vn.30.l2",
      "x",
      "--rpc.port",
      "99999",
      "--vn.10.l2",
      "nope",
      "--vn.20.network",
      "none",
    ]);
    hasIssue(list, "--chains", "duplicate");
    hasIssue(list, "--vn.30.l2", "not in --chains");
    hasIssue(list, "--rpc.port", "invalid port");
    hasIssue(list, "--l1", "required");
    hasIssue(list, "--vn.10.l2", "invalid endpoint", 10);
    hasIssue(list, "--vn.10.l2.jwt-secret", "required", 10);
    hasIssue(list, "--vn.20.network", "unknown network", 20);
    hasIssue(list, "--vn.20.l2", "required", 20);
    expect(list.length).toBeGreaterThanOrEqual(9);
  });
  it("unexpected positional arguments", () => {
    hasIssue(issues([...baseArgs(f, [10]), "stray"]), /^$/, /^unexpected argument "stray"$/);
    hasIssue(issues(["confg", ...baseArgs(f, [10])]), /^$/, "did you mean the command `supernode config`");
  });
});
