import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** `../shared/conformance` relative to the project root. */
export const CONFORMANCE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/conformance");

/** Whether the conformance folder exists; prints a clear message when it does not. */
export function conformanceAvailable(sub = ""): boolean {
  const p = join(CONFORMANCE_DIR, sub);
  const ok = existsSync(p);
  if (!ok) console.warn(`[conformance] skipping: ${p} not found (conformance data lives in ../shared/conformance)`);
  return ok;
}

export function readConformance(rel: string): string {
  return readFileSync(join(CONFORMANCE_DIR, rel), "utf8");
}

export function readConformanceJson(rel: string): unknown {
  return JSON.parse(readConformance(rel));
}
