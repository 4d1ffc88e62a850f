import { heartbeatCheck } from "../activities/heartbeat.js";
import type { ActivityChainView } from "../activities/ports.js";
import {
  cappedCurrentL1,
  type SuperRootHashing,
  type SuperRootVerifier,
  superRootAtTimestamp,
} from "../activities/superroot.js";
import { aggregateSyncStatus } from "../activities/sync-status.js";
import { InvalidParamsError } from "../rpc/errors.js";
import { createMethodTable, mergeMethodTables, type MethodTable, namespacesOf } from "../rpc/method-table.js";

/** `rpc_modules` and `health_status`, present on every endpoint (as in the Go node). */
export function builtinMethods(table: MethodTable, opts: { version: string; enableAdmin: boolean }): MethodTable {
  const withHealth = mergeMethodTables(table, createMethodTable({ health_status: async () => opts.version }));
  const modules: Record<string, string> = {};
  for (const ns of [...namespacesOf(withHealth, { includeAdmin: opts.enableAdmin }), "rpc"].sort()) modules[ns] = "1.0";
  return mergeMethodTables(withHealth, createMethodTable({ rpc_modules: async () => modules }));
}

function noParams(method: string, params: unknown[]): void {
  if (params.length > 0) throw new InvalidParamsError(`${method}: too many arguments, want at most 0`);
}

/** The supernode's own methods at `POST /`: the activity methods plus the builtins. */
export function createRootMethods(
  chains: readonly ActivityChainView[],
  opts: {
    version: string;
    enableAdmin: boolean;
    hashing: SuperRootHashing;
    interopStatus?: () => unknown;
    /** The interop verifier `superroot_atTimestamp` reads (absent while interop is disabled). */
    verifier?: SuperRootVerifier;
  },
): MethodTable {
  const table = createMethodTable({
    heartbeat_check: async (params) => {
      noParams("heartbeat_check", params);
      return heartbeatCheck();
    },
    supernode_syncStatus: async (params) => {
      noParams("supernode_syncStatus", params);
      const agg = await aggregateSyncStatus(chains);
      const currentL1 = cappedCurrentL1(agg.current_l1, opts.verifier);
      // Our addition: the interop activity's state and verified timestamp (absent while interop is disabled).
      const capped = { ...agg, current_l1: currentL1 };
      return opts.interopStatus === undefined ? capped : { ...capped, interop: opts.interopStatus() ?? null };
    },
    superroot_atTimestamp: async (params) => superRootAtTimestamp(chains, params, opts.hashing, opts.verifier),
  });
  return builtinMethods(table, opts);
}
