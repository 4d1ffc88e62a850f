/**
 * Reads the series names and label matchers out of PromQL expressions (enough of PromQL for our rules and
 * dashboard: selectors, functions, aggregations with by/without, binary operators with on/ignoring), and the
 * series catalogue out of docs/metrics.md.
 */

const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "inf",
  "nan",
]);

export interface SelectorUse {
  readonly name: string;
  readonly labels: readonly string[];
}

/** Every series selector in `expr`: its metric name and the label names it matches on. */
export function selectorsOf(expr: string): SelectorUse[] {
  let s = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""'); // strings
  s = s.replace(/\[[^\]]*\]/g, " "); // range and subquery windows
  s = s.replace(/\boffset\s+-?[0-9a-z]+/gi, " "); // offset 5m
  s = s.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " "); // label lists
  const out: SelectorUse[] = [];
  const re = /([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*(\{[^}]*\})?(\s*\()?/g;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (m[0] === "") {
      re.lastIndex++;
      continue;
    }
    const [, ident, braces, call] = m;
    if (ident === undefined || call !== undefined) continue; // a function or aggregation call
    if (KEYWORDS.has(ident.toLowerCase())) continue;
    if (/^[0-9]/.test(ident)) continue;
    const prev = s.slice(0, m.index).trimEnd();
    if (/[0-9.]$/.test(prev) && /^[eE]/.test(ident)) continue; // 1e-9
    const labels =
      braces === undefined
        ? []
        : [...braces.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g)].map((x) => x[1] as string);
    out.push({ name: ident, labels });
  }
  return out;
}

export interface MetricsCatalogue {
  /** Family name → its labels (undefined: documented without a label list, e.g. the process collectors). */
  readonly families: ReadonlyMap<string, readonly string[] | undefined>;
}

/** Parses docs/metrics.md: the table rows, plus every backticked `supernode_*` name in the text. */
export function parseMetricsDoc(md: string): MetricsCatalogue {
  const families = new Map<string, readonly string[] | undefined>();
  for (const line of md.split("\n")) {
    const row = /^\|\s*`([a-z_:][a-z0-9_:]*)`\s*\|\s*(\w+)\s*\|([^|]*)\|/.exec(line);
    if (row === null) continue;
    const labels = [...(row[3] ?? "").matchAll(/`([a-z_][a-z0-9_]*)`/g)].map((x) => x[1] as string);
    families.set(row[1] as string, labels);
    if (row[2] === "histogram") {
      for (const suf of ["_bucket", "_sum", "_count"]) {
        families.set(`${row[1]}${suf}`, suf === "_bucket" ? [...labels, "le"] : labels);
      }
    }
  }
  for (const m of md.matchAll(/`(supernode_[a-z0-9_]+)`/g)) {
    const name = m[1] as string;
    if (!families.has(name)) families.set(name, undefined);
  }
  return { families };
}
