/**
 * What `npm run image` reads from the containerised supernode, over its RPC and metrics ports on loopback (the
 * container shares the host's network): each chain's `stack_syncStatus` and the derived-block counters.
 */
export interface ChainHeads {
  readonly unsafe: number;
  readonly safe: number;
}

async function post(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }),
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? "no result"}`);
  return body.result;
}

/** One chain's unsafe and safe L2 block numbers, or undefined while it does not answer. */
export async function chainHeads(rpc: string, chainId: number): Promise<ChainHeads | undefined> {
  try {
    const s = (await post(`${rpc}/${chainId}/`, "stack_syncStatus")) as {
      unsafe_l2: { number: number };
      safe_l2: { number: number };
    };
    return { unsafe: s.unsafe_l2.number, safe: s.safe_l2.number };
  } catch {
    return undefined;
  }
}

/** Every chain's heads (a chain that does not answer is missing from the map). */
export async function allHeads(rpc: string, chains: readonly number[]): Promise<Map<number, ChainHeads>> {
  const heads = new Map<number, ChainHeads>();
  for (const id of chains) {
    const h = await chainHeads(rpc, id);
    if (h !== undefined) heads.set(id, h);
  }
  return heads;
}

/** `supernode_node_derived_blocks_total` summed per chain (both paths), from the metrics endpoint. */
export async function derivedBlocks(metrics: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${metrics}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  const sums = new Map<number, number>();
  for (const line of text.split("\n")) {
    const m = /^supernode_node_derived_blocks_total\{([^}]*)\} (\S+)$/.exec(line);
    const chain = m === null ? null : /chain_id="(\d+)"/.exec(m[1] as string);
    if (m === null || chain === null) continue;
    const id = Number(chain[1]);
    sums.set(id, (sums.get(id) ?? 0) + Number(m[2]));
  }
  return sums;
}

/** Polls `check` every `everyMs` until it returns a value, or throws `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
