import type { Registry } from "prom-client";

/**
 * Renders the metrics catalogue (`docs/metrics.md`) from a registry: one row per family with its type, labels and
 * help text, sorted by name. Labels come from the metric definitions (not from samples), so families without
 * samples are documented too.
 */
export function renderMetricsCatalogue(registry: Registry, intro: string): string {
  const rows = registry
    .getMetricsAsArray()
    .map((m) => {
      const meta = m as unknown as { name: string; help: string; type?: string; labelNames?: readonly string[] };
      const type = meta.type ?? (m.constructor.name.toLowerCase() || "metric");
      const labels = (meta.labelNames ?? []).map((l) => `\`${l}\``).join(", ");
      return { name: meta.name, type, labels, help: meta.help.replace(/\|/g, "\\|") };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const lines = [intro.trimEnd(), "", "| name | type | labels | meaning |", "|---|---|---|---|"];
  for (const r of rows) lines.push(`| \`${r.name}\` | ${r.type} | ${r.labels === "" ? "—" : r.labels} | ${r.help} |`);
  return `${lines.join("\n")}\n`;
}
