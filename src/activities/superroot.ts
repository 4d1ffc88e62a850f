import { DecodeError } from "../core/errors/supernode-error.js";
import type { BlockId } from "../core/types/block-ref.js";
import type { ChainId, Hash, Hex } from "../core/types/primitives.js";
import type { ActivityChainView, OutputV0 } from "./ports.js";
import { aggregateSyncStatus } from "./sync-status.js";

/** Output-root and super-root hashing (protocol `output-root.ts` / `super-root.ts`), injected by the app. */
export interface SuperRootHashing {
  outputRoot(output: OutputV0): Hash;
  superRoot(timestamp: number, chains: ReadonlyArray<{ chainId: ChainId; outputRoot: Hash }>): Hash;
}

export interface OptimisticEntry {
  readonly output: OutputV0;
  readonly output_root: Hash;
  readonly required_l1: BlockId;
}

/** `superroot_atTimestamp` result (op-supernode §4.5). `data` is absent when any chain lacks verified data. */
export interface SuperRootResult {
  readonly current_l1: BlockId;
  readonly safe_timestamp: number;
  readonly local_safe_timestamp: number;
  readonly finalized_timestamp: number;
  readonly optimistic_at_timestamp: Readonly<Record<string, OptimisticEntry>>;
  readonly chain_ids: readonly string[];
  readonly data?: {
    readonly verified_required_l1: BlockId;
    readonly super: { readonly timestamp: Hex; readonly chains: ReadonlyArray<{ ChainID: string; Output: Hash }> };
    readonly super_root: Hash;
  };
}

const STRICT_QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i;

/** The one param: a hex quantity string without leading zeros; numbers, `0x07` and missing `0x` are rejected. */
export function parseTimestampParam(params: unknown[]): number {
  if (params.length === 0) throw new DecodeError("missing value for required argument 0");
  if (params.length > 1) throw new DecodeError("too many arguments, want at most 1");
  const v = params[0];
  if (typeof v !== "string" || !STRICT_QUANTITY.test(v)) {
    throw new DecodeError("invalid argument 0: timestamp must be a hex quantity such as 0x7b");
  }
  const n = Number.parseInt(v.slice(2), 16);
  if (!Number.isSafeInteger(n)) throw new DecodeError("invalid argument 0: timestamp too large");
  return n;
}

/**
 * The super root at a timestamp from every chain's verified block there; plus each chain's optimistic output.
 * `verified_required_l1` is the MAXIMUM of the chains' L1 inclusions (all chains' data is needed; op-supernode §8.17).
 */
export async function superRootAtTimestamp(
  chains: readonly ActivityChainView[],
  params: unknown[],
  hashing: SuperRootHashing,
): Promise<SuperRootResult> {
  const ts = parseTimestampParam(params);
  const agg = await aggregateSyncStatus(chains);
  const sorted = [...chains].sort((a, b) => (a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : 0));
  const [verified, optimistic] = await Promise.all([
    Promise.all(sorted.map((c) => c.verifiedAt(ts))),
    Promise.all(sorted.map((c) => c.optimisticAt(ts))),
  ]);
  const optimisticOut: Record<string, OptimisticEntry> = {};
  sorted.forEach((c, i) => {
    const o = optimistic[i];
    if (o !== undefined) {
      optimisticOut[c.chainId.toString(10)] = {
        output: o.output,
        output_root: hashing.outputRoot(o.output),
        required_l1: o.requiredL1,
      };
    }
  });
  const base = {
    current_l1: agg.current_l1,
    safe_timestamp: agg.safe_timestamp,
    local_safe_timestamp: agg.local_safe_timestamp,
    finalized_timestamp: agg.finalized_timestamp,
    optimistic_at_timestamp: optimisticOut,
    chain_ids: agg.chain_ids,
  };
  if (verified.some((v) => v === undefined)) return base;
  let requiredL1: BlockId = { hash: `0x${"00".repeat(32)}`, number: 0 };
  const roots = sorted.map((c, i) => {
    const v = verified[i]!;
    if (i === 0 || v.requiredL1.number > requiredL1.number) requiredL1 = v.requiredL1;
    return { chainId: c.chainId, outputRoot: hashing.outputRoot(v.output) };
  });
  return {
    ...base,
    data: {
      verified_required_l1: requiredL1,
      super: {
        timestamp: `0x${ts.toString(16)}`,
        chains: roots.map((r) => ({ ChainID: r.chainId.toString(10), Output: r.outputRoot })),
      },
      super_root: hashing.superRoot(ts, roots),
    },
  };
}
