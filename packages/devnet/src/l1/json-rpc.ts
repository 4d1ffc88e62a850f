/** A minimal JSON-RPC 2.0 client over HTTP (fetch) for devnet tooling. */

export class JsonRpcRemoteError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method}: ${message} (code ${code})`);
    this.name = "JsonRpcRemoteError";
  }
}

interface RpcResponse {
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

export class JsonRpcHttpClient {
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly headers: () => Record<string, string> | Promise<Record<string, string>> = () => ({}),
    private readonly timeoutMs = 30_000,
  ) {}

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const res = await fetch(this.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(await this.headers()) },
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }, (_k, v: unknown) =>
        typeof v === "bigint" ? `0x${v.toString(16)}` : v,
      ),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok) throw new Error(`${method}: HTTP ${res.status} from ${this.url}`);
    const body = (await res.json()) as RpcResponse;
    if (body.error !== undefined)
      throw new JsonRpcRemoteError(method, body.error.code, body.error.message, body.error.data);
    return body.result as T;
  }
}
