/**
 * The narrow logger interface every module receives (pino's Logger satisfies it). Modules never import pino.
 * Call style: `log.info({ l2: ref.number }, "derived attributes")` (context object first, constant message).
 */
export interface LogFn {
  (obj: object, msg?: string): void;
  (msg: string): void;
}

export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

/** A logger that drops everything (for tests that do not inspect logs). */
export const silentLogger: Logger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
