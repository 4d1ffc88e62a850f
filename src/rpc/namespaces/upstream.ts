/**
 * The ecosystem's names. Upstream tools (op-proposer, op-challenger, op-conductor, dashboards, proxyd) call the
 * reference node's `optimism_*` and `opp2p_*`; the specification names these namespaces `stack` and `stackp2p`.
 * Every chain route serves both: the upstream name answers like the specification's one, except where op-node's
 * result has another shape (`optimism_outputAtBlock`: op-node's object; `optimism_syncStatus`: op-node's eleven
 * fields, without the specification's `queued_unsafe_l2` and `engine_sync_target`).
 */
import type { ChainRpcView } from "../../node/chain-view.js";
import { InvalidParamsError } from "../errors.js";
import { createMethodTable, type MethodSpec, type MethodTable, mergeMethodTables } from "../method-table.js";
import { l2BlockRefJson, parseBlockNumberParam, syncStatusJson } from "./stack.js";

/** Specification namespace → upstream namespace. */
const UPSTREAM_NAMESPACES: ReadonlyArray<readonly [spec: string, upstream: string]> = [
  ["stack_", "optimism_"],
  ["stackp2p_", "opp2p_"],
];

/** op-node's `SyncStatus` (op-service/eth/sync_status.go): the specification's object less two fields. */
export function upstreamSyncStatusJson(status: Parameters<typeof syncStatusJson>[0]): Record<string, unknown> {
  const { queued_unsafe_l2: _queued, engine_sync_target: _target, ...rest } = syncStatusJson(status);
  return rest;
}

/** The `optimism_*` methods whose result differs in shape from the specification's `stack_*` ones. */
export function createUpstreamShapeMethods(node: ChainRpcView): MethodTable {
  return createMethodTable({
    optimism_outputAtBlock: async (params) => {
      const n = parseBlockNumberParam(params, "optimism_outputAtBlock");
      const out = await node.outputAtBlock(n);
      // op-service/eth/output.go's OutputResponse, keys in its order.
      return {
        version: out.version,
        outputRoot: out.outputRoot,
        blockRef: l2BlockRefJson(out.blockRef),
        withdrawalStorageRoot: out.withdrawalStorageRoot,
        stateRoot: out.stateRoot,
        syncStatus: upstreamSyncStatusJson(node.syncStatus()),
      };
    },
    optimism_syncStatus: async (params) => {
      if (params.length > 0) throw new InvalidParamsError("optimism_syncStatus takes no parameters");
      return upstreamSyncStatusJson(node.syncStatus());
    },
  });
}

/**
 * Adds the upstream name of every `stack_*` / `stackp2p_*` method of `table` (same handler, same admin gate),
 * unless `table` already has a method by that name (an upstream-shaped one).
 */
export function withUpstreamNames(table: MethodTable): MethodTable {
  const aliases = new Map<string, MethodSpec>();
  for (const [name, spec] of table) {
    for (const [from, to] of UPSTREAM_NAMESPACES) {
      if (!name.startsWith(from)) continue;
      const alias = to + name.slice(from.length);
      if (!table.has(alias)) aliases.set(alias, spec);
    }
  }
  return mergeMethodTables(table, aliases);
}
