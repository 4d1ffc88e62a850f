/**
 * A real Prometheus server (Debian's `prometheus`, loopback, temp dir, ended by PID) scrapes a supernode on the
 * devnet with the shipped alert rules: the per-chain series arrive, and when chain 902's execution client is killed
 * the "chain not ready" alert fires for 902 and not for 901. The rules are the shipped ones; only the alert's `for`
 * is shortened (and Prometheus scrapes and evaluates every second) so the test does not wait minutes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { buildChainRuntimes } from "../../../src/app/chain-factory.js";
import { protocolHashing } from "../../../src/app/hashing.js";
import { Supernode } from "../../../src/app/supernode.js";
import { type Devnet, supernodeArgsFor } from "supernode-devnet";
import { loadConfig } from "../../../src/config/load.js";
import { silentLogger } from "../../../src/core/logger.js";
import { startTwoChainDevnet } from "../../support/two-chain-devnet.js";
import { describeWithTools } from "../../support/system-tools.js";

const ROOT = join(import.meta.dirname, "../../..");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}
interface Alert {
  labels: Record<string, string>;
  state: string;
}

describeWithTools(["prometheus"], "Prometheus scraping a devnet supernode", (tools) => {
  let dir: string;
  let devnet: Devnet | undefined;
  let sn: Supernode | undefined;
  let prom: ChildProcess | undefined;
  let promExit: Promise<void> | undefined;
  let promUrl = "";
  let promLog = "";

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${promUrl}${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== "success") throw new Error(`prometheus ${path}: ${body.error}`);
    return body.data;
  };
  const query = async (q: string) =>
    (await api<{ result: Sample[] }>(`/api/v1/query?query=${encodeURIComponent(q)}`)).result;
  const alerts = async () => (await api<{ alerts: Alert[] }>("/api/v1/alerts")).alerts;
  const poll = { timeout: 60_000, interval: 500 };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-prom-"));
    devnet = await startTwoChainDevnet(dir);
    const loaded = loadConfig(
      [
        ...supernodeArgsFor(devnet, { dir, chains: [], rpcPort: 0, metricsPort: 0 }),
        "--l1.http-poll-interval",
        "250ms",
      ],
      {},
    );
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    sn = await Supernode.start(loaded.config, {
      logger: silentLogger,
      buildChains: buildChainRuntimes,
      hashing: protocolHashing,
    });
    devnet.startBatchers();
    const metricsTarget = new URL(sn.metricsServer!.url).host;

    // The shipped rules, with the chain-not-ready alert's `for` shortened.
    const rules = parseYaml(readFileSync(join(ROOT, "deploy/prometheus/supernode-alerts.yml"), "utf8")) as {
      groups: { rules: { alert?: string; for?: string }[] }[];
    };
    const notReady = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === "SupernodeChainNotReady");
    if (notReady === undefined) throw new Error("SupernodeChainNotReady missing from the rules");
    notReady.for = "1s";
    writeFileSync(join(dir, "rules.yml"), toYaml(rules));
    writeFileSync(
      join(dir, "prometheus.yml"),
      toYaml({
        global: { scrape_interval: "1s", evaluation_interval: "1s" },
        rule_files: [join(dir, "rules.yml")],
        scrape_configs: [{ job_name: "supernode", static_configs: [{ targets: [metricsTarget] }] }],
      }),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prom = spawn(
      tools.prometheus as string,
      [
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "tsdb")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=warn",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    prom.stderr?.on("data", (d: Buffer) => {
      promLog = (promLog + d.toString()).slice(-4000);
    });
    const child = prom;
    promExit = new Promise((resolve) => child.once("exit", () => resolve()));
    for (const t0 = Date.now(); (await fetch(`${promUrl}/-/ready`).catch(() => undefined))?.status !== 200; ) {
      if (child.exitCode !== null || Date.now() - t0 > 60_000) throw new Error(`prometheus did not start: ${promLog}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);

  afterAll(async () => {
    if (prom?.pid !== undefined && prom.exitCode === null) {
      process.kill(prom.pid, "SIGTERM");
      const killer = setTimeout(() => prom?.pid !== undefined && process.kill(prom.pid, "SIGKILL"), 5_000);
      await promExit;
      clearTimeout(killer);
    }
    await sn?.stop();
    await devnet?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("per-chain series arrive, and the chain-not-ready alert fires for the chain whose EL was killed only", async () => {
    const chainsOf = (samples: Sample[]) => samples.map((s) => s.metric.chain_id).sort();
    // Per-chain series, scraped by the real server (with the job and instance labels it adds).
    await expect
      .poll(async () => chainsOf(await query('supernode_chain_head{head="safe"} > 0')), poll)
      .toEqual(["901", "902"]);
    expect(chainsOf(await query('supernode_chain_head{job="supernode",head="unsafe"}'))).toEqual(["901", "902"]);
    // Alert counters exist with 0 from start-up, one per chain.
    expect((await query("supernode_chain_restarts_total")).map((s) => [s.metric.chain_id, s.value[1]]).sort()).toEqual([
      ["901", "0"],
      ["902", "0"],
    ]);
    expect(await query('supernode_l1_head_number{label="latest"} > 0')).toHaveLength(1);
    expect(chainsOf(await query("supernode_chain_ready == 1"))).toEqual(["901", "902"]);
    expect((await alerts()).filter((a) => a.labels.alertname === "SupernodeChainNotReady")).toEqual([]);

    // Kill chain 902's execution client.
    await devnet!.chain(902n).client.stop();

    await expect
      .poll(
        async () =>
          (await alerts())
            .filter((a) => a.labels.alertname === "SupernodeChainNotReady" && a.state === "firing")
            .map((a) => a.labels.chain_id),
        { timeout: 90_000, interval: 1_000 },
      )
      .toEqual(["902"]);
    const fired = (await alerts()).find((a) => a.labels.alertname === "SupernodeChainNotReady");
    expect(fired?.labels).toMatchObject({ chain_id: "902", job: "supernode", severity: "critical" });
    // Chain 901 is still ready and raised no alert of that kind, in any state.
    expect(chainsOf(await query("supernode_chain_ready == 1"))).toEqual(["901"]);
    expect(
      (await alerts()).filter((a) => a.labels.alertname === "SupernodeChainNotReady" && a.labels.chain_id === "901"),
    ).toEqual([]);
    expect(promLog).not.toMatch(/level=error/);
  }, 150_000);
});
