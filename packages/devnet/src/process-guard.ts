import { join } from "node:path";

/**
 * The path of `process-guard.mjs`: run `node <path> <bin> <args…>` with an IPC channel to tie a foreign binary to
 * this process, so that it ends when this process ends, however this process ends.
 */
export function processGuardPath(): string {
  return join(import.meta.dirname, "process-guard.mjs");
}
