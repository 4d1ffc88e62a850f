/**
 * The narrow logger interface every module receives (pino's Logger satisfies it). Modules never import pino.
 * Call style: `log.info({ l2: ref.number }, "derived attributes")` (context object first, constant message).
 */
export interface LogFn {
  (obj: object, msg?: string): void;
  (msg: string): void;
}

/** The levels of the {@link Logger} port. */
export type LoggerLevel = "trace" | "debug" | "info" | "warn" | "error";

export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
  /**
   * Whether a line at `level` would be written (pino's `isLevelEnabled`). Optional: a logger without it is taken to
   * write every level. For call sites on a per-block path, so that a disabled line's fields are not built.
   */
  isLevelEnabled?(level: LoggerLevel): boolean;
}

/** Whether `logger` writes lines at `level` (see {@link Logger.isLevelEnabled}; true when it cannot tell). */
export function logsAt(logger: Logger, level: LoggerLevel): boolean {
  return logger.isLevelEnabled === undefined || logger.isLevelEnabled(level);
}

/** A logger that drops everything (for tests that do not inspect logs). */
export const silentLogger: Logger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
  isLevelEnabled: () => false,
};
