import type { ChainId } from "../core/types/primitives.js";

/** Per-call context handed to every handler. */
export interface RpcContext {
  /** The chain whose endpoint (`/<chainID>/`) received the call; absent for the supernode's own endpoint (`/`). */
  readonly chainId?: ChainId;
}

/**
 * A JSON-RPC method implementation. `params` is the positional parameter array (empty when the request had none).
 * Handlers validate their own params (throw `InvalidParamsError` or a `DecodeError`) and return a JSON-serialisable
 * value (bigint allowed; it is rendered as a JSON integer). Any thrown error is mapped to a code by `rpc/errors.ts`.
 */
export type MethodHandler = (params: unknown[], ctx: RpcContext) => Promise<unknown>;

export interface MethodSpec {
  readonly handler: MethodHandler;
  /** `admin_*`-style method: served only when the server runs with `--rpc.enable-admin`. */
  readonly admin?: boolean;
}

/** Method name (`<namespace>_<method>`) → implementation. Immutable once built. */
export type MethodTable = ReadonlyMap<string, MethodSpec>;

/** Builds a table from an object literal; a bare function is a non-admin method. */
export function createMethodTable(entries: Readonly<Record<string, MethodSpec | MethodHandler>>): MethodTable {
  const table = new Map<string, MethodSpec>();
  for (const [name, entry] of Object.entries(entries)) {
    table.set(name, typeof entry === "function" ? { handler: entry } : entry);
  }
  return table;
}

/** Union of tables; a later table's method wins over an earlier one with the same name. */
export function mergeMethodTables(...tables: readonly MethodTable[]): MethodTable {
  const out = new Map<string, MethodSpec>();
  for (const t of tables) for (const [name, spec] of t) out.set(name, spec);
  return out;
}

/** Namespaces present in a table (`stack_syncStatus` → `stack`), sorted. */
export function namespacesOf(table: MethodTable, opts: { includeAdmin: boolean }): string[] {
  const ns = new Set<string>();
  for (const [name, spec] of table) {
    if (spec.admin === true && !opts.includeAdmin) continue;
    const i = name.indexOf("_");
    if (i > 0) ns.add(name.slice(0, i));
  }
  return [...ns].sort();
}
