/**
 * Per-chain rollup-node methods of the `stack` namespace, independent of the HTTP transport, plus
 * `createChainRpcMethods` which assembles a chain's whole table (stack + admin).
 */
import type { L1BlockRef, L2BlockRef, SyncStatus } from "../../core/types/block-ref.js";
import type { ChainAdminControl, ChainRpcView } from "../../node/chain-view.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import { rollupConfigToJson } from "../../protocol/rollup-config-json.js";
import { InvalidParamsError, ResourceNotFoundError } from "../errors.js";
import { createMethodTable, mergeMethodTables, type MethodTable } from "../method-table.js";
import { createAdminMethods } from "./admin.js";

export interface ChainRpcOptions {
  /** `stack_version` result, e.g. `v0.1.0-supernode`. */
  readonly version: string;
  /** Serialises the rollup config (default: `rollupConfigToJson`, the op-node key order). */
  readonly serializeRollupConfig?: (cfg: RollupConfig) => unknown;
}

const QUANTITY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;

/** A block-number param: a hex quantity string (JSON numbers are rejected, as the Go node does). */
export function parseBlockNumberParam(params: unknown[], method: string): number {
  if (params.length !== 1) throw new InvalidParamsError(`${method}: missing value for required argument 0`);
  const v = params[0];
  if (typeof v !== "string" || !QUANTITY_RE.test(v)) {
    throw new InvalidParamsError("invalid argument 0: hex string without 0x prefix or not a quantity");
  }
  if (v.length > 18) throw new InvalidParamsError("invalid argument 0: hex number > 64 bits");
  const n = BigInt(v);
  // A valid uint64 past 2^53 - 1 is accepted, and no chain has such a block (yet).
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new ResourceNotFoundError(`block ${n} not found`);
  return Number(n);
}

const l1 = (r: L1BlockRef) => ({ hash: r.hash, number: r.number, parentHash: r.parentHash, timestamp: r.timestamp });
// Written out, not `{ ...l1(r), … }`: the spread made each answer allocate ~6.8 kB instead of ~1.7 kB (docs/performance.md).
export const l2BlockRefJson = (r: L2BlockRef) => ({
  hash: r.hash,
  number: r.number,
  parentHash: r.parentHash,
  timestamp: r.timestamp,
  l1origin: { hash: r.l1origin.hash, number: r.l1origin.number },
  sequenceNumber: r.sequenceNumber,
});

/** Sync status JSON with every field of the specification (incl. `queued_unsafe_l2`) plus the modern extras. */
export function syncStatusJson(s: SyncStatus): Record<string, unknown> {
  return {
    current_l1: l1(s.current_l1),
    current_l1_finalized: l1(s.current_l1_finalized),
    head_l1: l1(s.head_l1),
    safe_l1: l1(s.safe_l1),
    finalized_l1: l1(s.finalized_l1),
    unsafe_l2: l2BlockRefJson(s.unsafe_l2),
    safe_l2: l2BlockRefJson(s.safe_l2),
    finalized_l2: l2BlockRefJson(s.finalized_l2),
    pending_safe_l2: l2BlockRefJson(s.pending_safe_l2),
    queued_unsafe_l2: l2BlockRefJson(s.queued_unsafe_l2),
    engine_sync_target: l2BlockRefJson(s.engine_sync_target),
    cross_unsafe_l2: l2BlockRefJson(s.cross_unsafe_l2),
    local_safe_l2: l2BlockRefJson(s.local_safe_l2),
  };
}

export function createStackMethods(node: ChainRpcView, opts: ChainRpcOptions): MethodTable {
  const noParams = (method: string, params: unknown[]) => {
    if (params.length > 0) throw new InvalidParamsError(`${method} takes no parameters`);
  };
  return createMethodTable({
    stack_outputAtBlock: async (params) => {
      const n = parseBlockNumberParam(params, "stack_outputAtBlock");
      const out = await node.outputAtBlock(n);
      // The specification's result: [version, outputRoot], two 32-byte hex strings.
      return [out.version, out.outputRoot];
    },
    stack_syncStatus: async (params) => {
      noParams("stack_syncStatus", params);
      return syncStatusJson(node.syncStatus());
    },
    stack_rollupConfig: async (params) => {
      noParams("stack_rollupConfig", params);
      const cfg = node.rollupConfig();
      return (opts.serializeRollupConfig ?? rollupConfigToJson)(cfg);
    },
    stack_version: async (params) => {
      noParams("stack_version", params);
      return opts.version;
    },
    stack_safeHeadAtL1Block: async (params) => {
      const n = parseBlockNumberParam(params, "stack_safeHeadAtL1Block");
      const r = await node.safeHeadAtL1Block(n);
      return {
        l1Block: { hash: r.l1Block.hash, number: r.l1Block.number },
        safeHead: { hash: r.safeHead.hash, number: r.safeHead.number },
      };
    },
  });
}

/** A chain's whole rollup-node method table: `stack_*` and the admin-gated `admin_*`. */
export function createChainRpcMethods(node: ChainRpcView & ChainAdminControl, opts: ChainRpcOptions): MethodTable {
  return mergeMethodTables(createStackMethods(node, opts), createAdminMethods(node));
}
