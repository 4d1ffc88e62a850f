import { CriticalError, DecodeError, TemporaryError } from "../core/errors/supernode-error.js";
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

/** `superroot_atTimestamp` result (op-supernode §4.5). `data` is absent while the timestamp is not verified. */
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
 * What `superroot_atTimestamp` reads from the interop verifier at a timestamp (op-supernode's
 * `VerifiedResultAtTimestamp`):
 * - `handoff`: before the activation, before the first verifiable timestamp, or before the verifier chose it: the
 *   optimistic (local-safe) outputs are canonical (pre-interop consensus or the safe-head handoff);
 * - `pending`: interop is active there but the timestamp is not verified yet;
 * - `verified`: the verified store's entry, which pins each chain's block hash, and its L1 inclusion.
 */
export type VerifiedLookup =
  | { readonly regime: "handoff" }
  | { readonly regime: "pending" }
  | {
      readonly regime: "verified";
      readonly l1Inclusion: BlockId;
      /** Chain ID (decimal) → its verified block. */
      readonly l2Heads: Readonly<Record<string, BlockId>>;
    };

/** The interop verifier as the super-root method sees it (absent while interop is disabled: every timestamp hands off). */
export interface SuperRootVerifier {
  lookup(timestamp: number): Promise<VerifiedLookup>;
  /** The L1 block the verifier is still processing; undefined when it caps nothing (it waits for the chains). */
  currentL1(): BlockId | undefined;
}

/** The chains' `current_l1` (their minimum) capped by the verifier's, as op-supernode aggregates it. */
export function cappedCurrentL1(chainsL1: BlockId, verifier: SuperRootVerifier | undefined): BlockId {
  const v = verifier?.currentL1();
  return v !== undefined && v.number < chainsL1.number ? { hash: v.hash, number: v.number } : chainsL1;
}

/**
 * The super root at a timestamp, plus each chain's optimistic output (op-supernode's regimes, see `VerifiedLookup`):
 * - verified: `data` from the verified entry's pinned block hashes, each chain's output read by that hash (so the
 *   answer for a timestamp stays the same while the canonical chain moves), `verified_required_l1` the entry's L1
 *   inclusion (the maximum over the chains);
 * - pending: no `data`;
 * - handoff: `data` from the optimistic outputs when every chain has one, `verified_required_l1` the maximum of
 *   their L1 inclusions.
 * `current_l1`: the L1 block still being processed (the chains' minimum, capped by the verifier's).
 */
export async function superRootAtTimestamp(
  chains: readonly ActivityChainView[],
  params: unknown[],
  hashing: SuperRootHashing,
  verifier?: SuperRootVerifier,
): Promise<SuperRootResult> {
  const ts = parseTimestampParam(params);
  const sorted = [...chains].sort((a, b) => (a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : 0));
  const [agg, lookup, optimistic] = await Promise.all([
    aggregateSyncStatus(chains),
    verifier?.lookup(ts) ?? ({ regime: "handoff" } as const),
    Promise.all(sorted.map((c) => c.optimisticAt(ts))),
  ]);
  const optimisticOut: Record<string, OptimisticEntry> = {};
  sorted.forEach((c, i) => {
    const o = optimistic[i];
    if (o !== undefined) {
      optimisticOut[c.chainId.toString(10)] = {
        output: o.output,
        output_root: hashing.outputRoot(o.output),
        required_l1: { hash: o.requiredL1.hash, number: o.requiredL1.number },
      };
    }
  });
  const base = {
    current_l1: cappedCurrentL1(agg.current_l1, verifier),
    safe_timestamp: agg.safe_timestamp,
    local_safe_timestamp: agg.local_safe_timestamp,
    finalized_timestamp: agg.finalized_timestamp,
    optimistic_at_timestamp: optimisticOut,
    chain_ids: agg.chain_ids,
  };
  if (lookup.regime === "pending") return base;
  if (lookup.regime === "verified") {
    return { ...base, data: await verifiedData(sorted, ts, lookup, hashing) };
  }
  if (optimistic.some((o) => o === undefined)) return base;
  let requiredL1: BlockId = { hash: `0x${"00".repeat(32)}`, number: 0 };
  for (const o of optimistic) if (o !== undefined && o.requiredL1.number > requiredL1.number) requiredL1 = o.requiredL1;
  const roots = sorted.map((c) => ({
    chainId: c.chainId,
    outputRoot: optimisticOut[c.chainId.toString(10)]!.output_root,
  }));
  return { ...base, data: superRootData(ts, requiredL1, roots, hashing) };
}

/** `data` from a verified entry: every chain's pinned block, its output read by hash. */
async function verifiedData(
  sorted: readonly ActivityChainView[],
  ts: number,
  v: Extract<VerifiedLookup, { regime: "verified" }>,
  hashing: SuperRootHashing,
): Promise<NonNullable<SuperRootResult["data"]>> {
  if (Object.keys(v.l2Heads).length !== sorted.length) {
    throw new CriticalError(
      "SUPERROOT_DEPSET_MISMATCH",
      `dependency-set size mismatch at ${ts}: verified store ${Object.keys(v.l2Heads).length} chains, ${sorted.length} configured`,
    );
  }
  const roots = await Promise.all(
    sorted.map(async (c) => {
      const head = v.l2Heads[c.chainId.toString(10)];
      if (head === undefined) {
        throw new CriticalError("SUPERROOT_DEPSET_MISMATCH", `verified entry at ${ts} lacks chain ${c.chainId}`);
      }
      const output = await c.outputAtHash(head.hash);
      if (output === undefined) {
        // the execution client lacks the verified block (restarting or resyncing): a later call may succeed
        const msg = `output of chain ${c.chainId} block ${head.hash}: block not found`;
        throw new TemporaryError("SUPERROOT_BLOCK_MISSING", msg);
      }
      return { chainId: c.chainId, outputRoot: hashing.outputRoot(output) };
    }),
  );
  return superRootData(ts, v.l1Inclusion, roots, hashing);
}

function superRootData(
  ts: number,
  requiredL1: BlockId,
  roots: ReadonlyArray<{ chainId: ChainId; outputRoot: Hash }>,
  hashing: SuperRootHashing,
): NonNullable<SuperRootResult["data"]> {
  return {
    verified_required_l1: { hash: requiredL1.hash, number: requiredL1.number },
    super: {
      timestamp: `0x${ts.toString(16)}`,
      chains: roots.map((r) => ({ ChainID: r.chainId.toString(10), Output: r.outputRoot })),
    },
    super_root: hashing.superRoot(ts, roots),
  };
}
