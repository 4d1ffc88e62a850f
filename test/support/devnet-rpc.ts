/**
 * What the devnet-level tests share to talk to a running supernode: one JSON-RPC call, a wait for a value, and a
 * read of one exported metric.
 */
export type RpcReply = { result?: unknown; error?: { code: number; message: string } };
export type L2Ref = { number: number; hash: string; timestamp: number };

/** One JSON-RPC request (id 1) to `url`; the reply as it came, error or result. */
export async function call(url: string, method: string, params: unknown[] = []): Promise<RpcReply> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as RpcReply;
}

/**
 * Polls `fn` every 250 ms until it yields a value (a throw counts as "not yet"); fails after `timeoutMs` naming
 * `what`, with `detail()` appended (e.g. the warnings logged meanwhile).
 */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  detail?: () => string,
): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - t0 > timeoutMs) {
      throw new Error(`timed out waiting for ${what}${detail === undefined ? "" : `; ${detail()}`}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The value of the unlabelled series `name` on the metrics page at `url` (0 when absent). */
export async function metricValue(url: string, name: string): Promise<number> {
  const text = await (await fetch(url)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}
