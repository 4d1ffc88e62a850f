import { setFlagsFromString } from "node:v8";

/**
 * The young generation of a long-running node (ADR 0115). V8 starts each semi-space at 1 MB and grows it up to
 * 16 MB when scavenges see much surviving data; a verifier's steady churn (JSON-RPC answers, decoded blocks) makes it
 * grow, and the grown new space (2 × 16 MB) stays resident: 20–30 MB of a one-chain verifier's RSS. The supernode
 * keeps it at its initial size unless the operator chose one: `--max-semi-space-size=<MB>` on Node's command line or
 * in `NODE_OPTIONS` leaves V8's growth as it is, up to that size.
 *
 * `--max-semi-space-size` itself cannot be changed once the heap exists; the growth factor can (V8 reads it at each
 * resize), so this runs first in the `supernode` binary (`cli/main.ts`), before the rest is loaded.
 */
export const FIXED_YOUNG_GENERATION_FLAG = "--semi-space-growth-factor=1";

const CHOSEN = /(^|\s)--max[-_]semi[-_]space[-_]size(=|\s|$)/;

/** The V8 flag to set, or undefined when the operator chose the young generation's size. */
export function youngGenerationFlag(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  if (execArgv.some((a) => CHOSEN.test(a)) || CHOSEN.test(nodeOptions ?? "")) return undefined;
  return FIXED_YOUNG_GENERATION_FLAG;
}

/** Applies youngGenerationFlag to this process; returns what it set. */
export function fixYoungGeneration(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string | undefined {
  const flag = youngGenerationFlag(execArgv, nodeOptions);
  if (flag !== undefined) setFlagsFromString(flag);
  return flag;
}
