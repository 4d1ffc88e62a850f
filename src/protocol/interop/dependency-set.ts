import { DecodeError } from "../../core/errors/supernode-error.js";
import type { ChainId } from "../../core/types/primitives.js";

/** The protocol's message expiry window (7 days), used when a dependency set does not override it (or says 0). */
export const DEFAULT_MESSAGE_EXPIRY_WINDOW = 604_800;

/**
 * A dependency set: the chains whose messages may be executed on each other (op-node `depset` JSON:
 * `{"dependencies":{"901":{},"902":{}},"overrideMessageExpiryWindow":N}`). Chain IDs sorted ascending.
 */
export interface DependencySet {
  readonly chainIds: readonly ChainId[];
  /** Seconds; the default when the file has no override or 0. */
  readonly messageExpiryWindow: number;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Parses and validates a dependency-set document. Throws DecodeError with a precise message. */
export function parseDependencySet(text: string): DependencySet {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new DecodeError(`dependency set is not JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new DecodeError("dependency set must be a JSON object");
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== "dependencies" && k !== "overrideMessageExpiryWindow")
      throw new DecodeError(`dependency set: unknown field "${k}"`);
  }
  const deps = o.dependencies;
  if (typeof deps !== "object" || deps === null || Array.isArray(deps))
    throw new DecodeError('dependency set: "dependencies" must be an object keyed by chain ID');
  const ids: ChainId[] = [];
  for (const [k, v] of Object.entries(deps)) {
    if (!DECIMAL.test(k)) throw new DecodeError(`dependency set: chain ID "${k}" is not a decimal number`);
    const id = BigInt(k);
    if (id === 0n) throw new DecodeError("dependency set: chain ID 0 is not allowed");
    if (typeof v !== "object" || v === null || Array.isArray(v))
      throw new DecodeError(`dependency set: the entry of chain ${k} must be an object`);
    ids.push(id);
  }
  if (ids.length === 0) throw new DecodeError("dependency set: no chains");
  const w = o.overrideMessageExpiryWindow;
  if (w !== undefined && (typeof w !== "number" || !Number.isSafeInteger(w) || w < 0))
    throw new DecodeError('dependency set: "overrideMessageExpiryWindow" must be a non-negative integer (seconds)');
  return makeDependencySet(ids, typeof w === "number" ? w : 0);
}

/** A dependency set from chain IDs (deduplicated, sorted) and an expiry override (0 = the default). */
export function makeDependencySet(ids: readonly ChainId[], expiryOverride = 0): DependencySet {
  const chainIds = [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { chainIds, messageExpiryWindow: expiryOverride > 0 ? expiryOverride : DEFAULT_MESSAGE_EXPIRY_WINDOW };
}

/** Whether two dependency sets are the same (same chains, same expiry window). */
export function sameDependencySet(a: DependencySet, b: DependencySet): boolean {
  return (
    a.messageExpiryWindow === b.messageExpiryWindow &&
    a.chainIds.length === b.chainIds.length &&
    a.chainIds.every((id, i) => id === b.chainIds[i])
  );
}

export function describeDependencySet(d: DependencySet): string {
  return `{${d.chainIds.join(",")}} expiry ${d.messageExpiryWindow}s`;
}
