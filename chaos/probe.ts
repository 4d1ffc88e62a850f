/** Read-only probes of the chaos run: JSON-RPC calls, readiness, per-chain states, execution-client block hashes. */

export interface RpcAnswer<T> {
  readonly result?: T;
  readonly error?: { code: number; message: string };
}

export async function rpc<T>(url: string, method: string, params: unknown[] = [], timeoutMs = 5_000): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as RpcAnswer<T>;
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result as T;
}

export async function tryRpc<T>(url: string, method: string, params: unknown[] = []): Promise<T | undefined> {
  try {
    return await rpc<T>(url, method, params);
  } catch {
    return undefined;
  }
}

export interface Head {
  readonly number: number;
  readonly hash: string;
}

export interface ChainStatus {
  readonly unsafe_l2: Head;
  readonly safe_l2: Head;
  readonly finalized_l2: Head & { readonly l1origin?: { readonly number: number } };
  readonly current_l1: Head;
}

export interface NodeView {
  /** `http://127.0.0.1:<port>` of the supernode's RPC server. */
  readonly rpcUrl: string;
}

export function chainStatus(node: NodeView, chainId: number): Promise<ChainStatus | undefined> {
  return tryRpc<ChainStatus>(`${node.rpcUrl}/${chainId}/`, "stack_syncStatus");
}

/** The state of each chain as `supernode_syncStatus` reports it (`chain_states`: a string or `{state, reason}`). */
export async function chainStates(node: NodeView): Promise<Record<string, string> | undefined> {
  const r = await tryRpc<{ chain_states?: Record<string, unknown> }>(`${node.rpcUrl}/`, "supernode_syncStatus");
  if (r?.chain_states === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.chain_states)) {
    out[k] =
      typeof v === "string" ? v : typeof v === "object" && v !== null ? String((v as { state?: unknown }).state) : "?";
  }
  return out;
}

export async function ready(node: NodeView): Promise<boolean | undefined> {
  try {
    const res = await fetch(`${node.rpcUrl}/readyz`, { signal: AbortSignal.timeout(3_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return undefined;
  }
}

/** Canonical block hash at `n` on an execution client's HTTP JSON-RPC. */
export async function elHash(elHttp: string, n: number): Promise<string | undefined> {
  const b = await tryRpc<{ hash: string } | null>(elHttp, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false]);
  return b?.hash ?? undefined;
}

/** Polls `f` every `everyMs` until it returns a value other than `undefined`/false, or `timeoutMs` passes. */
export async function waitFor<T>(
  f: () => Promise<T | undefined | false>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T | undefined> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) return undefined;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
