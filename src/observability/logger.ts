import { pino } from "pino";
import type { LogFn, Logger } from "../core/logger.js";
import type { LogFormat, LogLevel } from "../config/types.js";
import { LEVEL_VALUES, parsePinoLine, renderRecord } from "./log-format.js";
import { sanitizeForLog } from "./log-redact.js";

/** Where rendered lines go: a Node stream or anything with `write(string)`. */
export type LogDestination = NodeJS.WritableStream | { write(s: string): unknown };

export interface LoggerOptions {
  readonly level: LogLevel;
  readonly format: LogFormat;
  /** Force ANSI colours (text/terminal/logfmt). Colours are also used for `terminal` on a TTY. */
  readonly color: boolean;
  /** Default: process.stdout. */
  readonly destination?: LogDestination;
  /** Time source in ms (tests); default Date.now. */
  readonly now?: () => number;
}

/** The process logger: the core `Logger` plus `crit`, with children of the same kind. */
export interface AppLogger extends Logger {
  crit: LogFn;
  child(bindings: Record<string, unknown>): AppLogger;
  /** Flushes buffered output (no-op for synchronous destinations). */
  flush?(): void;
}

function isTty(dest: LogDestination): boolean {
  return (dest as { isTTY?: boolean }).isTTY === true;
}

/**
 * Creates the supernode logger on pino. Levels trace, debug, info, warn, error, crit; formats `text`/`terminal`
 * (`LVL [MM-DD|HH:MM:SS.mmm] message key=value …`), `logfmt`/`logfmtms` and `json`/`jsonms` (the `ms` forms
 * with millisecond timestamps). Values of secret-named keys are replaced by `[redacted]`, bigints are printed
 * in decimal. Bind a chain with `logger.child({ chain: "10" })`.
 */
export function createLogger(opts: LoggerOptions): AppLogger {
  const dest: LogDestination = opts.destination ?? process.stdout;
  const color = opts.color || (opts.format === "terminal" && isTty(dest));
  const now = opts.now ?? Date.now;
  const sink = {
    write(line: string): void {
      let out: string;
      try {
        out = renderRecord(parsePinoLine(line), opts.format, color);
      } catch {
        out = line.trimEnd();
      }
      dest.write(`${out}\n`);
    },
  };
  const logger = pino(
    {
      level: opts.level,
      customLevels: LEVEL_VALUES,
      useOnlyCustomLevels: true,
      base: null,
      timestamp: () => `,"time":${now()}`,
      formatters: {
        bindings: (b) => sanitizeForLog(b) as Record<string, unknown>,
        log: (o) => sanitizeForLog(o) as Record<string, unknown>,
      },
    },
    sink,
  );
  return wrap(logger as unknown as PinoLike);
}

interface PinoLike {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  crit: LogFn;
  child(bindings: Record<string, unknown>): PinoLike;
  flush(): void;
  isLevelEnabled(level: string): boolean;
}

/** Exposes a pino instance through `AppLogger`; child bindings are sanitised like log fields. */
function wrap(p: PinoLike): AppLogger {
  return {
    trace: p.trace.bind(p),
    debug: p.debug.bind(p),
    info: p.info.bind(p),
    warn: p.warn.bind(p),
    error: p.error.bind(p),
    crit: p.crit.bind(p),
    child: (bindings) => wrap(p.child(sanitizeForLog(bindings) as Record<string, unknown>)),
    isLevelEnabled: (level) => p.isLevelEnabled(level),
    flush: () => {
      try {
        p.flush();
      } catch {
        // destination without flush
      }
    },
  };
}

/** The child logger for one chain: every line it prints carries `chain=<decimal id>`. */
export function chainLogger<L extends Logger>(logger: L, chainId: bigint | number | string): L {
  return logger.child({ chain: String(chainId) }) as L;
}

/** Parses a log level name (case-insensitive); undefined when unknown. */
export function parseLogLevel(s: string): LogLevel | undefined {
  const l = s.trim().toLowerCase();
  return Object.hasOwn(LEVEL_VALUES, l) ? (l as LogLevel) : undefined;
}
