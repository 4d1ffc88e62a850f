import type { LogFormat, LogLevel } from "../config/types.js";

/** pino numeric values of our levels (`crit` replaces pino's `fatal`). */
export const LEVEL_VALUES: Readonly<Record<LogLevel, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  crit: 60,
};

const LEVEL_BY_VALUE = new Map<number, LogLevel>(
  Object.entries(LEVEL_VALUES).map(([k, v]) => [v, k as LogLevel] as const),
);

/** Go-log aligned level tags of the terminal format. */
const TERMINAL_TAG: Readonly<Record<LogLevel, string>> = {
  trace: "TRACE",
  debug: "DEBUG",
  info: "INFO ",
  warn: "WARN ",
  error: "ERROR",
  crit: "CRIT ",
};

const ANSI: Readonly<Record<LogLevel, string>> = {
  trace: "\x1b[34m",
  debug: "\x1b[36m",
  info: "\x1b[32m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
  crit: "\x1b[35m",
};
const ANSI_RESET = "\x1b[0m";

/** Width the terminal format pads a message to when key/value pairs follow (as Go's logger does). */
const TERMINAL_MSG_PAD = 40;

/** One parsed log record as pino emits it (before rendering). */
export interface LogRecord {
  readonly level: LogLevel;
  readonly timeMs: number;
  readonly msg: string;
  /** Context fields in emission order (bindings first). */
  readonly fields: ReadonlyArray<readonly [string, unknown]>;
}

/** Parses one pino JSON line (`level`, `time`, `msg` and fields). */
export function parsePinoLine(line: string): LogRecord {
  const obj = JSON.parse(line) as Record<string, unknown>;
  const level = LEVEL_BY_VALUE.get(Number(obj.level)) ?? "info";
  const timeMs = typeof obj.time === "number" ? obj.time : 0;
  const msg = typeof obj.msg === "string" ? obj.msg : "";
  const fields: Array<readonly [string, unknown]> = [];
  for (const [k, v] of Object.entries(obj)) {
    if (k === "level" || k === "time" || k === "msg") continue;
    fields.push([k, v]);
  }
  return { level, timeMs, msg, fields };
}

const pad2 = (n: number): string => String(n).padStart(2, "0");
const pad3 = (n: number): string => String(n).padStart(3, "0");

/** `MM-DD|HH:MM:SS.mmm` (UTC), the terminal format's timestamp. */
export function terminalTime(ms: number): string {
  const d = new Date(ms);
  return `${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}|${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${pad3(d.getUTCMilliseconds())}`;
}

/** `YYYY-MM-DDTHH:MM:SS[.mmm]+0000` (UTC), the logfmt timestamp. */
export function logfmtTime(ms: number, withMs: boolean): string {
  const iso = new Date(ms).toISOString(); // 2026-11-21T12:45:01.123Z
  return `${withMs ? iso.slice(0, 23) : iso.slice(0, 19)}+0000`;
}

/** RFC 3339 UTC, with milliseconds when asked (`2026-11-21T12:45:01Z`, `2026-11-21T12:45:01.123Z`). */
export function jsonTime(ms: number, withMs: boolean): string {
  const iso = new Date(ms).toISOString();
  return withMs ? iso : `${iso.slice(0, 19)}Z`;
}

/** Renders a field value for the key=value formats. */
export function renderValue(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = "<nil>";
  else if (typeof v === "string") s = v;
  else if (typeof v === "object") {
    const e = v as { message?: unknown; type?: unknown; stack?: unknown };
    s = typeof e.message === "string" && typeof e.stack === "string" ? e.message : JSON.stringify(v);
  } else s = String(v);
  return needsQuote(s) ? JSON.stringify(s) : s;
}

function needsQuote(s: string): boolean {
  if (s === "") return true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x22 || c === 0x3d || c === 0x7f) return true; // space/control, '"', '='
  }
  return false;
}

function renderKey(k: string): string {
  return needsQuote(k) ? JSON.stringify(k) : k;
}

/** Renders one record in `format`. The result has no trailing newline. */
export function renderRecord(rec: LogRecord, format: LogFormat, color: boolean): string {
  switch (format) {
    case "json":
    case "jsonms": {
      const out: Record<string, unknown> = {
        t: jsonTime(rec.timeMs, format === "jsonms"),
        lvl: rec.level,
        msg: rec.msg,
      };
      for (const [k, v] of rec.fields) if (!(k in out)) out[k] = v;
      return JSON.stringify(out);
    }
    case "logfmt":
    case "logfmtms": {
      const lvl = color ? `${ANSI[rec.level]}${rec.level}${ANSI_RESET}` : rec.level;
      let line = `t=${logfmtTime(rec.timeMs, format === "logfmtms")} lvl=${lvl} msg=${renderValue(rec.msg)}`;
      for (const [k, v] of rec.fields) line += ` ${renderKey(k)}=${renderValue(v)}`;
      return line;
    }
    default: {
      const tag = color ? `${ANSI[rec.level]}${TERMINAL_TAG[rec.level]}${ANSI_RESET}` : TERMINAL_TAG[rec.level];
      let line = `${tag} [${terminalTime(rec.timeMs)}] ${rec.msg}`;
      if (rec.fields.length > 0) {
        line = line.padEnd(line.length - rec.msg.length + Math.max(rec.msg.length, TERMINAL_MSG_PAD), " ");
        for (const [k, v] of rec.fields) {
          const key = color ? `${ANSI[rec.level]}${renderKey(k)}${ANSI_RESET}` : renderKey(k);
          line += ` ${key}=${renderValue(v)}`;
        }
      }
      return line;
    }
  }
}
