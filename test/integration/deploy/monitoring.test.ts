/**
 * Monitoring as code (deploy/prometheus, deploy/grafana), checked with the real promtool:
 * - `promtool check rules` on the alert rules and `promtool test rules` on their unit tests;
 * - every dashboard query is valid PromQL (each is loaded as a recording rule into `promtool check rules`);
 * - every expression of the rules and the dashboard names only series of docs/metrics.md, with their labels;
 * - every alert links a runbook section that docs/running.md has.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { describeWithTools } from "../../support/system-tools.js";
import { parseMetricsDoc, selectorsOf } from "./promql-names.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../../..");
const RULES = join(ROOT, "deploy/prometheus/supernode-alerts.yml");
const RULE_TESTS = join(ROOT, "deploy/prometheus/supernode-alerts.test.yml");
const DASHBOARD = join(ROOT, "deploy/grafana/supernode-dashboard.json");
/** Series Prometheus itself attaches to every scrape target. */
const PROMETHEUS_SERIES = new Set(["up"]);
/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = new Set(["job", "instance"]);

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  annotations?: Record<string, string>;
}
interface Panel {
  title?: string;
  type: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

async function alertRules(): Promise<Rule[]> {
  const doc = parseYaml(await readFile(RULES, "utf8")) as { groups: { rules: Rule[] }[] };
  return doc.groups.flatMap((g) => g.rules);
}

async function dashboard(): Promise<{ panels: Panel[]; templating: { list: { query?: unknown }[] } }> {
  return JSON.parse(await readFile(DASHBOARD, "utf8"));
}

function panelsOf(panels: Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);
}

/** Dashboard queries with Grafana's variables replaced by values Prometheus accepts. */
async function dashboardExprs(): Promise<{ where: string; expr: string }[]> {
  const d = await dashboard();
  const out: { where: string; expr: string }[] = [];
  for (const p of panelsOf(d.panels)) {
    for (const t of p.targets ?? []) out.push({ where: `panel "${p.title}"`, expr: t.expr });
  }
  for (const v of d.templating.list) {
    const q = typeof v.query === "object" && v.query !== null ? (v.query as { query: string }).query : v.query;
    const m = typeof q === "string" ? /^label_values\((.+),\s*\w+\)$/.exec(q) : null;
    if (m !== null) out.push({ where: "variable", expr: m[1] as string });
  }
  return out.map((e) => ({
    ...e,
    expr: e.expr.replaceAll("$__rate_interval", "1m").replaceAll("$chain", ".*"),
  }));
}

describeWithTools(["promtool"], "deploy/prometheus and deploy/grafana", (tools) => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sn-monitoring-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("promtool check rules accepts the alert rules", async () => {
    const rules = await alertRules();
    const { stdout } = await run(tools.promtool as string, ["check", "rules", RULES]);
    expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(rules.length).toBeGreaterThanOrEqual(10);
  });

  it("promtool test rules passes the rules' unit tests", async () => {
    const { stdout } = await run(tools.promtool as string, ["test", "rules", RULE_TESTS], {
      cwd: join(ROOT, "deploy/prometheus"),
    });
    expect(stdout).toContain("SUCCESS");
  });

  it("every dashboard query is valid PromQL (promtool check rules on them as recording rules)", async () => {
    const exprs = await dashboardExprs();
    expect(exprs.length).toBeGreaterThanOrEqual(20);
    const rules = exprs.map((e, i) => ({ record: `dashboard:query_${i}`, expr: e.expr }));
    const file = join(dir, "dashboard-queries.yml");
    await writeFile(file, JSON.stringify({ groups: [{ name: "dashboard", rules }] }));
    const { stdout } = await run(tools.promtool as string, ["check", "rules", file]);
    expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it("rules and dashboard name only series (and labels) that docs/metrics.md lists", async () => {
    const catalogue = parseMetricsDoc(await readFile(join(ROOT, "docs/metrics.md"), "utf8"));
    const exprs = [
      ...(await alertRules()).map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
      ...(await dashboardExprs()),
    ];
    const problems: string[] = [];
    const used = new Set<string>();
    for (const { where, expr } of exprs) {
      const sels = selectorsOf(expr);
      if (sels.length === 0) problems.push(`${where}: no series in ${expr}`);
      for (const s of sels) {
        used.add(s.name);
        if (PROMETHEUS_SERIES.has(s.name)) continue;
        if (!catalogue.families.has(s.name)) {
          problems.push(`${where}: ${s.name} is not in docs/metrics.md`);
          continue;
        }
        const labels = catalogue.families.get(s.name);
        for (const l of s.labels) {
          if (labels !== undefined && !labels.includes(l) && !TARGET_LABELS.has(l)) {
            problems.push(`${where}: ${s.name} has no label ${l}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    // The dashboard covers what operators asked for.
    for (const name of [
      "supernode_chain_head",
      "supernode_l1_requests_total",
      "supernode_l1_cache_total",
      "supernode_rpc_requests_total",
      "supernode_rpc_request_duration_seconds_bucket",
      "supernode_chain_restarts_total",
      "supernode_process_resident_memory_bytes",
      "supernode_nodejs_eventloop_lag_p99_seconds",
    ]) {
      expect(used, name).toContain(name);
    }
  });

  it("the PromQL reader finds names and labels (control)", () => {
    expect(
      selectorsOf('sum by (chain_id) (rate(foo_total{a="x{",b=~"y"}[5m])) / on (instance) bar - 1e-9 > baz offset 5m'),
    ).toEqual([
      { name: "foo_total", labels: ["a", "b"] },
      { name: "bar", labels: [] },
      { name: "baz", labels: [] },
    ]);
  });

  it("the dashboard has a chain variable, and every alert links a runbook section of docs/running.md", async () => {
    const d = await dashboard();
    expect(d.templating.list.map((v) => (v as { name?: string }).name)).toContain("chain");
    const running = await readFile(join(ROOT, "docs/running.md"), "utf8");
    const anchors = new Set(
      [...running.matchAll(/^#+\s+(.+)$/gm)].map((m) =>
        (m[1] as string)
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, "")
          .replaceAll(" ", "-"),
      ),
    );
    for (const r of await alertRules()) {
      const link = r.annotations?.runbook ?? "";
      expect(link, `${r.alert} runbook`).toMatch(/^docs\/running\.md#/);
      expect(anchors, `${r.alert}: ${link}`).toContain(link.split("#")[1]);
    }
  });
});
