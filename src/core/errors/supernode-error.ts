import type { Severity } from "./severity.js";

export type ErrorMeta = Readonly<Record<string, unknown>>;

/**
 * Base class of every error the project throws on purpose. `code` is a stable machine-readable
 * identifier, `severity` tells loops what to do, `meta` carries structured context for logs
 * (never secrets).
 */
export class SupernodeError extends Error {
  readonly code: string;
  readonly severity: Severity;
  readonly meta: ErrorMeta;

  constructor(code: string, message: string, opts: { severity?: Severity; meta?: ErrorMeta; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.severity = opts.severity ?? "critical";
    this.meta = opts.meta ?? {};
  }
}

/** Malformed input to a decoder. Decoders throw only this (or a subclass) on bad bytes. */
export class DecodeError extends SupernodeError {
  constructor(message: string, meta: ErrorMeta = {}, cause?: unknown) {
    super("DECODE", message, { severity: "reset", meta, cause });
  }
}

/** A retryable failure (network blip, not-yet-available data). */
export class TemporaryError extends SupernodeError {
  constructor(code: string, message: string, meta: ErrorMeta = {}, cause?: unknown) {
    super(code, message, { severity: "temporary", meta, cause });
  }
}

/** A failure that requires re-deriving from a consistent point (reorg, inconsistent data). */
export class ResetError extends SupernodeError {
  constructor(code: string, message: string, meta: ErrorMeta = {}, cause?: unknown) {
    super(code, message, { severity: "reset", meta, cause });
  }
}

/** A failure that must stop the chain. */
export class CriticalError extends SupernodeError {
  constructor(code: string, message: string, meta: ErrorMeta = {}, cause?: unknown) {
    super(code, message, { severity: "critical", meta, cause });
  }
}

/** The operation was cancelled by its AbortSignal; loops exit quietly on it. */
export class AbortedError extends SupernodeError {
  constructor(message = "aborted") {
    super("ABORTED", message, { severity: "temporary" });
  }
}

/** Severity of any thrown value: our errors carry one; unknown errors are treated as temporary. */
export function severityOf(err: unknown): Severity {
  return err instanceof SupernodeError ? err.severity : "temporary";
}

export function isAborted(err: unknown, signal?: AbortSignal): boolean {
  return (
    err instanceof AbortedError || (signal?.aborted ?? false) || (err instanceof Error && err.name === "AbortError")
  );
}
