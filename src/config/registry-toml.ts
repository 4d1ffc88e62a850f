/**
 * The TOML subset the superchain registry's `superchain/configs/<superchain>/*.toml` files use: `[a.b]` table
 * headers, `key = value` with basic strings, integers and booleans, comments. Anything else is an error naming the
 * line, so a registry that starts using more of TOML fails loudly instead of being half read.
 */
export type TomlValue = string | number | boolean | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

function scalar(text: string, where: string): string | number | boolean {
  if (text === "true") return true;
  if (text === "false") return false;
  const str = /^"((?:[^"\\]|\\.)*)"$/.exec(text);
  if (str) return JSON.parse(`"${str[1]}"`) as string;
  if (/^[+-]?\d[\d_]*$/.test(text)) {
    const n = Number(text.replace(/_/g, ""));
    if (!Number.isSafeInteger(n)) throw new Error(`${where}: integer ${text} is too large`);
    return n;
  }
  throw new Error(`${where}: unsupported TOML value ${text}`);
}

function stripComment(line: string): string {
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "\\" && inString) i++;
    else if (ch === '"') inString = !inString;
    else if (ch === "#" && !inString) return line.slice(0, i);
  }
  return line;
}

function tableAt(root: TomlTable, path: readonly string[], where: string): TomlTable {
  let t = root;
  for (const key of path) {
    const next = t[key] ?? {};
    if (typeof next !== "object") throw new Error(`${where}: ${key} is not a table`);
    t[key] = next;
    t = next;
  }
  return t;
}

/** Parses registry TOML text; `name` is used in error messages. */
export function parseRegistryToml(text: string, name = "toml"): TomlTable {
  const root: TomlTable = {};
  let current = root;
  text.split(/\r?\n/).forEach((raw, i) => {
    const where = `${name}:${i + 1}`;
    const line = stripComment(raw).trim();
    if (line === "") return;
    const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
    if (header?.[1] !== undefined) {
      current = tableAt(root, header[1].split("."), where);
      return;
    }
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!kv?.[1] || kv[2] === undefined) throw new Error(`${where}: unsupported TOML line ${line}`);
    if (kv[1] in current) throw new Error(`${where}: duplicate key ${kv[1]}`);
    current[kv[1]] = scalar(kv[2].trim(), where);
  });
  return root;
}
