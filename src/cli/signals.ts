/** Exit codes used when a second signal forces the process out: 128 + signal number. */
export const FORCED_EXIT_CODE: Readonly<Record<"SIGINT" | "SIGTERM", number>> = { SIGINT: 130, SIGTERM: 143 };

export interface SignalHandlingDeps {
  /** Called on the first signal (graceful stop). */
  readonly onFirst?: (signal: NodeJS.Signals) => void;
  /** Called on the second signal before exiting. */
  readonly onForce?: (signal: NodeJS.Signals) => void;
  /** Process-like object (tests pass an EventEmitter); default `process`. */
  readonly proc?: Pick<NodeJS.Process, "on" | "off">;
  /** Exit function; default `process.exit`. */
  readonly exit?: (code: number) => void;
}

/**
 * Installs SIGINT/SIGTERM handling: the first signal aborts `controller` (graceful shutdown), a second one
 * forces `exit(130)` (SIGINT) or `exit(143)` (SIGTERM). Returns a function that removes the handlers.
 */
export function installSignalHandlers(controller: AbortController, deps: SignalHandlingDeps = {}): () => void {
  const proc = deps.proc ?? process;
  const exit = deps.exit ?? ((code: number) => process.exit(code));
  let received = 0;
  const handler = (signal: NodeJS.Signals): void => {
    received++;
    if (received === 1) {
      deps.onFirst?.(signal);
      controller.abort(new Error(`received ${signal}`));
      return;
    }
    deps.onForce?.(signal);
    exit(FORCED_EXIT_CODE[signal === "SIGTERM" ? "SIGTERM" : "SIGINT"]);
  };
  proc.on("SIGINT", handler);
  proc.on("SIGTERM", handler);
  return () => {
    proc.off("SIGINT", handler);
    proc.off("SIGTERM", handler);
  };
}
