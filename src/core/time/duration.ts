import { SupernodeError } from "../errors/supernode-error.js";

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const PART_RE = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;

/** Parses a Go-style duration (`12s`, `500ms`, `168h`, `1h30m`, `0`) into milliseconds. */
export function parseDurationMs(text: string): number {
  const s = text.trim();
  if (s === "0") return 0;
  if (s.startsWith("-")) throw new SupernodeError("BAD_DURATION", `negative duration "${text}"`);
  PART_RE.lastIndex = 0;
  let total = 0;
  let matched = 0;
  for (let m = PART_RE.exec(s); m !== null; m = PART_RE.exec(s)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    matched = PART_RE.lastIndex;
  }
  if (matched === 0 || matched !== s.length) {
    throw new SupernodeError("BAD_DURATION", `invalid duration "${text}" (expected e.g. 12s, 500ms, 168h)`);
  }
  return total;
}

/** Formats milliseconds as a Go-style duration (`12s`, `500ms`, `1h0m0s` → `1h`). */
export function formatDurationMs(ms: number): string {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s ? `${s}s` : ""}`;
}
