import { CHAIN_OPTIONS } from "./chain-options.js";
import { ENV_PREFIX, GLOBAL_OPTIONS } from "./global-options.js";
import { describeDefault, type OptionSpec } from "./option-spec.js";

const PLACEHOLDER: Readonly<Record<OptionSpec["type"], string>> = {
  bool: "",
  int: " <int>",
  uint: " <uint>",
  port: " <port>",
  string: " <value>",
  path: " <path>",
  duration: " <duration>",
  list: " <list>",
  enum: " <value>",
};

function wrap(text: string, width: number, indent: number): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = "";
  for (const w of words) {
    if (line !== "" && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line === "" ? w : `${line} ${w}`;
  }
  if (line !== "") lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}

function describe(spec: OptionSpec, envNames: readonly string[]): string {
  const parts = [spec.help];
  if (spec.type === "enum" && spec.choices) parts.push(`(one of: ${spec.choices.filter((c) => c !== "").join(", ")})`);
  const d = describeDefault(spec);
  if (d !== "") parts.push(`(default: ${d})`);
  parts.push(`[env: ${envNames.join(", ")}]`);
  return parts.join(" ");
}

const COL = 44;
const WIDTH = 118;

function renderGroups(
  specs: readonly OptionSpec[],
  flagOf: (s: OptionSpec) => string,
  envOf: (s: OptionSpec) => readonly string[],
): string[] {
  const groups = new Map<string, OptionSpec[]>();
  for (const s of specs) {
    const g = groups.get(s.group) ?? [];
    g.push(s);
    groups.set(s.group, g);
  }
  const out: string[] = [];
  for (const [group, list] of groups) {
    out.push("", `${group}:`);
    for (const s of list) {
      const names = [flagOf(s), ...(s.aliases ?? []).map((a) => flagOf({ ...s, name: a }))].join(", ");
      const left = `  ${names}${PLACEHOLDER[s.type]}`;
      const text = wrap(describe(s, envOf(s)), WIDTH - COL, COL);
      out.push(left.length >= COL ? `${left}\n${" ".repeat(COL)}${text}` : `${left.padEnd(COL)}${text}`);
    }
  }
  return out;
}

/** `supernode --help`: the top-level options grouped by topic, then how per-chain options work. */
export function renderMainHelp(version: string, commands: ReadonlyArray<readonly [string, string]>): string {
  const lines = [
    `supernode ${version}: one process hosting a rollup node for each of many OP-Stack-style L2 chains`,
    "",
    `Usage: supernode ${"[options]".padEnd(28)}run the node`,
    // a command longer than its column gets its description on the next line, never run into it
    ...commands.flatMap(([n, d]) =>
      n.length < 28 ? [`       supernode ${n.padEnd(28)}${d}`] : [`       supernode ${n}`, `${" ".repeat(45)}${d}`],
    ),
  ];
  lines.push(
    ...renderGroups(
      GLOBAL_OPTIONS.filter((s) => !s.hidden),
      (s) => `--${s.name}`,
      (s) => s.env.map((e) => `${ENV_PREFIX}_${e}`),
    ),
  );
  const visible = CHAIN_OPTIONS.filter((s) => !s.hidden).length;
  lines.push(
    "",
    `Per-chain options (${visible} rollup-node options; list them all with \`supernode chain-options\`):`,
    `  --vn.<chainID>.<flag> <value>             set <flag> for one chain  [env: ${ENV_PREFIX}_VN_<CHAINID>_<SUFFIX>]`,
    `  --vn.all.<flag> <value>                   set <flag> for every chain [env: ${ENV_PREFIX}_VN_ALL_<SUFFIX>]`,
    "  Minimum per chain: l2 (Engine API URL), l2.jwt-secret (file), and one of network or rollup.config.",
    "  Precedence: per-chain flag > per-chain env > all-chains flag > all-chains env > default.",
    "  Example: --chains 10,130 --vn.10.network op-mainnet --vn.130.network unichain-mainnet",
    "           --vn.10.l2 http://127.0.0.1:8551 --vn.8453.l2 http://127.0.0.1:9551 --vn.all.l2.jwt-secret ./jwt.hex",
    "",
    "  -h, --help                                show this help",
    "  -V, --version                             print the version",
    "",
    "Durations take units: 500ms, 12s, 6m24s, 168h. Lists take commas or repetition. Booleans: --flag, --flag=false.",
  );
  return `${lines.join("\n")}\n`;
}

/** `supernode chain-options`: every per-chain option with its flag forms and env names. */
export function renderChainOptionsHelp(includeHidden: boolean): string {
  const lines = [
    "Per-chain (virtual rollup node) options. Each is accepted as --vn.<chainID>.<flag> and --vn.all.<flag>,",
    `and from ${ENV_PREFIX}_VN_<CHAINID>_<SUFFIX> / ${ENV_PREFIX}_VN_ALL_<SUFFIX> (the suffix is shown).`,
    "Precedence: per-chain flag > per-chain env > all-chains flag > all-chains env > default.",
  ];
  lines.push(
    ...renderGroups(
      CHAIN_OPTIONS.filter((s) => includeHidden || !s.hidden),
      (s) => `--vn.<id>.${s.name}`,
      (s) => s.env.map((e) => `…_${e}`),
    ),
  );
  if (!includeHidden) lines.push("", "Hidden and deprecated options: supernode chain-options --hidden");
  return `${lines.join("\n")}\n`;
}
